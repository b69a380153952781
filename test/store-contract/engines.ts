// Every store engine the contract suite runs against: one entry each. A second engine (issue 21,
// PostgreSQL) adds one line here, and the whole suite runs on it too.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type OpenStoreOptions } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";

export interface OpenedEngine {
  store: Store;
  /** another store on the same database (a second process or machine would hold one) */
  second(): Promise<Store>;
  cleanup(): Promise<void>;
}

export interface StoreEngineFactory {
  name: string;
  /** one live lease at a time (SQLite: one batch per database) */
  exclusiveLeases: boolean;
  open(options?: Pick<OpenStoreOptions, "isAlive">): Promise<OpenedEngine>;
}

const sqlite: StoreEngineFactory = {
  name: "sqlite",
  exclusiveLeases: true,
  async open(options = {}) {
    const dir = mkdtempSync(join(tmpdir(), "pcc-contract-"));
    const path = join(dir, "store.sqlite");
    const opened: Store[] = [await openStore(path, options)];
    return {
      store: opened[0]!,
      async second() {
        const s = await openStore(path, options);
        opened.push(s);
        return s;
      },
      async cleanup() {
        for (const s of opened) await s.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

export const ENGINES: readonly StoreEngineFactory[] = [sqlite];
