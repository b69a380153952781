// The runs table's writes, the same on every engine: a run is created under its lease, given its
// input's columns, checkpointed, finished, and forgotten or abandoned. Each engine passes its
// session and its write transaction (steps.ts); the reads are run-reads.ts'.
import type { Lookup } from "../../contract/fields.js";
import type { RunStore } from "../store.js";
import type { NewRun, RunEnd } from "../types.js";
import type { Dialect } from "./dialect.js";
import { countsAsTheyStandSteps, finalCounts, lastRunSettings, readRun, readRunFacts } from "./run-reads.js";
import type { SqlSession } from "./session.js";
import { all, exec, get, runSteps, type Steps, type Transact } from "./steps.js";
import { ABANDONED_MESSAGE } from "./status.js";

/** A new run in state 'running', tied to its lease (the lease names its run, for status). */
export function* createRunSteps(run: NewRun): Steps<number> {
  const { id } = (yield* get<{ id: number }>(
    `INSERT INTO runs (started_at, state, simulated, input_name, input_columns, postcode_column, args, lookups, providers, lease_id)
     VALUES (@startedAt, 'running', @simulated, @inputName, '[]', '', @args, @lookups, @providers, @leaseId) RETURNING id`,
    {
      startedAt: run.startedAt,
      simulated: run.simulated ? 1 : 0,
      inputName: run.inputName,
      args: JSON.stringify(run.args),
      lookups: JSON.stringify(run.lookups),
      providers: JSON.stringify(run.providers),
      leaseId: run.leaseId ?? null,
    },
  ))!;
  if (run.leaseId != null) yield* exec("UPDATE leases SET run_id = @id WHERE id = @leaseId", { id, leaseId: run.leaseId });
  return id;
}

export function* setRunInputSteps(runId: number, columns: readonly string[], postcodeColumn: string): Steps<void> {
  yield* exec("UPDATE runs SET input_columns = @columns, postcode_column = @postcodeColumn WHERE id = @runId", { columns: JSON.stringify(columns), postcodeColumn, runId });
}

export function* finishRunSteps(runId: number, { counts: c, ...end }: RunEnd): Steps<void> {
  yield* exec(
    `UPDATE runs SET ended_at = @endedAt, state = @state, exit_code = @exitCode, message = @message, input_rows = @inputRows,
       postcodes = @postcodes, rejects = @rejects, ok = @ok, not_found = @notFound, failed = @failed, pending = @pending,
       requests = @requests, retries = @retries, throttled = @throttled WHERE id = @runId`,
    { ...end, ...c, runId },
  );
}

/** A run refused for its options before it fetched anything goes (rows and row), so that the next run takes its number. */
function* forgetSteps(d: Dialect, runId: number): Steps<void> {
  yield* exec("DELETE FROM run_rows WHERE run_id = @runId", { runId });
  yield* exec("DELETE FROM runs WHERE id = @runId", { runId });
  const renumber = d.nextIdAfterMax("runs");
  if (renumber !== null) yield* all(renumber);
}

/**
 * Runs left 'running' whose lease is not among the `live` ones (a killed process's) are marked
 * abandoned, with the final state of their postcodes as they stand (requests from their last checkpoint).
 */
export function* abandonOrphansSteps(d: Dialect, at: string, live: ReadonlySet<number>): Steps<number> {
  const running = yield* all<{ id: number; lookups: string; lease_id: number | null }>(
    `SELECT id, lookups, lease_id FROM runs WHERE state = 'running' ORDER BY id${d.lockRows}`,
  );
  const stale = running.filter((r) => r.lease_id === null || !live.has(r.lease_id));
  for (const run of stale) {
    const counts = yield* countsAsTheyStandSteps(run.id, JSON.parse(run.lookups) as Lookup[]);
    yield* exec(
      `UPDATE runs SET state = 'abandoned', ended_at = @at, input_rows = @inputRows, postcodes = @postcodes, rejects = @rejects,
         ok = @ok, not_found = @notFound, failed = @failed, pending = @pending,
         message = @message WHERE id = @id`,
      { id: run.id, at, message: ABANDONED_MESSAGE, ...counts },
    );
  }
  return stale.length;
}

/** The runs store but abandonOrphans, which needs the engine's live leases. */
export function sqlRuns(q: SqlSession, transact: Transact): Omit<RunStore, "abandonOrphans"> {
  return {
    create: (run) => transact(createRunSteps(run)),
    setInput: (runId, columns, postcodeColumn) => runSteps(q, setRunInputSteps(runId, columns, postcodeColumn)),
    finish: (runId, end) => runSteps(q, finishRunSteps(runId, end)),
    async setExit(runId, exitCode, message, state) {
      await q.exec("UPDATE runs SET exit_code = @exitCode, message = @message, state = COALESCE(@state, state) WHERE id = @runId", {
        exitCode,
        message,
        state: state ?? null,
        runId,
      });
    },
    forget: (runId) => transact(forgetSteps(q.dialect, runId)),
    async checkpoint(runId, c) {
      await q.exec("UPDATE runs SET requests = @requests, retries = @retries, throttled = @throttled WHERE id = @runId AND state = 'running'", {
        requests: c.requests,
        retries: c.retries,
        throttled: c.throttled,
        runId,
      });
    },
    finalCounts: (runId, lookups) => finalCounts(q, runId, lookups),
    read: (which) => readRun(q, which),
    facts: (runId) => readRunFacts(q, runId),
    lastSettings: () => lastRunSettings(q),
  };
}
