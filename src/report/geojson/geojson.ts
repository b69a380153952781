// postcodes.geojson: every postcode with coordinates (--area-file) as a GeoJSON Point feature with
// its figures, for QGIS, ArcGIS or kepler.gl. RFC 7946: WGS84 longitude then latitude, as the area
// file gives them (not rounded); property names are postcodes.csv's, and each count of addresses
// has its share beside it (a fraction of the lookup's addresses, 4 places, as every column named
// Share; null without addresses). The collection carries the data's attribution and whether a
// simulated run made it (foreign members, which RFC 7946 allows).
// With Ofcom's open data in the database, its month and shares of premises follow, as in postcodes.csv.
// When the mobile figures combine answers on two scales (or --mobile-scale forces one), the
// collection says so with the addresses on each (`mobileScales`), and each feature names its
// answer's scale (MobileScale). Streamed from the snapshot's located postcodes, one feature per line.
import type { ReportSnapshot } from "../../store/snapshot.js";
import { writeAtomically } from "../set/atomic-file.js";
import { COORDINATE_COLUMNS } from "../../figures/coordinates.js";
import { providerColumn } from "../../figures/measures.js";
import { ADDRESSES_COLUMN, MOBILE_SCALE_COLUMN, openDataColumns, RELEASE_COLUMN, STATUS_COLUMN } from "../../figures/postcode-columns.js";
import type { MobileScale } from "../../contract/mobile-scales.js";
import { shareFraction } from "../words/figure-labels.js";

export const GEOJSON_NAME = "postcodes.geojson";

/** The counts that carry a share, and what they are a share of. */
function sharedCounts(providers: readonly string[]): { column: string; of: string }[] {
  const bb = ADDRESSES_COLUMN.broadband;
  const mob = ADDRESSES_COLUMN.mobile;
  return [
    { column: "NoData", of: bb },
    { column: "BelowDecent", of: bb },
    { column: "BelowSuperfast", of: bb },
    { column: "IndoorVoiceTotalNotspots", of: mob },
    { column: "IndoorDataTotalNotspots", of: mob },
    ...providers.flatMap((p) => [
      { column: providerColumn(p, "IndoorVoiceNotspots"), of: mob },
      { column: providerColumn(p, "IndoorDataNotspots"), of: mob },
    ]),
  ];
}

/** How the mobile figures read the answers and the addresses on each scale, said only when they combine two scales or one is forced. */
export interface GeojsonScales {
  reading: string;
  addresses: Record<MobileScale, number>;
}

/** What the collection says of itself: the attribution sentence, whether the figures are simulated, and the scales when mixed or forced. */
export interface GeojsonAbout {
  attribution: string;
  simulated: boolean;
  scales: GeojsonScales | null;
}

export function writePostcodesGeojson(snapshot: ReportSnapshot, path: string, about: GeojsonAbout): Promise<void> {
  const scales = about.scales;
  const counts = sharedCounts(snapshot.scope.providers);
  const plain = ["Status", STATUS_COLUMN.broadband, STATUS_COLUMN.mobile, ADDRESSES_COLUMN.broadband, ADDRESSES_COLUMN.mobile, ...(scales ? [MOBILE_SCALE_COLUMN] : [])];
  const openData = openDataColumns(snapshot.scope);
  const releases = [RELEASE_COLUMN.broadband, RELEASE_COLUMN.mobile];
  const columns = [...COORDINATE_COLUMNS, ...plain, ...counts.map((c) => c.column), ...releases, ...openData];
  const at = new Map(columns.map((c, i) => [c, i + 1]));
  const rows = snapshot.postcodeRows(columns, "located");
  async function* lines(): AsyncGenerator<string> {
    const head = {
      type: "FeatureCollection",
      attribution: about.attribution,
      ...(about.simulated ? { simulated: "SIMULATED: figures from the bundled simulator, not the real API" } : {}),
      ...(scales ? { mobileScales: scales } : {}),
    };
    yield `${JSON.stringify(head).slice(0, -1)},"features":[`;
    let first = true;
    for await (const batch of rows) {
      let text = "";
      for (const row of batch) {
        const r = (c: string) => row[at.get(c)!] ?? null;
        const properties: Record<string, string | number | null> = { PostCode: row[0]! };
        for (const c of plain) properties[c] = r(c);
        for (const c of counts) {
          const count = r(c.column) as number | null;
          const of = r(c.of) as number | null;
          properties[c.column] = count;
          properties[`${c.column}Share`] = count === null || of === null || of === 0 ? null : shareFraction(count, of);
        }
        for (const c of releases) properties[c] = r(c);
        for (const c of openData) properties[c] = r(c);
        const feature = { type: "Feature", geometry: { type: "Point", coordinates: [r(COORDINATE_COLUMNS[1]), r(COORDINATE_COLUMNS[0])] }, properties };
        text += `${first ? "\n" : ",\n"}${JSON.stringify(feature)}`;
        first = false;
      }
      yield text;
    }
    yield "\n]}\n";
  }
  return writeAtomically(path, lines());
}
