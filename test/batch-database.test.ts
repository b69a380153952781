// The batch's database at its edges (issue 10.10): a new database is migrated under the lock, so a
// second batch starting at the same moment gets the lock message, not a failed migration; a file
// that is not a database is an error naming its path; a folder is called one.
import { spawn } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/store/sqlite/db.js";
import { openStore } from "../src/store/open-store.js";
import { DatabaseError } from "../src/store/types.js";
import { SCHEMA_VERSION } from "../src/store/sqlite/schema.js";
import { runIn, tempDir, writeCsv, type HarnessRun } from "./helpers/batch-harness.js";
import { ROOT } from "./helpers/child-cli.js";
import { onWallClock } from "./helpers/scenario-clock.js";
import { scriptArgs } from "./helpers/compiled-tree.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function dir(): string {
  const d = tempDir("pcc-batchdb-");
  dirs.push(d);
  return d;
}

function errors(run: HarnessRun): string[] {
  return run.logs.map((l) => JSON.parse(l) as { level: string; message: string }).filter((l) => l.level === "error").map((l) => l.message);
}

describe("the batch's database", () => {
  it("a batch starting while another migrates a new database gets the lock message, not `table runs already exists`", async () => {
    const d = dir();
    const dbPath = join(d, "coverage.sqlite");
    const input = writeCsv(d, "in.csv", ["postcode", "SW1A 2AA"]);
    // The first batch: migrating inside an open transaction, its lock row not yet committed.
    const first = spawn(process.execPath, [...scriptArgs("test/helpers/hold-new-database.ts"), dbPath, "300"], { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] });
    try {
      await new Promise<void>((resolve, reject) => {
        first.once("error", reject);
        first.once("exit", (code) => reject(new Error(`the first batch exited early (${code})`)));
        first.stdout.setEncoding("utf8").on("data", (s: string) => {
          if (s.includes("ready")) resolve();
        });
      });
      // The second batch sees schema version 0 and waits on the first one's transaction; the
      // first's lock is on the wall clock, so the second runs on it too.
      onWallClock(dbPath, "hold-new-database.ts");
      const second = await runIn(d, { in: input, simulate: true }, {});
      expect(second.exitCode).toBe(1);
      expect(errors(second)).toHaveLength(1);
      expect(errors(second)[0]).toMatch(new RegExp(`^another batch \\(pid ${first.pid} on .*\\) is using this database; wait for it to finish or use another --db$`));
      const db = openDatabase(dbPath, { readonly: true });
      expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
      expect(db.prepare("SELECT COUNT(*) FROM runs").pluck().get()).toBe(0);
      db.close();
    } finally {
      first.stdin.end();
      first.kill();
    }
  });

  it("a --db that is not a database: exit 1, and the error names the path", async () => {
    const d = dir();
    const dbPath = join(d, "coverage.sqlite");
    writeFileSync(dbPath, "site_id,postcode\n1,SW1A 2AA\n");
    const run = await runIn(d, { in: writeCsv(d, "in.csv", ["postcode", "SW1A 2AA"]), simulate: true }, {});
    expect(run.exitCode).toBe(1);
    expect(errors(run)).toEqual([`database ${dbPath}: file is not a database`]);
  });

  it("a --db that is a folder, or a path ending in /: one line saying so, naming a file to give, for the batch and the readers", async () => {
    const d = dir();
    const run = await runIn(d, { in: writeCsv(d, "in.csv", ["postcode", "SW1A 2AA"]), db: `${d}/`, simulate: true }, {});
    expect(run.exitCode).toBe(1);
    expect(errors(run)).toEqual([`--db ${d}/ is a folder, not a file; give a file path such as ${join(d, "coverage.sqlite")}`]);
    for (const options of [{ readonly: true }, { readonly: true, upgrade: true }])
      await expect(openStore(d, options)).rejects.toThrow(new DatabaseError(`--db ${d} is a folder, not a file; give a file path such as ${join(d, "coverage.sqlite")}`));
    // not there yet: a writer would have made a file of the folder's name
    const missing = join(d, "reports") + "/";
    await expect(openStore(missing)).rejects.toThrow(`--db ${missing} is a folder, not a file`);
    expect(existsSync(join(d, "reports"))).toBe(false);
  });
});
