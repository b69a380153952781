// Refused input leaves nothing but a refused run: a file of garbage refused twice grows the database
// by a sliver of its size and leaves no input rows; a folder given as --in is refused before the
// database is touched.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { openStore } from "../src/store/open-store.js";
import { runIn, tempDir } from "./helpers/batch-harness.js";
import { freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";

const { skip: noPostgres } = requiresPostgres();
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function dir(): string {
  const d = tempDir("pcc-refused-input-");
  dirs.push(d);
  return d;
}

/** A file of base64 lines, as a binary pasted as text: no row holds a postcode. */
function garbage(folder: string, bytes: number): string {
  const path = join(folder, "garbage.csv");
  const text = randomBytes(Math.ceil((bytes * 3) / 4))
    .toString("base64")
    .replace(/(.{76})/g, "$1\n");
  writeFileSync(path, text);
  return path;
}

/** The SQLite database's files as they stand: the file and its write-ahead log. */
function sqliteBytes(db: string): number {
  return [db, `${db}-wal`].reduce((n, f) => n + (existsSync(f) ? statSync(f).size : 0), 0);
}

async function refuseTwice(folder: string, db: string, input: string): Promise<number[]> {
  const runs: number[] = [];
  for (let i = 0; i < 2; i++) {
    const r = await runIn(folder, { in: input, db, simulate: true }, {});
    expect(r.exitCode).toBe(1);
    expect(r.logs.join("\n")).toMatch(/none of the \d+ row\(s\) has a valid UK postcode/);
    runs.push(r.runId!);
  }
  return runs;
}

async function expectNoRows(db: string, runs: readonly number[]): Promise<void> {
  const store = await openStore(db);
  try {
    for (const id of runs) {
      expect(await store.inputRows.counts(id)).toEqual({ input: 0, invalid: 0 });
      const run = (await store.status.database(5, Date.now())).runs.find((r) => r.id === id);
      expect(run).toMatchObject({ state: "failed", exit_code: 1 });
    }
  } finally {
    await store.close();
  }
}

describe("refused input leaves nothing but a refused run", () => {
  test("SQLite: a garbage file refused twice grows the database by under 1% of its size, and run_rows holds nothing of it", async () => {
    const folder = dir();
    const db = join(folder, "coverage.sqlite");
    await (await openStore(db)).close();
    const input = garbage(folder, 4_000_000);
    const before = sqliteBytes(db);
    const runs = await refuseTwice(folder, db, input);
    const grown = sqliteBytes(db) - before;
    expect(grown, `grew by ${grown} bytes`).toBeLessThan(statSync(input).size / 100);
    await expectNoRows(db, runs);
  }, 120_000);

  test.skipIf(noPostgres)("PostgreSQL: a refused input leaves no rows", async () => {
    const folder = dir();
    const db = await freshPostgresDatabase({ schema: true });
    const runs = await refuseTwice(folder, db, garbage(folder, 1_000_000));
    await expectNoRows(db, runs);
  }, 120_000);

  test("a folder given as --in is refused before the database is touched: no database file, no run", async () => {
    const folder = dir();
    const input = join(folder, "postcodes");
    mkdirSync(input);
    const db = join(folder, "coverage.sqlite");
    const r = await runIn(folder, { in: input, db, simulate: true }, {});
    expect(r.exitCode).toBe(1);
    expect(r.runId).toBeNull();
    const last = JSON.parse(r.logs.at(-1)!) as Record<string, unknown>;
    expect(last).toMatchObject({ event: "refused", stopReason: "input" });
    expect(last.message).toMatch(/postcodes: it is a folder, not a file/);
    expect(existsSync(db)).toBe(false);
  });
});
