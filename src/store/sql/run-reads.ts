// Reads of the runs table and of a run's pairs, the same on every engine: which run a report is
// of, one recorded option, a run's facts and the final state of its pairs.
import { zeroOutcomes, type OutcomeCounts } from "../../spec/counts.js";
import type { Lookup } from "../../spec/fields.js";
import { runInfoOf, type RunInfoRow } from "../shared/runs.js";
import type { RunCounts, RunFacts, RunInfo } from "../types.js";
import type { SqlSession } from "./session.js";

/** Final state of a run's pairs: an answer the run needed (run_needs) but did not fetch is pending, even when an older one is stored. */
export async function finalCounts(q: SqlSession, runId: number, lookups: readonly Lookup[]): Promise<OutcomeCounts> {
  const counts = zeroOutcomes();
  for (const lookup of lookups)
    for (const row of await q.all<{ status: string; n: number }>(
      `SELECT CASE WHEN n.postcode IS NOT NULL AND l.run_id IS DISTINCT FROM @runId THEN 'pending' ELSE COALESCE(l.status, 'pending') END AS status,
              COUNT(*) AS n
         FROM (SELECT DISTINCT postcode FROM run_rows WHERE run_id = @runId AND postcode IS NOT NULL) r
         LEFT JOIN lookups l ON l.postcode = r.postcode AND l.lookup = @lookup
         LEFT JOIN run_needs n ON n.run_id = @runId AND n.lookup = @lookup AND n.postcode = r.postcode
        GROUP BY 1`,
      { runId, lookup },
    )) {
      if (row.status === "ok") counts.ok += row.n;
      else if (row.status === "not_found") counts.notFound += row.n;
      else if (row.status === "failed") counts.failed += row.n;
      else counts.pending += row.n;
    }
  return counts;
}

/** A run's input and outcome counts from what it has stored so far: for a run that has not finished (or never will). */
export async function countsAsTheyStand(q: SqlSession, runId: number, lookups: readonly Lookup[]): Promise<Omit<RunCounts, "requests" | "retries" | "throttled">> {
  const input = (await q.get<{ inputRows: number; postcodes: number; rejects: number }>(
    `SELECT COUNT(*) AS "inputRows", COUNT(DISTINCT postcode) AS postcodes, COUNT(reason) AS rejects FROM run_rows WHERE run_id = @runId`,
    { runId },
  ))!;
  return { ...input, ...(await finalCounts(q, runId, lookups)) };
}

/**
 * The run with this id, or the last run that read its input (a run that failed on its input or
 * configuration has no rows to report); null when there is no such run. Throws DatabaseError when
 * its lists are unreadable.
 */
export async function readRun(q: SqlSession, which: number | "last"): Promise<RunInfo | null> {
  const select = "SELECT id, state, simulated, input_columns, lookups, providers FROM runs";
  const row =
    which === "last"
      ? await q.get<RunInfoRow>(`${select} WHERE state <> 'failed' OR input_rows > 0 ORDER BY id DESC LIMIT 1`)
      : await q.get<RunInfoRow>(`${select} WHERE id = @which`, { which });
  return row ? runInfoOf(row) : null;
}

/** One option the run recorded (runs.args), undefined when it recorded none or the row is unreadable. */
export async function runArg(q: SqlSession, runId: number, name: string): Promise<unknown> {
  const row = await q.get<{ args: string }>("SELECT args FROM runs WHERE id = @runId", { runId });
  try {
    return row === null ? undefined : (JSON.parse(row.args) as Record<string, unknown>)[name];
  } catch {
    return undefined;
  }
}

export async function readRunFacts(q: SqlSession, runId: number): Promise<RunFacts | null> {
  return q.get<RunFacts>(
    `SELECT id, state, started_at AS "startedAt", ended_at AS "endedAt", requests, retries, throttled, message FROM runs WHERE id = @runId`,
    { runId },
  );
}

/** The lowest and highest run id; null when no run is stored. */
export async function runIdRange(q: SqlSession): Promise<{ min: number; max: number } | null> {
  const range = await q.get<{ min: number | null; max: number | null }>("SELECT MIN(id) AS min, MAX(id) AS max FROM runs");
  return range === null || range.min === null || range.max === null ? null : { min: range.min, max: range.max };
}
