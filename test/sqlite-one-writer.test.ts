// One writer per SQLite file however it is named: SQLite's locks and WAL go with the name, so a
// second hard link to the file would let two batches write it at once. Such a file is refused.
import { linkSync } from "node:fs";
import Database from "better-sqlite3";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { openStore } from "../src/store/open-store.js";
import { DatabaseError } from "../src/store/types.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";

describe("a SQLite database with a second hard link", () => {
  test("is refused by a writer with one line naming it and the cause; a reader still reads it", async () => {
    const dir = tempDir();
    const first = join(dir, "a.sqlite");
    (await openStore(first)).close();
    const other = join(dir, "hard.sqlite");
    linkSync(first, other);
    for (const name of [first, other]) {
      const err = await openStore(name).then(
        (s) => (s.close(), null),
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DatabaseError);
      expect((err as Error).message).toMatch(new RegExp(`database ${name.replace(/[.\\]/g, "\\$&")} has 2 hard links`));
    }
    const reader = await openStore(other, { readonly: true });
    await reader.close();
  });

  test("a batch on either name is refused before any run starts", async () => {
    const dir = tempDir();
    const db = join(dir, "c.sqlite");
    (await openStore(db)).close();
    linkSync(db, join(dir, "hard.sqlite"));
    const input = writeCsv(dir, "in.csv", ["postcode", "SW1A 1AA"]);
    const r = await runIn(dir, { in: input, db: join(dir, "hard.sqlite"), simulate: true, reports: false }, {});
    expect(r.exitCode).toBe(1);
    expect(r.runId).toBeNull();
    const errors = r.logs.map((l) => JSON.parse(l) as { level: string; message: string; stopReason?: string }).filter((l) => l.level === "error");
    expect(errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/hard\.sqlite has 2 hard links/), stopReason: "database" })]);
  });
});

describe("the retention pass at a batch's start", () => {
  test("with nothing due takes no write lock, so it does not wait on another writer", async () => {
    const dir = tempDir();
    const path = join(dir, "c.sqlite");
    const store = await openStore(path);
    const other = new Database(path);
    try {
      other.exec("BEGIN IMMEDIATE");
      expect(await store.answers.expire("2026-01-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z")).toEqual({ answers: 0, versions: 0, erased: true });
    } finally {
      if (other.inTransaction) other.exec("ROLLBACK");
      other.close();
      await store.close();
    }
  });
});
