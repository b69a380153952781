// A SQLite store in a temporary folder, ready for mobile answers of the default providers: a run to
// write them in, a writer, and a way to change the file behind the store's back (what an older
// program, or a damaged row, would have left).
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_PROVIDERS } from "../../src/contract/fields.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";

export interface MobileStore {
  store: Store;
  runId: number;
  /** a statement run on the file through a connection of its own */
  sql(statement: string): void;
  close(): Promise<void>;
}

export async function openMobileStore(prefix: string, startedAt: string): Promise<MobileStore> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const path = join(dir, "c.sqlite");
  const store = await openStore(path);
  await store.answers.prepareProviders(DEFAULT_PROVIDERS);
  const runId = await store.runs.create({ startedAt, simulated: false, inputName: "in.csv", args: {}, lookups: ["mobile"], providers: [...DEFAULT_PROVIDERS], leaseId: null });
  return {
    store,
    runId,
    sql(statement) {
      const db = new Database(path);
      db.exec(statement);
      db.close();
    },
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
