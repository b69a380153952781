// SQLite's write transactions for the SQL written once (src/store/sql/steps.ts): the steps run
// synchronously inside better-sqlite3's BEGIN IMMEDIATE, as the engine's own transactions do, so
// no other statement of the process can fall between them.
import type { Steps, Transact } from "../sql/steps.js";
import type { Db } from "./db.js";
import { runStep } from "./session.js";

/** Runs the steps now, statement after statement. */
export function runStepsNow<T>(db: Db, steps: Steps<T>): T {
  let next = steps.next();
  while (!next.done) next = steps.next(runStep(db, next.value));
  return next.value;
}

export function sqliteTransact(db: Db): Transact {
  return <T>(steps: Steps<T>) => {
    try {
      return Promise.resolve(db.transaction(() => runStepsNow(db, steps)).immediate());
    } catch (err) {
      return Promise.reject(err);
    }
  };
}
