// postcodes.geojson: every postcode with coordinates (--area-file) as a GeoJSON Point feature with
// its figures, for QGIS, ArcGIS or kepler.gl. RFC 7946: WGS84 longitude then latitude, as the area
// file gives them (not rounded); property names are postcodes.csv's, and each count of addresses
// has its share beside it (percent of the lookup's addresses, one decimal; null without addresses).
// With Ofcom's open data in the database, its month and shares of premises follow, as in postcodes.csv.
// Streamed from the report's postcode table, one feature per line.
import type { Db } from "../store/sqlite/db.js";
import { writeAtomically } from "./atomic-file.js";
import { COORDINATE_COLUMNS } from "./coordinates.js";
import { providerColumn } from "./measures.js";
import { ADDRESSES_COLUMN, openDataColumns, POSTCODE_TABLE, STATUS_COLUMN } from "./postcode-table.js";
import type { ReportScope } from "./scope.js";
import { percent } from "./summary.js";

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

/** How many postcodes in scope have coordinates: postcodes.geojson is written when any has. */
export function countLocated(db: Db): number {
  return db.prepare(`SELECT COUNT(*) FROM ${POSTCODE_TABLE} WHERE ${COORDINATE_COLUMNS[0]} IS NOT NULL`).pluck().get() as number;
}

export function writePostcodesGeojson(db: Db, scope: ReportScope, path: string): Promise<void> {
  const [lat, lon] = COORDINATE_COLUMNS;
  const counts = sharedCounts(scope.providers);
  const plain = ["Status", STATUS_COLUMN.broadband, STATUS_COLUMN.mobile, ADDRESSES_COLUMN.broadband, ADDRESSES_COLUMN.mobile];
  const openData = openDataColumns(scope);
  const rows = db
    .prepare(
      `SELECT s.display AS PostCode, s.${lat} AS lat, s.${lon} AS lon, ${[...plain, ...counts.map((c) => c.column), ...openData].map((c) => `s.${c}`).join(", ")},
              lb.dataset AS BroadbandRelease, lm.dataset AS MobileRelease
         FROM ${POSTCODE_TABLE} s
         LEFT JOIN lookups lb ON lb.postcode = s.postcode AND lb.lookup = 'broadband'
         LEFT JOIN lookups lm ON lm.postcode = s.postcode AND lm.lookup = 'mobile'
        WHERE s.${lat} IS NOT NULL ORDER BY s.display`,
    )
    .iterate() as Iterable<Record<string, string | number | null>>;
  function* lines(): Generator<string> {
    yield `{"type":"FeatureCollection","features":[`;
    let first = true;
    for (const r of rows) {
      const properties: Record<string, string | number | null> = { PostCode: r.PostCode! };
      for (const c of plain) properties[c] = r[c] ?? null;
      for (const c of counts) {
        const count = r[c.column] as number | null;
        const of = r[c.of] as number | null;
        properties[c.column] = count;
        const share = count === null || of === null ? "" : percent(count, of);
        properties[`${c.column}Share`] = share === "" ? null : Number(share);
      }
      properties.BroadbandRelease = r.BroadbandRelease ?? null;
      properties.MobileRelease = r.MobileRelease ?? null;
      for (const c of openData) properties[c] = r[c] ?? null;
      const feature = { type: "Feature", geometry: { type: "Point", coordinates: [r.lon, r.lat] }, properties };
      yield `${first ? "\n" : ",\n"}${JSON.stringify(feature)}`;
      first = false;
    }
    yield "\n]}\n";
  }
  return writeAtomically(path, lines());
}
