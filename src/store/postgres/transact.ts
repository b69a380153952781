// PostgreSQL's write transactions for the SQL written once (src/store/sql/steps.ts): the steps run
// on one checked-out client between BEGIN and COMMIT.
import type pg from "pg";
import { runSteps, type Steps, type Transact } from "../sql/steps.js";
import { inTransaction } from "./connect.js";
import { postgresSession } from "./session.js";

export function postgresTransact(pool: pg.Pool): Transact {
  return <T>(steps: Steps<T>) => inTransaction(pool, (client) => runSteps(postgresSession(client, { inTransaction: true }), steps));
}
