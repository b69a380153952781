// SQLite's expiry: the shared deletes in one transaction, then the WAL checkpointed into the main
// file and truncated. The connection runs with secure_delete on (db.ts), so the freed pages are
// zeroed: once this returns, no file of the database (main, -wal, -journal) holds the expired text.
import { expirySql } from "../sql/expiry.js";
import type { Db } from "./db.js";

export function expireAnswers(db: Db, before: string, at: string): number {
  const sql = expirySql("@before", "@at");
  const deleted = db.transaction(() => {
    for (const statement of sql.deletes) db.prepare(statement).run(statement.includes("@at") ? { before, at } : { before });
    return db.prepare(sql.answers).run({ before }).changes;
  })();
  if (deleted > 0) db.pragma("wal_checkpoint(TRUNCATE)");
  return deleted;
}
