// A database holds simulated answers (--simulate, npm run demo) or real ones, never both: the
// quota ledger, the plan and the reports of the one must not count the other's.
import type { Db } from "./db.js";

/** Whether the database holds an answer of the other kind than this run's. */
export function answersOfOtherKind(db: Db, simulated: boolean): boolean {
  return db.prepare("SELECT 1 FROM lookups WHERE simulated <> ? LIMIT 1").get(simulated ? 1 : 0) !== undefined;
}

/** The one line that refuses a run against a database of the other kind. */
export function otherKindMessage(path: string, simulated: boolean): string {
  return simulated
    ? `${path} holds answers from the real API; a simulated run (--simulate) must not mix its made-up answers with them: give it another --db (npm run demo uses demo/coverage.sqlite)`
    : `${path} holds simulated answers (--simulate, npm run demo); a real run must not mix with them: give it another --db, or delete ${path} if those answers are no longer wanted`;
}
