// The figures report.html adds to the summary, counted by the snapshot over its postcodes
// (so they cover exactly the summary's addresses): the exclusive broadband tiers, the distribution
// of MaxPredictedDown, and the run's own row.
import type { ReportSnapshot } from "../../store/snapshot.js";
import { downloadTier, SPEED_THRESHOLDS as T, TIERS } from "../../figures/definitions.js";
import type { Summary } from "../summary/summary.js";
import type { HtmlReportData, MapData, SpeedBin, TierCount } from "./types.js";
import { COORDINATE_COLUMNS } from "../../figures/coordinates.js";
import { layoutMap, type MapPoint } from "./map/layout.js";

/** The histogram's bin edges, Mbit/s: every tier threshold is an edge, with finer steps between. */
export const SPEED_BIN_EDGES: readonly number[] = [...new Set([0, 2, 5, T.decentDown, 20, T.superfast, 50, 100, 200, T.ultrafast, 500, T.gigabit])].sort(
  (a, b) => a - b,
);

/**
 * Addresses per exclusive tier, and those with a prediction per MaxPredictedDown bin (no data has
 * no bin): one pass over the addresses.
 */
export async function broadbandDistribution(snapshot: ReportSnapshot): Promise<{ tiers: TierCount[]; speedBins: SpeedBin[] }> {
  const rows = await snapshot.broadbandDistribution(SPEED_BIN_EDGES);
  const sum = (keep: (r: (typeof rows)[number]) => boolean) => rows.filter(keep).reduce((s, r) => s + r.addresses, 0);
  return {
    tiers: TIERS.map((tier) => ({ tier, addresses: sum((r) => r.tier === tier) })),
    speedBins: SPEED_BIN_EDGES.map((from, i) => ({ from, to: SPEED_BIN_EDGES[i + 1] ?? null, tier: downloadTier(from), addresses: sum((r) => r.bin === i) })),
  };
}

const MAP_COLUMNS = ["BroadbandAddresses", "BelowSuperfast", "MobileAddresses", "IndoorVoiceTotalNotspots"] as const;

/** The postcodes with coordinates and their figures, binned for the map; and how many have none. */
export async function collectMapData(snapshot: ReportSnapshot): Promise<MapData> {
  const [lat, lon] = COORDINATE_COLUMNS;
  const points: MapPoint[] = [];
  for await (const batch of snapshot.postcodeRows([lat, lon, ...MAP_COLUMNS], "located"))
    for (const r of batch)
      points.push({
        latitude: r[1] as number,
        longitude: r[2] as number,
        broadbandAddresses: r[3] as number | null,
        belowSuperfast: r[4] as number | null,
        mobileAddresses: r[5] as number | null,
        voiceNotspots: r[6] as number | null,
      });
  const missing = await snapshot.countLocated(false);
  return { located: points.length, missing, layout: layoutMap(points) };
}

/** Everything but the optional groups and changes; the snapshot's postcode figures must be prepared. */
export async function collectHtmlReportData(snapshot: ReportSnapshot, summary: Summary): Promise<HtmlReportData> {
  const broadband = snapshot.scope.lookups.includes("broadband") ? await broadbandDistribution(snapshot) : { tiers: [], speedBins: [] };
  return {
    summary,
    ...broadband,
    run: await snapshot.runFacts(),
    map: await collectMapData(snapshot),
  };
}
