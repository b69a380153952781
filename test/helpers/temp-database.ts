// A fresh migrated database with the default providers' columns for each test, removed after it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { DEFAULT_PROVIDERS } from "../../src/spec/fields.js";
import { ensureProviderColumns, openDatabase, type Db } from "../../src/store/sqlite/db.js";

/** Call at the top of a test file; the returned object's `db` and `dir` are set before each test. */
export function useTempDatabase(prefix: string): { db: Db; dir: string } {
  const current = {} as { db: Db; dir: string };
  beforeEach(() => {
    current.dir = mkdtempSync(join(tmpdir(), prefix));
    current.db = openDatabase(join(current.dir, "t.sqlite"));
    ensureProviderColumns(current.db, DEFAULT_PROVIDERS);
  });
  afterEach(() => {
    current.db.close();
    rmSync(current.dir, { recursive: true, force: true });
  });
  return current;
}
