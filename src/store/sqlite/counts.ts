// Final state of a run's postcodes, per (postcode, lookup) pair.
import { zeroOutcomes, type OutcomeCounts } from "../../spec/counts.js";
import type { Lookup } from "../../spec/fields.js";
import type { Db } from "./db.js";

export function finalCounts(db: Db, runId: number, lookups: readonly Lookup[]): OutcomeCounts {
  const counts = zeroOutcomes();
  // An answer the run needed (run_needs) but did not fetch is pending, even when an older one is stored.
  const stmt = db.prepare(
    `SELECT CASE WHEN n.postcode IS NOT NULL AND l.run_id IS NOT @runId THEN 'pending' ELSE COALESCE(l.status, 'pending') END AS status,
            COUNT(*) AS n
       FROM (SELECT DISTINCT postcode FROM run_rows WHERE run_id = @runId AND postcode IS NOT NULL) r
       LEFT JOIN lookups l ON l.postcode = r.postcode AND l.lookup = @lookup
       LEFT JOIN run_needs n ON n.run_id = @runId AND n.lookup = @lookup AND n.postcode = r.postcode
      GROUP BY 1`,
  );
  for (const lookup of lookups)
    for (const row of stmt.all({ runId, lookup }) as { status: string; n: number }[]) {
      if (row.status === "ok") counts.ok += row.n;
      else if (row.status === "not_found") counts.notFound += row.n;
      else if (row.status === "failed") counts.failed += row.n;
      else counts.pending += row.n;
    }
  return counts;
}
