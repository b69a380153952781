// What `npm run status` reads on PostgreSQL: the same figures as the SQLite engine's (sqlite/status.ts,
// release-status.ts, run-progress.ts), and every machine's live leases.
import type pg from "pg";
import { LOOKUPS, type Lookup } from "../../spec/fields.js";
import { LOOKUP_LIST } from "../../spec/lookups.js";
import type { StatusStore } from "../store.js";
import type { DatabaseStatus, LookupReleases, RunningProgress, RunSummary } from "../types.js";
import { rowOf, rowsOf, type Queryable } from "./connect.js";
import { releaseScaleColumns } from "../shared/releases.js";
import { liveLeases, newestLease, type LeaseContext } from "./leases.js";
import { countsAsTheyStand } from "../sql/run-reads.js";
import { postgresSession } from "./session.js";
import { PG_SCHEMA_VERSION, postgresSchemaVersion } from "./schema.js";
import { hidingExpired } from "./report/expiry-views.js";

/** A running run's row holds its counts only at the end: what it has stored so far instead. */
async function withCountsSoFar(pool: pg.Pool, run: RunSummary, lookups: string): Promise<RunSummary> {
  let list: Lookup[];
  try {
    list = JSON.parse(lookups) as Lookup[];
  } catch {
    return run;
  }
  const c = await countsAsTheyStand(postgresSession(pool, { inTransaction: false }), run.id, list);
  return { ...run, input_rows: c.inputRows, postcodes: c.postcodes, rejects: c.rejects, ok: c.ok, not_found: c.notFound, failed: c.failed, pending: c.pending };
}

type AnswerFigures = Pick<DatabaseStatus, "lookups" | "failures" | "postcodes" | "addresses" | "datasets">;

/** The stored answers' figures, read with the expired ones hidden (as SQLite's status does). */
async function answerFigures(q: pg.PoolClient): Promise<AnswerFigures> {
  const count = async (sql: string) => (await rowOf<{ n: number }>(q, sql))?.n ?? 0;
  const addresses = {} as Record<Lookup, number>;
  for (const l of LOOKUP_LIST) addresses[l.name] = await count(`SELECT COUNT(*) AS n FROM ${l.table}`);
  return {
    lookups: await rowsOf<DatabaseStatus["lookups"][number]>(
      q,
      `SELECT lookup, status, COUNT(*) AS postcodes, MIN(fetched_at) AS oldest, MAX(fetched_at) AS newest
         FROM lookups GROUP BY lookup, status ORDER BY lookup, status`,
    ),
    failures: await rowsOf<DatabaseStatus["failures"][number]>(
      q,
      `SELECT lookup, COALESCE(last_error, '(no error text)') AS last_error, COUNT(*) AS postcodes
         FROM lookups WHERE status = 'failed' GROUP BY 1, 2 ORDER BY postcodes DESC, lookup, last_error LIMIT 5`,
    ),
    postcodes: await count("SELECT COUNT(DISTINCT postcode) AS n FROM lookups"),
    addresses,
    datasets: await rowsOf<DatabaseStatus["datasets"][number]>(
      q,
      "SELECT dataset, COUNT(*) AS postcodes FROM lookups WHERE dataset IS NOT NULL GROUP BY dataset ORDER BY dataset",
    ),
  };
}

async function databaseStatus(pool: pg.Pool, recentRuns: number, nowMs: number, ctx: LeaseContext): Promise<DatabaseStatus> {
  const runs = await rowsOf<RunSummary & { lookups: string }>(
    pool,
    `SELECT id, started_at, ended_at, state, exit_code, simulated, input_name, input_rows, postcodes, rejects,
            ok, not_found, failed, pending, requests, retries, throttled, message, lookups
       FROM runs ORDER BY id DESC LIMIT $1`,
    [recentRuns],
  );
  const newest = await newestLease(pool, ctx);
  const answers = await hidingExpired(pool, nowMs, answerFigures);
  return {
    schemaVersion: await postgresSchemaVersion(pool),
    schemaLatest: PG_SCHEMA_VERSION,
    runs: await Promise.all(runs.map(({ lookups, ...run }) => (run.state === "running" ? withCountsSoFar(pool, run, lookups) : run))),
    ...answers,
    lock: newest
      ? { pid: newest.lease.holder.pid, host: newest.lease.holder.host, run_id: newest.lease.runId, started_at: newest.lease.takenAt, alive: newest.alive }
      : null,
    leases: await liveLeases(pool, nowMs, ctx),
  };
}

async function runningProgress(pool: pg.Pool): Promise<RunningProgress | null> {
  const run = await rowOf<{ id: number; started_at: string; lookups: string; requests: number }>(
    pool,
    "SELECT id, started_at, lookups, requests FROM runs WHERE state = 'running' ORDER BY id DESC LIMIT 1",
  );
  if (!run) return null;
  const lookups = JSON.parse(run.lookups) as string[];
  const counts = (await rowOf<{ pairs: number; toFetch: number; fetched: number }>(
    pool,
    `SELECT COUNT(*) * $2::bigint AS pairs,
            (SELECT COUNT(*) FROM run_needs WHERE run_id = $1) AS "toFetch",
            (SELECT COUNT(*) FROM run_needs n JOIN lookups l ON l.postcode = n.postcode AND l.lookup = n.lookup AND l.run_id = n.run_id
              WHERE n.run_id = $1) AS fetched
       FROM (SELECT DISTINCT postcode FROM run_rows WHERE run_id = $1 AND postcode IS NOT NULL) r`,
    [run.id, lookups.length],
  ))!;
  return { runId: run.id, startedAt: run.started_at, requests: run.requests, ...counts, reused: Math.max(0, counts.pairs - counts.toFetch) };
}

async function releaseStatus(pool: Queryable): Promise<LookupReleases[]> {
  const lastRun = (await rowOf<{ id: number | null }>(pool, "SELECT MAX(run_id) AS id FROM run_rows"))!.id;
  const out: LookupReleases[] = [];
  const scaled =
    (await rowOf(pool, "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'releases' AND column_name = 'scale'")) !== null;
  for (const lookup of LOOKUPS) {
    const list = await rowsOf<LookupReleases["releases"][number]>(
      pool,
      `SELECT r.name, r.detected_at, ${releaseScaleColumns(scaled)},
              (SELECT COUNT(*) FROM lookups l WHERE l.lookup = r.lookup AND l.release = r.name) AS answers,
              (SELECT COUNT(*) FROM answer_versions v WHERE v.lookup = r.lookup AND v.release = r.name) AS versions
         FROM releases r WHERE r.lookup = $1 ORDER BY r.id`,
      [lookup],
    );
    if (list.length === 0) continue;
    const newest = list.at(-1)?.name ?? null;
    const input =
      lastRun === null
        ? null
        : {
            runId: lastRun,
            ...(await rowOf<{ postcodes: number; onNewest: number }>(
              pool,
              `SELECT COUNT(*) AS postcodes, COUNT(*) FILTER (WHERE l.release = $1) AS "onNewest"
                 FROM (SELECT DISTINCT postcode FROM run_rows WHERE run_id = $2 AND postcode IS NOT NULL) r
                 LEFT JOIN lookups l ON l.postcode = r.postcode AND l.lookup = $3`,
              [newest, lastRun, lookup],
            ))!,
          };
    out.push({ lookup, releases: list, newest, input });
  }
  return out;
}

export function postgresStatus(pool: pg.Pool, ctx: LeaseContext): StatusStore {
  return {
    database: (recentRuns, nowMs) => databaseStatus(pool, recentRuns, nowMs, ctx),
    running: () => runningProgress(pool),
    releases: () => hidingExpired(pool, Date.now(), releaseStatus),
  };
}
