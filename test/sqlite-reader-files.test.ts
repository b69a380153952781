// A clean night leaves the database file alone beside its reports: no -wal, no -shm. A read-only
// reader (the metrics file's quota figures, status, report) makes both to read a WAL database and
// cannot remove them itself; its close has SQLite remove them when no one else has the file open.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../src/store/open-store.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
let dbDir: string;
let dbPath: string;
const beside = () => readdirSync(dbDir).filter((f) => f.startsWith("coverage.sqlite")).sort();

beforeAll(async () => {
  dbDir = tempDir("pcc-reader-files-");
  dirs.push(dbDir);
  dbPath = join(dbDir, "coverage.sqlite");
  const input = writeCsv(dbDir, "in.csv", ["postcode", "SW1A 2AA", "EC1A 1BB"]);
  expect((await runIn(dbDir, { in: input, simulate: true, db: dbPath, reports: false }, {})).exitCode).toBe(0);
  expect(beside()).toEqual(["coverage.sqlite"]);
});

describe("a read-only reader of a SQLite database", () => {
  it("leaves no -wal or -shm beside it once closed", async () => {
    const store = await openStore(dbPath, { readonly: true });
    await store.status.database(5, Date.now());
    expect(beside()).toEqual(["coverage.sqlite", "coverage.sqlite-shm", "coverage.sqlite-wal"]);
    await store.close();
    // on main both stayed: the metrics file's quota figures left them after every night
    expect(beside()).toEqual(["coverage.sqlite"]);
  });

  it("leaves them to a writer that has the database open, whose own close removes them", async () => {
    const store = await openStore(dbPath, { readonly: true });
    await store.status.database(5, Date.now());
    const writer = new Database(dbPath);
    writer.prepare("SELECT count(*) FROM sqlite_master").get();
    await store.close();
    expect(beside()).toEqual(["coverage.sqlite", "coverage.sqlite-shm", "coverage.sqlite-wal"]);
    writer.close();
    expect(beside()).toEqual(["coverage.sqlite"]);
  });
});
