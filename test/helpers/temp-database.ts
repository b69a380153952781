// A fresh migrated SQLite store with the default providers' columns for each test, removed after
// it: `store` for what goes through the store's interface, `db` (its handle) for the SQLite
// implementation's own tests and for reading what it wrote.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { DEFAULT_PROVIDERS } from "../../src/contract/fields.js";
import { ensureProviderColumns, type Db } from "../../src/store/sqlite/db.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/sqlite-store.js";

/** Call at the top of a test file; the returned object's `db`, `store` and `dir` are set before each test. */
export function useTempDatabase(prefix: string): { db: Db; store: SqliteStore; dir: string } {
  const current = {} as { db: Db; store: SqliteStore; dir: string };
  beforeEach(() => {
    current.dir = mkdtempSync(join(tmpdir(), prefix));
    current.store = openSqliteStore(join(current.dir, "t.sqlite"));
    current.db = current.store.db;
    ensureProviderColumns(current.db, DEFAULT_PROVIDERS);
  });
  afterEach(() => {
    current.db.close();
    rmSync(current.dir, { recursive: true, force: true });
  });
  return current;
}
