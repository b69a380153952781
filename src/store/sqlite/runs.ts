// The runs table: one row per batch, with its arguments (never keys), counts and exit code.
import type { Lookup } from "../../spec/fields.js";
import { finalCounts } from "./counts.js";
import type { Db } from "./db.js";
import type { NewRun, RunCounts, RunEnd, RunFacts, RunInfo, RunState } from "../types.js";

export type { NewRun, RunCounts, RunFacts, RunInfo, RunState } from "../types.js";
import { runInfoOf, type RunInfoRow } from "../shared/runs.js";

/** A new run in state 'running', tied to its lease (the lease names its run, for status) in one transaction. */
export function createRun(db: Db, run: NewRun): number {
  return db.transaction(() => {
    const info = db
      .prepare(
        `INSERT INTO runs (started_at, state, simulated, input_name, input_columns, postcode_column, args, lookups, providers, lease_id)
         VALUES (?, 'running', ?, ?, '[]', '', ?, ?, ?, ?)`,
      )
      .run(
        run.startedAt,
        run.simulated ? 1 : 0,
        run.inputName,
        JSON.stringify(run.args),
        JSON.stringify(run.lookups),
        JSON.stringify(run.providers),
        run.leaseId ?? null,
      );
    const id = Number(info.lastInsertRowid);
    if (run.leaseId != null) db.prepare("UPDATE leases SET run_id = ? WHERE id = ?").run(id, run.leaseId);
    return id;
  })();
}

export function setRunInput(db: Db, runId: number, columns: readonly string[], postcodeColumn: string): void {
  db.prepare("UPDATE runs SET input_columns = ?, postcode_column = ? WHERE id = ?").run(
    JSON.stringify(columns),
    postcodeColumn,
    runId,
  );
}

export function finishRun(db: Db, runId: number, end: RunEnd): void {
  const c = end.counts;
  db.prepare(
    `UPDATE runs SET ended_at = ?, state = ?, exit_code = ?, message = ?, input_rows = ?, postcodes = ?, rejects = ?,
       ok = ?, not_found = ?, failed = ?, pending = ?, requests = ?, retries = ?, throttled = ? WHERE id = ?`,
  ).run(
    end.endedAt,
    end.state,
    end.exitCode,
    end.message,
    c.inputRows,
    c.postcodes,
    c.rejects,
    c.ok,
    c.notFound,
    c.failed,
    c.pending,
    c.requests,
    c.retries,
    c.throttled,
    runId,
  );
}

/** The exit a finished run really ended with, when a later stage (the reports) changed it. */
export function setRunExit(db: Db, runId: number, exitCode: number, message: string | null, state?: RunState): void {
  db.prepare("UPDATE runs SET exit_code = ?, message = ?, state = COALESCE(?, state) WHERE id = ?").run(exitCode, message, state ?? null, runId);
}

/**
 * Removes a run that was refused for its options before it fetched anything (its rows and its
 * row), so that the next run takes its number: a configuration mistake leaves no run behind.
 */
export function forgetRun(db: Db, runId: number): void {
  db.transaction(() => {
    db.prepare("DELETE FROM run_rows WHERE run_id = ?").run(runId);
    db.prepare("DELETE FROM runs WHERE id = ?").run(runId);
  })();
}

/** Requests so far, written every few seconds: a killed run's row still says what it spent. */
export function checkpointRun(db: Db, runId: number, c: Pick<RunCounts, "requests" | "retries" | "throttled">): void {
  db.prepare("UPDATE runs SET requests = ?, retries = ?, throttled = ? WHERE id = ? AND state = 'running'").run(
    c.requests,
    c.retries,
    c.throttled,
    runId,
  );
}

/**
 * Runs left 'running' whose lease is no longer live (a killed process's) are marked abandoned,
 * with the final state of their postcodes as they stand (request counts from their last checkpoint).
 */
export function abandonOrphans(db: Db, at: string, live: ReadonlySet<number>): number {
  const stale = (db.prepare("SELECT id, lookups, lease_id FROM runs WHERE state = 'running'").all() as { id: number; lookups: string; lease_id: number | null }[]).filter(
    (r) => r.lease_id === null || !live.has(r.lease_id),
  );
  const mark = db.prepare(
    `UPDATE runs SET state = 'abandoned', ended_at = @at, input_rows = @inputRows, postcodes = @postcodes, rejects = @rejects,
       ok = @ok, not_found = @notFound, failed = @failed, pending = @pending,
       message = 'the process ended without finishing the run (killed?)' WHERE id = @id`,
  );
  db.transaction(() => {
    for (const run of stale) mark.run({ id: run.id, at, ...countsAsTheyStand(db, run.id, JSON.parse(run.lookups) as Lookup[]) });
  }).immediate();
  return stale.length;
}

/** A run's input and outcome counts from what it has stored so far: for a run that has not finished (or never will). */
export function countsAsTheyStand(db: Db, runId: number, lookups: readonly Lookup[]): Omit<RunCounts, "requests" | "retries" | "throttled"> {
  const input = db
    .prepare(`SELECT COUNT(*) AS inputRows, COUNT(DISTINCT postcode) AS postcodes, COUNT(reason) AS rejects FROM run_rows WHERE run_id = ?`)
    .get(runId) as { inputRows: number; postcodes: number; rejects: number };
  return { ...input, ...finalCounts(db, runId, lookups) };
}

/**
 * The run with this id, or the last run that read its input (a run that failed on its input or
 * configuration has no rows to report); null when there is no such run. Throws DatabaseError when
 * its lists are unreadable.
 */
export function readRun(db: Db, which: number | "last"): RunInfo | null {
  const select = "SELECT id, state, simulated, input_columns, lookups, providers FROM runs";
  const row = (
    which === "last"
      ? db.prepare(`${select} WHERE state <> 'failed' OR input_rows > 0 ORDER BY id DESC LIMIT 1`).get()
      : db.prepare(`${select} WHERE id = ?`).get(which)
  ) as
    | RunInfoRow
    | undefined;
  return row ? runInfoOf(row) : null;
}

/** One option the run recorded (runs.args), undefined when it recorded none or the row is unreadable. */
export function runArg(db: Db, runId: number, name: string): unknown {
  const args = db.prepare("SELECT args FROM runs WHERE id = ?").pluck().get(runId) as string | undefined;
  try {
    return args === undefined ? undefined : (JSON.parse(args) as Record<string, unknown>)[name];
  } catch {
    return undefined;
  }
}

export function readRunFacts(db: Db, runId: number): RunFacts | null {
  const row = db
    .prepare("SELECT id, state, started_at AS startedAt, ended_at AS endedAt, requests, retries, throttled, message FROM runs WHERE id = ?")
    .get(runId) as RunFacts | undefined;
  return row ?? null;
}

/** The lowest and highest run id; null when no run is stored. */
export function runIdRange(db: Db): { min: number; max: number } | null {
  const range = db.prepare("SELECT MIN(id) AS min, MAX(id) AS max FROM runs").get() as { min: number | null; max: number | null };
  return range.min === null || range.max === null ? null : { min: range.min, max: range.max };
}
