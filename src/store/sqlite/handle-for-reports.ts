// Until the reports take a SnapshotSource (issue 20, report side), they read the SQLite handle:
// this is the one place outside the store that gets it, so the lead swaps one call at merge.
import type { Store } from "../store.js";
import type { Db } from "./db.js";
import { SqliteStore } from "./sqlite-store.js";

/** The handle the reports read, until the reports take a SnapshotSource (issue 20, report side). */
export function sqliteHandleForReports(store: Store): Db {
  if (!(store instanceof SqliteStore)) throw new Error(`the reports read SQLite only until they take a snapshot; ${store.location} is ${store.engine}`);
  return store.db;
}
