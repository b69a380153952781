// Whether the database holds answers of the other kind than a run's (simulated or real): see ../data-kind.ts.
import type { Db } from "./db.js";

/** Whether the database holds an answer of the other kind than this run's. */
export function answersOfOtherKind(db: Db, simulated: boolean): boolean {
  return db.prepare("SELECT 1 FROM lookups WHERE simulated <> ? LIMIT 1").get(simulated ? 1 : 0) !== undefined;
}
