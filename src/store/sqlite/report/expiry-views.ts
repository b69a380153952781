// Expired answers hidden on SQLite: the snapshot makes the views (src/store/sql/report/expiry-views.ts)
// and source.ts drops them after; status's reads, which are synchronous, make and drop them here.
import { anyExpiredSql, EXPIRY_VIEWS, hiddenBefore, hideExpiredSql, NEWEST_RUN_ARGS_SQL, RETURNED_AT } from "../../sql/expiry.js";
import type { Db } from "../db.js";
import { SQLITE_DIALECT } from "../dialect.js";

export function showExpired(db: Db): void {
  for (const view of EXPIRY_VIEWS) db.exec(`DROP VIEW IF EXISTS temp.${view}`);
}

/** `read` with expired answers hidden at `nowMs` (status's reads outside a snapshot). */
export function hidingExpired<T>(db: Db, nowMs: number, read: () => T): T {
  const cutoff = hiddenBefore(db.prepare(NEWEST_RUN_ARGS_SQL).pluck().get() as string | undefined, nowMs);
  // status never migrates: a schema from before returned_at ages answers by fetched_at
  const age = db.prepare(SQLITE_DIALECT.columnExists("lookups", RETURNED_AT)).get() === undefined ? "fetched_at" : RETURNED_AT;
  const hiding = cutoff !== null && db.prepare(anyExpiredSql("@cutoff", age)).get({ cutoff }) !== undefined;
  if (hiding) for (const statement of hideExpiredSql("main", cutoff, age)) db.exec(statement);
  try {
    return read();
  } finally {
    if (hiding) showExpired(db);
  }
}
