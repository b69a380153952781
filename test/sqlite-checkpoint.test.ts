// A writer's connection checkpoints its WAL every WAL_CHECKPOINT_PAGES pages, not SQLite's 1,000: a
// batch's many small commits then copy each page once per 40 MiB of WAL rather than once per 4 MiB.
// Seen through the WAL file itself: it is reused from its start after each checkpoint, so its size
// stops at about the checkpoint's size.
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase, WAL_CHECKPOINT_PAGES } from "../src/store/sqlite/db.js";
import { tempDir } from "./helpers/batch-harness.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const PAGE = 4096;
const COMMITS = 1_500;

/** 1,500 commits of one page-sized row each, on `db`; returns the WAL file's size in pages. */
function walPagesAfterCommits(db: Database.Database, path: string): number {
  db.exec("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v BLOB)");
  const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
  const row = Buffer.alloc(PAGE - 100, 1);
  for (let i = 0; i < COMMITS; i++) insert.run(row);
  return statSync(`${path}-wal`).size / PAGE;
}

describe("a SQLite writer's checkpoints", () => {
  it("come every WAL_CHECKPOINT_PAGES pages of WAL, where SQLite's own default is 1,000", () => {
    const dir = tempDir("pcc-checkpoint-");
    dirs.push(dir);
    const ours = join(dir, "ours.sqlite");
    const db = openDatabase(ours);
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(WAL_CHECKPOINT_PAGES);
    const oursPages = walPagesAfterCommits(db, ours);
    db.close();

    const plain = join(dir, "plain.sqlite");
    const control = new Database(plain);
    control.pragma("journal_mode = WAL");
    const plainPages = walPagesAfterCommits(control, plain);
    control.close();

    // a page (and more) a commit, never checkpointed: the WAL holds them all
    expect(oursPages).toBeGreaterThan(COMMITS);
    // the default checkpointed at 1,000 pages and started the WAL again from its start
    expect(plainPages).toBeLessThan(1_100);
  });

  it("leave nothing behind on close: every answer is in the database file", () => {
    const dir = tempDir("pcc-checkpoint-");
    dirs.push(dir);
    const path = join(dir, "c.sqlite");
    const db = openDatabase(path);
    walPagesAfterCommits(db, path);
    db.close();
    const reader = new Database(path, { readonly: true });
    expect(reader.prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: COMMITS });
    reader.close();
  });
});
