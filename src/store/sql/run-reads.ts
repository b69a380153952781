// Reads of the runs table and of a run's rows and pairs, the same on every engine: which run a
// report is of, one recorded option, a run's facts, its input counts, the final state of its
// pairs, the last run's settings. Written as steps (steps.ts), so that SQLite can run them inside
// its synchronous transactions; each has a form over the session too.
import { zeroOutcomes, type OutcomeCounts } from "../../contract/counts.js";
import type { Lookup } from "../../contract/fields.js";
import { DatabaseError, type LastRunSettings, type RunCounts, type RunFacts, type RunInfo, type RunState } from "../types.js";
import type { SqlSession } from "./session.js";
import { all, get, runSteps, type Steps } from "./steps.js";

// A run's row: its lists are JSON text, read back with a clear error.
interface RunInfoRow {
  id: number;
  state: RunState;
  simulated: number;
  input_columns: string;
  postcode_column: string;
  lookups: string;
  providers: string;
}

/** The run a row describes; throws DatabaseError when its lists are unreadable. */
function runInfoOf(row: RunInfoRow): RunInfo {
  return {
    id: row.id,
    state: row.state,
    simulated: row.simulated === 1,
    inputColumns: jsonList(row.input_columns, `run ${row.id}'s input columns`),
    postcodeColumn: row.postcode_column,
    lookups: jsonList(row.lookups, `run ${row.id}'s lookups`),
    providers: jsonList(row.providers, `run ${row.id}'s providers`),
  };
}

function jsonList(text: string, what: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value as string[];
  } catch {
    // reported below
  }
  throw new DatabaseError(`${what} are not readable in the database (${text.slice(0, 60)})`);
}

/** Final state of a run's pairs: an answer the run needed (run_needs) but did not fetch is pending, even when an older one is stored. */
export function* finalCountsSteps(runId: number, lookups: readonly Lookup[]): Steps<OutcomeCounts> {
  const counts = zeroOutcomes();
  for (const lookup of lookups)
    for (const row of yield* all<{ status: string; n: number }>(
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

export const finalCounts = (q: SqlSession, runId: number, lookups: readonly Lookup[]): Promise<OutcomeCounts> => runSteps(q, finalCountsSteps(runId, lookups));

export type CountsSoFar = Omit<RunCounts, "requests" | "retries" | "throttled">;

/** A run's input and outcome counts from what it has stored so far: for a run that has not finished (or never will). */
export function* countsAsTheyStandSteps(runId: number, lookups: readonly Lookup[]): Steps<CountsSoFar> {
  const input = (yield* get<{ inputRows: number; postcodes: number; rejects: number }>(
    `SELECT COUNT(*) AS "inputRows", COUNT(DISTINCT postcode) AS postcodes, COUNT(reason) AS rejects FROM run_rows WHERE run_id = @runId`,
    { runId },
  ))!;
  return { ...input, ...(yield* finalCountsSteps(runId, lookups)) };
}

export const countsAsTheyStand = (q: SqlSession, runId: number, lookups: readonly Lookup[]): Promise<CountsSoFar> =>
  runSteps(q, countsAsTheyStandSteps(runId, lookups));

/**
 * The run with this id, or the last run that read its input (a run that failed on its input or
 * configuration has no rows to report); null when there is no such run. Throws DatabaseError when
 * its lists are unreadable.
 */
export function* readRunSteps(which: number | "last"): Steps<RunInfo | null> {
  const select = "SELECT id, state, simulated, input_columns, postcode_column, lookups, providers FROM runs";
  const row =
    which === "last"
      ? yield* get<RunInfoRow>(`${select} WHERE state <> 'failed' OR input_rows > 0 ORDER BY id DESC LIMIT 1`)
      : yield* get<RunInfoRow>(`${select} WHERE id = @which`, { which });
  return row ? runInfoOf(row) : null;
}

export const readRun = (q: SqlSession, which: number | "last"): Promise<RunInfo | null> => runSteps(q, readRunSteps(which));

/** One option the run recorded (runs.args), undefined when it recorded none or the row is unreadable. */
export function* runArgSteps(runId: number, name: string): Steps<unknown> {
  const row = yield* get<{ args: string }>("SELECT args FROM runs WHERE id = @runId", { runId });
  try {
    return row === null ? undefined : (JSON.parse(row.args) as Record<string, unknown>)[name];
  } catch {
    return undefined;
  }
}

export const runArg = (q: SqlSession, runId: number, name: string): Promise<unknown> => runSteps(q, runArgSteps(runId, name));

export const readRunFactsSteps = (runId: number): Steps<RunFacts | null> =>
  get<RunFacts>(`SELECT id, state, started_at AS "startedAt", ended_at AS "endedAt", requests, retries, throttled, message FROM runs WHERE id = @runId`, { runId });

export const readRunFacts = (q: SqlSession, runId: number): Promise<RunFacts | null> => runSteps(q, readRunFactsSteps(runId));

/** The lowest and highest run id; null when no run is stored. */
export function* runIdRangeSteps(): Steps<{ min: number; max: number } | null> {
  const range = yield* get<{ min: number | null; max: number | null }>("SELECT MIN(id) AS min, MAX(id) AS max FROM runs");
  return range === null || range.min === null || range.max === null ? null : { min: range.min, max: range.max };
}

export const runIdRange = (q: SqlSession): Promise<{ min: number; max: number } | null> => runSteps(q, runIdRangeSteps());

/** The last run that read an input: its options say how the nightly job is set up; null when none or unreadable. */
export async function lastRunSettings(q: SqlSession): Promise<LastRunSettings | null> {
  const row = await q.get<{ id: number; started_at: string; simulated: number; providers: string; args: string }>(
    "SELECT id, started_at, simulated, providers, args FROM runs WHERE id = (SELECT MAX(run_id) FROM run_rows)",
  );
  if (!row) return null;
  try {
    return { runId: row.id, startedAt: row.started_at, simulated: row.simulated === 1, providers: JSON.parse(row.providers) as string[], args: JSON.parse(row.args) as Record<string, unknown> };
  } catch {
    return null;
  }
}

/** How many rows a run's input had, and how many of them held no valid postcode. */
export function* inputRowCountsSteps(runId: number): Steps<{ input: number; invalid: number }> {
  return (yield* get<{ input: number; invalid: number }>("SELECT COUNT(*) AS input, COUNT(*) - COUNT(postcode) AS invalid FROM run_rows WHERE run_id = @runId", { runId }))!;
}
