// A running batch's progress from what it has stored: for `npm run status` while the batch runs.
import type { Db } from "./db.js";
import type { RunningProgress } from "../types.js";

export type { RunningProgress } from "../types.js";

/** The newest run still marked running, or null. Counts come from its plan and answers, not its checkpoint. */
export function runningProgress(db: Db): RunningProgress | null {
  const run = db.prepare("SELECT id, started_at, lookups, requests FROM runs WHERE state = 'running' ORDER BY id DESC LIMIT 1").get() as
    | { id: number; started_at: string; lookups: string; requests: number }
    | undefined;
  if (!run) return null;
  const lookups = JSON.parse(run.lookups) as string[];
  const counts = db
    .prepare(
      `SELECT COUNT(*) * ? AS pairs,
              (SELECT COUNT(*) FROM run_needs WHERE run_id = @run) AS toFetch,
              (SELECT COUNT(*) FROM run_needs n JOIN lookups l ON l.postcode = n.postcode AND l.lookup = n.lookup AND l.run_id = n.run_id
                WHERE n.run_id = @run) AS fetched
         FROM (SELECT DISTINCT postcode FROM run_rows WHERE run_id = @run AND postcode IS NOT NULL)`,
    )
    .get(lookups.length, { run: run.id }) as { pairs: number; toFetch: number; fetched: number };
  return { runId: run.id, startedAt: run.started_at, requests: run.requests, ...counts, reused: Math.max(0, counts.pairs - counts.toFetch) };
}
