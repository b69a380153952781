// SQLite's expiry: the shared deletes in one transaction, then the WAL checkpointed into the main
// file and truncated. The connection runs with secure_delete on (db.ts), so the freed pages are
// zeroed: once the checkpoint is through, no file of the database (main, -wal, -journal) holds the
// expired text. Another connection's read transaction holds the checkpoint back (its snapshot
// needs the old pages): that is said (erased: false), and the caller tries again (eraseDeleted).
import { anyExpiredSql, expirySql } from "../sql/expiry.js";
import type { Expired } from "../types.js";
import type { Db } from "./db.js";

export function expireAnswers(db: Db, before: string, at: string): Expired {
  // most nights nothing is due: one read, and no write transaction (nor wait for another writer's)
  if (db.prepare(anyExpiredSql("@before")).get({ before }) === undefined) return { answers: 0, versions: 0, erased: true };
  const sql = expirySql("@before", "@at");
  const expired = db.transaction((): Omit<Expired, "erased"> => {
    db.prepare(sql.tombstones).run({ before, at });
    for (const statement of sql.addresses) db.prepare(statement).run({ before });
    const versions = db.prepare(sql.versions).run({ before }).changes;
    const answers = db.prepare(sql.answers).run({ before }).changes;
    if (versions > 0) db.prepare(sql.raiseAnswersVersion).run();
    return { answers, versions };
  })();
  return { ...expired, erased: expired.answers + expired.versions === 0 || eraseDeleted(db) };
}

/**
 * Checkpoints the WAL into the main file and truncates it, without waiting for a reader (the
 * connection's busy timeout is set aside, so the caller's clock times the wait): true once done.
 */
export function eraseDeleted(db: Db): boolean {
  const timeout = db.pragma("busy_timeout", { simple: true }) as number;
  db.pragma("busy_timeout = 0");
  try {
    const [result] = db.pragma("wal_checkpoint(TRUNCATE)") as { busy: number }[];
    return result?.busy === 0;
  } finally {
    db.pragma(`busy_timeout = ${Number(timeout)}`);
  }
}
