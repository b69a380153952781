// What `npm run status` reads: recent runs, the stored answers by lookup and status, and the lock.
// The wording is report/status-text.ts's.
import type { Db } from "./db.js";
import type { DatabaseStatus, RunSummary } from "../types.js";
import type { Lookup } from "../../spec/fields.js";
import { LOOKUP_LIST } from "../../spec/lookups.js";
import { allLeases, leaseLive, type IsAlive } from "./leases.js";
import { countsAsTheyStandSteps } from "../sql/run-reads.js";
import { runStepsNow } from "./transact.js";
import { SCHEMA_VERSION } from "./schema.js";

export type { DatabaseStatus, RunSummary } from "../types.js";

/** A running run's row holds its counts only at the end: what it has stored so far instead (its requests are checkpointed). */
function withCountsSoFar(db: Db, run: RunSummary, lookups: string): RunSummary {
  let list: Lookup[];
  try {
    list = JSON.parse(lookups) as Lookup[];
  } catch {
    return run;
  }
  const c = runStepsNow(db, countsAsTheyStandSteps(run.id, list));
  return { ...run, input_rows: c.inputRows, postcodes: c.postcodes, rejects: c.rejects, ok: c.ok, not_found: c.notFound, failed: c.failed, pending: c.pending };
}

/**
 * `here` is this host's name; `isAlive` tells whether a holder on it still runs. The lock shown is
 * the newest lease (SQLite holds one at most), live or left by a killed batch.
 */
export function databaseStatus(db: Db, recentRuns: number, nowMs: number, here: string, isAlive: IsAlive): DatabaseStatus {
  const count = (sql: string) => (db.prepare(sql).pluck().get() as number | undefined) ?? 0;
  const leases = allLeases(db);
  const newest = leases.at(-1);
  const live = leases.filter((l) => leaseLive({ ...l.holder, expires_ms: l.expiresMs }, nowMs, here, isAlive)).map(({ expiresMs: _e, ...l }) => l);
  return {
    schemaVersion: db.pragma("user_version", { simple: true }) as number,
    schemaLatest: SCHEMA_VERSION,
    runs: (
      db
        .prepare(
          `SELECT id, started_at, ended_at, state, exit_code, simulated, input_name, input_rows, postcodes, rejects,
                  ok, not_found, failed, pending, requests, retries, throttled, message, lookups
             FROM runs ORDER BY id DESC LIMIT ?`,
        )
        .all(recentRuns) as (RunSummary & { lookups: string })[]
    ).map(({ lookups, ...run }) => (run.state === "running" ? withCountsSoFar(db, run, lookups) : run)),
    lookups: db
      .prepare(
        `SELECT lookup, status, COUNT(*) AS postcodes, MIN(fetched_at) AS oldest, MAX(fetched_at) AS newest
           FROM lookups GROUP BY lookup, status ORDER BY lookup, status`,
      )
      .all() as DatabaseStatus["lookups"],
    failures: db
      .prepare(
        `SELECT lookup, COALESCE(last_error, '(no error text)') AS last_error, COUNT(*) AS postcodes
           FROM lookups WHERE status = 'failed' GROUP BY 1, 2 ORDER BY postcodes DESC, lookup, last_error LIMIT 5`,
      )
      .all() as DatabaseStatus["failures"],
    postcodes: count("SELECT COUNT(DISTINCT postcode) FROM lookups"),
    addresses: Object.fromEntries(LOOKUP_LIST.map((l) => [l.name, count(`SELECT COUNT(*) FROM ${l.table}`)])) as Record<Lookup, number>,
    datasets: db
      .prepare("SELECT dataset, COUNT(*) AS postcodes FROM lookups WHERE dataset IS NOT NULL GROUP BY dataset ORDER BY dataset")
      .all() as DatabaseStatus["datasets"],
    lock: newest
      ? {
          pid: newest.holder.pid,
          host: newest.holder.host,
          run_id: newest.runId,
          started_at: newest.takenAt,
          alive: newest.holder.host === here ? isAlive(newest.holder) : null,
        }
      : null,
    leases: live,
  };
}
