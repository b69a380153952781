// The runs table on PostgreSQL: the SQL written once (sql/runs.ts), with the live leases judged in
// the transaction that marks the abandoned runs (their rows locked).
import type pg from "pg";
import type { RunStore } from "../store.js";
import { abandonOrphansSteps, sqlRuns } from "../sql/runs.js";
import { runSteps } from "../sql/steps.js";
import { inTransaction } from "./connect.js";
import { POSTGRES_DIALECT } from "./dialect.js";
import { liveLeaseIds, type LeaseContext } from "./leases.js";
import { postgresSession } from "./session.js";
import { postgresTransact } from "./transact.js";

export function postgresRuns(pool: pg.Pool, ctx: LeaseContext): RunStore {
  return {
    ...sqlRuns(postgresSession(pool, { inTransaction: false }), postgresTransact(pool)),
    abandonOrphans: (at, nowMs) =>
      inTransaction(pool, async (client) => {
        const live = new Set(await liveLeaseIds(client, nowMs, ctx));
        return runSteps(postgresSession(client, { inTransaction: true }), abandonOrphansSteps(POSTGRES_DIALECT, at, live));
      }),
  };
}
