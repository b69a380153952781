// Final state of a run's postcodes, per (postcode, lookup) pair.
import { zeroOutcomes, type OutcomeCounts } from "../spec/counts.js";
import type { Lookup } from "../spec/fields.js";
import type { Db } from "./db.js";

export function finalCounts(db: Db, runId: number, lookups: readonly Lookup[]): OutcomeCounts {
  const counts = zeroOutcomes();
  const stmt = db.prepare(
    `SELECT COALESCE(l.status, 'pending') AS status, COUNT(*) AS n
       FROM (SELECT DISTINCT postcode FROM run_rows WHERE run_id = ? AND postcode IS NOT NULL) r
       LEFT JOIN lookups l ON l.postcode = r.postcode AND l.lookup = ?
      GROUP BY 1`,
  );
  for (const lookup of lookups)
    for (const row of stmt.all(runId, lookup) as { status: string; n: number }[]) {
      if (row.status === "ok") counts.ok += row.n;
      else if (row.status === "not_found") counts.notFound += row.n;
      else if (row.status === "failed") counts.failed += row.n;
      else counts.pending += row.n;
    }
  return counts;
}
