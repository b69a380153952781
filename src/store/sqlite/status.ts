// What `npm run status` reads: recent runs, the stored answers by lookup and status, and the lock.
// The wording is report/status-text.ts's.
import { hostname } from "node:os";
import type { Db } from "./db.js";
import type { Lookup } from "../../spec/fields.js";
import { LOOKUP_LIST } from "../../spec/lookups.js";
import { processAlive } from "./lock.js";
import { countsAsTheyStand } from "./runs.js";

export interface RunSummary {
  id: number;
  started_at: string;
  ended_at: string | null;
  state: string;
  exit_code: number | null;
  simulated: number;
  input_name: string;
  input_rows: number;
  postcodes: number;
  rejects: number;
  ok: number;
  not_found: number;
  failed: number;
  pending: number;
  requests: number;
  retries: number;
  throttled: number;
  message: string | null;
}

export interface DatabaseStatus {
  schemaVersion: number;
  runs: RunSummary[];
  lookups: { lookup: string; status: string; postcodes: number; oldest: string; newest: string }[];
  /** the commonest last errors of failed lookups, to see at a glance why they failed */
  failures: { lookup: string; last_error: string; postcodes: number }[];
  postcodes: number;
  addresses: Record<Lookup, number>;
  datasets: { dataset: string; postcodes: number }[];
  /** alive: whether the holder still runs (null when it runs on another host and cannot be checked) */
  lock: { pid: number; host: string; run_id: number | null; started_at: string; alive: boolean | null } | null;
}

/** A running run's row holds its counts only at the end: what it has stored so far instead (its requests are checkpointed). */
function withCountsSoFar(db: Db, run: RunSummary, lookups: string): RunSummary {
  let list: Lookup[];
  try {
    list = JSON.parse(lookups) as Lookup[];
  } catch {
    return run;
  }
  const c = countsAsTheyStand(db, run.id, list);
  return { ...run, input_rows: c.inputRows, postcodes: c.postcodes, rejects: c.rejects, ok: c.ok, not_found: c.notFound, failed: c.failed, pending: c.pending };
}

/** The lock holder's process identity (see process-identity.ts); kept out of what status shows. */
function lockHolderIdentity(db: Db): string | null {
  // status opens read-only and never migrates: a database from before schema 2 has no such column
  const columns = db.prepare("SELECT name FROM pragma_table_info('batch_lock')").pluck().all() as string[];
  if (!columns.includes("process")) return null;
  return (db.prepare("SELECT process FROM batch_lock WHERE id = 1").pluck().get() as string | null | undefined) ?? null;
}

export function databaseStatus(db: Db, recentRuns: number, isAlive: (pid: number, identity: string | null) => boolean = processAlive): DatabaseStatus {
  const count = (sql: string) => (db.prepare(sql).pluck().get() as number | undefined) ?? 0;
  const lock = db.prepare("SELECT pid, host, run_id, started_at FROM batch_lock WHERE id = 1").get() as
    | Omit<NonNullable<DatabaseStatus["lock"]>, "alive">
    | undefined;
  return {
    schemaVersion: db.pragma("user_version", { simple: true }) as number,
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
    lock: lock ? { ...lock, alive: lock.host === hostname() ? isAlive(lock.pid, lockHolderIdentity(db)) : null } : null,
  };
}
