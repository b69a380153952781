// PostgreSQL's expiry: the shared deletes in one transaction. The rows become dead tuples that a
// VACUUM (autovacuum) marks reusable but does not overwrite; docs/retention.md says what that means.
import type pg from "pg";
import { expirySql } from "../sql/expiry.js";
import { inTransaction } from "./connect.js";

export function expirePostgresAnswers(pool: pg.Pool, before: string, at: string): Promise<number> {
  const sql = expirySql("$1", "$2");
  return inTransaction(pool, async (client) => {
    for (const statement of sql.deletes) await client.query(statement, statement.includes("$2") ? [before, at] : [before]);
    return (await client.query(sql.answers, [before])).rowCount ?? 0;
  });
}
