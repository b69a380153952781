// The SQLite engine's SnapshotSource: a snapshot is one read transaction on the database, its scope
// resolved inside it, its temp tables dropped after the work (also after a failure, whose cleanup
// errors are reported, never thrown over it).
import Database from "better-sqlite3";
import { DatabaseError, type Db } from "../db.js";
import type { ReportSnapshot, ScopeRequest, SnapshotSource } from "../../snapshot.js";
import { cleanupAfter } from "../../../errors.js";
import { resolveScope } from "./scope.js";
import { SqliteReportSnapshot } from "./snapshot.js";
import { hideExpired, showExpired } from "./expiry-views.js";

export function sqliteSnapshotSource(db: Db): SnapshotSource {
  return {
    async snapshot<T>(request: ScopeRequest, work: (snapshot: ReportSnapshot) => Promise<T>, options: { onWarning?: (message: string) => void } = {}): Promise<T> {
      const ownTransaction = !db.inTransaction;
      if (ownTransaction) db.exec("BEGIN");
      let snapshot: SqliteReportSnapshot | null = null;
      let hiding = false;
      const cleanUp = (afterFailure: boolean) => {
        for (const step of [() => snapshot?.dropTemporary(), () => hiding && showExpired(db), () => ownTransaction && db.inTransaction && db.exec("COMMIT")])
          if (afterFailure) cleanupAfter(step, (m) => options.onWarning?.(m));
          else step();
      };
      let result: T;
      try {
        hiding = hideExpired(db, request.nowMs ?? Date.now());
        snapshot = new SqliteReportSnapshot(db, resolveScope(db, request));
        result = await work(snapshot);
      } catch (err) {
        cleanUp(true);
        throw err;
      }
      cleanUp(false);
      return result;
    },
  };
}

/** An SQLite failure while reading as one line naming the database (a damaged file, a vanished one). */
export function readFailure(err: unknown, path: string): unknown {
  return err instanceof Database.SqliteError ? new DatabaseError(`cannot read ${path}: ${err.message}`) : err;
}
