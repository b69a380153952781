// SQLite's expiry: the shared deletes in one transaction, then the WAL checkpointed into the main
// file and truncated. The connection runs with secure_delete on (db.ts), so the freed pages are
// zeroed: once this returns, no file of the database (main, -wal, -journal) holds the expired text.
import { anyExpiredSql, expirySql } from "../sql/expiry.js";
import type { Expired } from "../types.js";
import type { Db } from "./db.js";

export function expireAnswers(db: Db, before: string, at: string): Expired {
  // most nights nothing is due: one read, and no write transaction (nor wait for another writer's)
  if (db.prepare(anyExpiredSql("@before")).get({ before }) === undefined) return { answers: 0, versions: 0 };
  const sql = expirySql("@before", "@at");
  const expired = db.transaction((): Expired => {
    db.prepare(sql.tombstones).run({ before, at });
    for (const statement of sql.addresses) db.prepare(statement).run({ before });
    const versions = db.prepare(sql.versions).run({ before }).changes;
    const answers = db.prepare(sql.answers).run({ before }).changes;
    if (versions > 0) db.prepare(sql.raiseAnswersVersion).run();
    return { answers, versions };
  })();
  if (expired.answers + expired.versions > 0) db.pragma("wal_checkpoint(TRUNCATE)");
  return expired;
}
