// Every store engine the contract suite runs against: one entry each (SQLite, and PostgreSQL on a
// throwaway server, issue 21), and the whole suite runs on each.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type OpenStoreOptions } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { dropPostgresDatabase, freshPostgresDatabase, requiresPostgres } from "../helpers/postgres.js";

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

/** Stores opened on one new database at `location`, which `remove` deletes once they are closed. */
async function openedAt(location: string, options: Pick<OpenStoreOptions, "isAlive">, remove: () => Promise<void> | void): Promise<OpenedEngine> {
  const opened: Store[] = [await openStore(location, options)];
  return {
    store: opened[0]!,
    async second() {
      const s = await openStore(location, options);
      opened.push(s);
      return s;
    },
    async cleanup() {
      for (const s of opened) await s.close();
      await remove();
    },
  };
}

const sqlite: StoreEngineFactory = {
  name: "sqlite",
  exclusiveLeases: true,
  async open(options = {}) {
    const dir = mkdtempSync(join(tmpdir(), "pcc-contract-"));
    return openedAt(join(dir, "store.sqlite"), options, () => rmSync(dir, { recursive: true, force: true }));
  },
};

// A new database on the test run's own server (test/helpers/postgres.ts), dropped afterwards.
const postgres: StoreEngineFactory = {
  name: "postgres",
  exclusiveLeases: false,
  async open(options = {}) {
    const url = await freshPostgresDatabase({ schema: true });
    return openedAt(url, options, () => dropPostgresDatabase(url));
  },
};

// PostgreSQL runs wherever its package is installed (and must on CI: requiresPostgres fails there without it).
export const ENGINES: readonly StoreEngineFactory[] = [sqlite, ...(requiresPostgres().skip ? [] : [postgres])];
