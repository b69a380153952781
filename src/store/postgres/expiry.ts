// PostgreSQL's expiry: the shared deletes in one transaction. The rows become dead tuples that a
// VACUUM (autovacuum) marks reusable but does not overwrite; docs/retention.md says what that means.
import type pg from "pg";
import { anyExpiredSql, expirySql } from "../sql/expiry.js";
import type { Expired } from "../types.js";
import { inTransaction } from "./connect.js";

export function expirePostgresAnswers(pool: pg.Pool, before: string, at: string): Promise<Expired> {
  const sql = expirySql("$1", "$2");
  return inTransaction(pool, async (client) => {
    // most nights nothing is due: one read, no row locked
    if ((await client.query(anyExpiredSql("$1"), [before])).rowCount === 0) return { answers: 0, versions: 0, erased: true };
    await client.query(sql.tombstones, [before, at]);
    for (const statement of sql.addresses) await client.query(statement, [before]);
    const versions = (await client.query(sql.versions, [before])).rowCount ?? 0;
    const answers = (await client.query(sql.answers, [before])).rowCount ?? 0;
    if (versions > 0) await client.query(sql.raiseAnswersVersion);
    // nothing to wait for: what PostgreSQL's files keep of deleted rows is docs/retention.md's
    return { answers, versions, erased: true };
  });
}
