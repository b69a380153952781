// A snapshot never shows an expired answer, even when no batch has deleted it yet: temporary views
// named as the answer tables hide what the newest run's --retention expires at the reader's clock.
import { anyExpiredSql, EXPIRY_VIEWS, hiddenBefore, hideExpiredSql, NEWEST_RUN_ARGS_SQL } from "../../shared/expiry.js";
import type { Db } from "../db.js";

/** Makes the views when an answer is expired at `nowMs`; returns whether it did. */
export function hideExpired(db: Db, nowMs: number): boolean {
  const args = db.prepare(NEWEST_RUN_ARGS_SQL).pluck().get() as string | undefined;
  const cutoff = hiddenBefore(args, nowMs);
  if (cutoff === null || db.prepare(anyExpiredSql("?")).get(cutoff) === undefined) return false;
  for (const statement of hideExpiredSql("main", cutoff)) db.exec(statement);
  return true;
}

export function showExpired(db: Db): void {
  for (const view of EXPIRY_VIEWS) db.exec(`DROP VIEW IF EXISTS temp.${view}`);
}

/** `read` with expired answers hidden at `nowMs` (status's reads outside a snapshot). */
export function hidingExpired<T>(db: Db, nowMs: number, read: () => T): T {
  const hiding = hideExpired(db, nowMs);
  try {
    return read();
  } finally {
    if (hiding) showExpired(db);
  }
}
