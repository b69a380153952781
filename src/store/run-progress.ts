// A running batch's progress from what it has stored: for `npm run status` while the batch runs.
import type { Db } from "./db.js";

export interface RunningProgress {
  runId: number;
  startedAt: string;
  /** postcode x lookup pairs of the run's input */
  pairs: number;
  /** pairs answered by this run so far */
  fetched: number;
  /** pairs the run found fresh and did not need to fetch (answered before it started) */
  reused: number;
  /** requests at the last checkpoint */
  requests: number;
}

/** The newest run still marked running, or null. Counts come from its rows and answers, not its checkpoint. */
export function runningProgress(db: Db): RunningProgress | null {
  const run = db.prepare("SELECT id, started_at, lookups, requests FROM runs WHERE state = 'running' ORDER BY id DESC LIMIT 1").get() as
    | { id: number; started_at: string; lookups: string; requests: number }
    | undefined;
  if (!run) return null;
  const lookups = JSON.parse(run.lookups) as string[];
  const counts = db
    .prepare(
      `SELECT COUNT(*) * ? AS pairs,
              (SELECT COUNT(*) FROM lookups l WHERE l.run_id = @run AND l.postcode IN (SELECT postcode FROM run_rows WHERE run_id = @run)) AS fetched,
              (SELECT COUNT(*) FROM lookups l WHERE l.fetched_at < @started
                  AND l.postcode IN (SELECT postcode FROM run_rows WHERE run_id = @run)
                  AND l.lookup IN (SELECT value FROM json_each(@lookups))) AS reused
         FROM (SELECT DISTINCT postcode FROM run_rows WHERE run_id = @run AND postcode IS NOT NULL)`,
    )
    .get(lookups.length, { run: run.id, started: run.started_at, lookups: run.lookups }) as { pairs: number; fetched: number; reused: number };
  return { runId: run.id, startedAt: run.started_at, requests: run.requests, ...counts };
}
