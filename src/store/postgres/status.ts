// What `npm run status` reads on PostgreSQL: the figures written once (sql/status.ts), read on one
// connection with expired answers hidden, and every machine's live leases.
import type pg from "pg";
import type { StatusStore } from "../store.js";
import { releaseStatusSteps, runningProgressSteps, storedFiguresSteps } from "../sql/status.js";
import { runSteps, type Steps } from "../sql/steps.js";
import { writtenBySteps } from "../sql/tool-version.js";
import { POSTGRES_DIALECT } from "./dialect.js";
import { liveLeases, newestLease, type LeaseContext } from "./leases.js";
import { hidingExpired } from "./report/expiry-views.js";
import { PG_SCHEMA_VERSION, postgresSchemaVersion } from "./schema.js";
import { postgresSession } from "./session.js";

/** The steps on one connection, expired answers hidden at `nowMs`. */
const hiding = <T>(pool: pg.Pool, nowMs: number, steps: Steps<T>): Promise<T> =>
  hidingExpired(pool, nowMs, (client) => runSteps(postgresSession(client, { inTransaction: true }), steps));

export function postgresStatus(pool: pg.Pool, ctx: LeaseContext): StatusStore {
  return {
    async database(recentRuns, nowMs) {
      const live = await liveLeases(pool, nowMs, ctx);
      const figures = await hiding(pool, nowMs, storedFiguresSteps(recentRuns, new Set(live.map((l) => l.id))));
      const newest = await newestLease(pool, ctx);
      return {
        schemaVersion: await postgresSchemaVersion(pool),
        schemaLatest: PG_SCHEMA_VERSION,
        writtenBy: await runSteps(postgresSession(pool, { inTransaction: false }), writtenBySteps(POSTGRES_DIALECT)),
        ...figures,
        lock: newest
          ? { pid: newest.lease.holder.pid, host: newest.lease.holder.host, run_id: newest.lease.runId, started_at: newest.lease.takenAt, alive: newest.alive }
          : null,
        leases: live,
      };
    },
    running: () => runSteps(postgresSession(pool, { inTransaction: false }), runningProgressSteps()),
    releases: (nowMs) => hiding(pool, nowMs, releaseStatusSteps(POSTGRES_DIALECT)),
  };
}
