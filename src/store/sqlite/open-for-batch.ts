// What a batch does first: open the database, bring its schema up to date and take the lock, as
// one transaction. A second batch starting at the same moment on a new database waits for the
// first one's migration, then meets its lock, instead of running the migration a second time.
import { connect, migrate, namingPath, type Db } from "./db.js";
import { acquireLock, LockedError, type LockTaken } from "./lock.js";

export interface BatchDatabase {
  db: Db;
  lock: LockTaken;
}

/** Throws LockedError when another batch holds the lock, DatabaseError (naming the path) when the file is unusable. */
export function openForBatch(path: string, at: string): BatchDatabase {
  const db = connect(path);
  try {
    const lock = db
      .transaction(() => {
        migrate(db, path);
        return acquireLock(db, at);
      })
      .immediate();
    return { db, lock };
  } catch (err) {
    db.close();
    throw err instanceof LockedError ? err : namingPath(err, path);
  }
}
