// The figures report.html adds to the summary, counted by SQLite over the report's postcode table
// (so they cover exactly the summary's addresses): the exclusive broadband tiers, the distribution
// of MaxPredictedDown, and the run's own row.
import type { Db } from "../../store/sqlite/db.js";
import { downloadTier, SPEED_THRESHOLDS as T, TIERS, type Tier } from "../definitions.js";
import { downloadWithDataSql, tierSql } from "../measures.js";
import { POSTCODE_TABLE } from "../postcode-table.js";
import type { ReportScope } from "../scope.js";
import type { Summary } from "../summary.js";
import { readRunFacts } from "../../store/sqlite/runs.js";
import type { HtmlReportData, MapData, SpeedBin, TierCount } from "./types.js";
import { COORDINATE_COLUMNS } from "../coordinates.js";
import { layoutMap, type MapPoint } from "./map/layout.js";

/** The histogram's bin edges, Mbit/s: every tier threshold is an edge, with finer steps between. */
export const SPEED_BIN_EDGES: readonly number[] = [...new Set([0, 2, 5, T.decentDown, 20, T.superfast, 50, 100, 200, T.ultrafast, 500, T.gigabit])].sort(
  (a, b) => a - b,
);

const ADDRESSES = `${POSTCODE_TABLE} s CROSS JOIN broadband_addresses b ON b.postcode = s.postcode`;

/**
 * Addresses per exclusive tier, and those with a prediction per MaxPredictedDown bin (no data has
 * no bin): one pass over the addresses.
 */
export function broadbandDistribution(db: Db): { tiers: TierCount[]; speedBins: SpeedBin[] } {
  const down = downloadWithDataSql("b");
  const bin = `(CASE ${SPEED_BIN_EDGES.map((edge, i) => ({ edge, i }))
    .reverse()
    .map(({ edge, i }) => `WHEN ${down} >= ${edge} THEN ${i}`)
    .join(" ")} END)`;
  const rows = db.prepare(`SELECT ${tierSql("b")} AS tier, ${bin} AS bin, COUNT(*) AS n FROM ${ADDRESSES} GROUP BY tier, bin`).all() as {
    tier: Tier;
    bin: number | null;
    n: number;
  }[];
  const sum = (keep: (r: (typeof rows)[number]) => boolean) => rows.filter(keep).reduce((s, r) => s + r.n, 0);
  return {
    tiers: TIERS.map((tier) => ({ tier, addresses: sum((r) => r.tier === tier) })),
    speedBins: SPEED_BIN_EDGES.map((from, i) => ({ from, to: SPEED_BIN_EDGES[i + 1] ?? null, tier: downloadTier(from), addresses: sum((r) => r.bin === i) })),
  };
}

/** The postcodes with coordinates and their figures, binned for the map; and how many have none. */
export function collectMapData(db: Db): MapData {
  const [lat, lon] = COORDINATE_COLUMNS;
  const points = db
    .prepare(
      `SELECT ${lat} AS latitude, ${lon} AS longitude, BroadbandAddresses AS broadbandAddresses, BelowSuperfast AS belowSuperfast,
              MobileAddresses AS mobileAddresses, IndoorVoiceTotalNotspots AS voiceNotspots
         FROM ${POSTCODE_TABLE} WHERE ${lat} IS NOT NULL ORDER BY display`,
    )
    .all() as MapPoint[];
  const missing = db.prepare(`SELECT COUNT(*) FROM ${POSTCODE_TABLE} WHERE ${lat} IS NULL`).pluck().get() as number;
  return { located: points.length, missing, layout: layoutMap(points) };
}

/** Everything but the optional groups and changes; the report's postcode table must be built. */
export function collectHtmlReportData(db: Db, scope: ReportScope, summary: Summary): HtmlReportData {
  const broadband = scope.lookups.includes("broadband") ? broadbandDistribution(db) : { tiers: [], speedBins: [] };
  return {
    summary,
    ...broadband,
    run: readRunFacts(db, scope.runId),
    map: collectMapData(db),
  };
}
