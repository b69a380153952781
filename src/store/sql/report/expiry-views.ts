// A snapshot never shows an expired answer, even when no batch has deleted it yet: temporary views
// named as the answer tables (found before the tables) hide what the newest run's --retention
// expires at the reader's clock.
import { anyExpiredSql, hiddenBefore, hideExpiredSql, NEWEST_RUN_ARGS_SQL, RETURNED_AT } from "../expiry.js";
import type { SqlSession } from "../session.js";

/** Makes the views when an answer or a version is expired at `nowMs`; returns whether it did. */
export async function hideExpired(q: SqlSession, nowMs: number): Promise<boolean> {
  const args = (await q.get<{ args: string }>(NEWEST_RUN_ARGS_SQL))?.args;
  const cutoff = hiddenBefore(args, nowMs);
  if (cutoff === null) return false;
  // a reader never migrates: a schema from before returned_at ages answers by fetched_at
  const age = (await q.get(q.dialect.columnExists("lookups", RETURNED_AT))) === null ? "fetched_at" : RETURNED_AT;
  if ((await q.get(anyExpiredSql("@cutoff", age), { cutoff })) === null) return false;
  const schema = (await q.get<{ name: string }>(q.dialect.schemaSql))!.name;
  for (const statement of hideExpiredSql(`"${schema.replace(/"/g, '""')}"`, cutoff, age)) await q.exec(statement);
  return true;
}
