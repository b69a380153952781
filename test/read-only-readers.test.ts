// `status` and `report` for a user who may read the database and its directory but write neither
// (issue 10.8). File modes take write access away; as root the CLIs run without root's override of
// file modes (setpriv drops CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH), so they stay the checkout's
// owner and load tsx from it even from a private (0700) folder. Either way the database is only
// read: no file appears beside it and its bytes stay the same.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../src/store/sqlite/schema.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { childOutput, ROOT } from "./helpers/child-cli.js";
import { requiresTool, TOOLS } from "./helpers/requires-tool.js";
import { scriptArgs } from "./helpers/compiled-tree.js";
import { readSummaryJson } from "./helpers/summary-json.js";

const asRoot = process.getuid?.() === 0;
const SETPRIV = asRoot ? requiresTool(TOOLS.setpriv) : { skip: false };
/** root's command prefix that keeps it from writing through file modes */
const WITHOUT_OVERRIDE = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"];

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) {
    chmodSync(d, 0o755);
    for (const sub of readdirSync(d, { withFileTypes: true })) if (sub.isDirectory()) chmodSync(join(d, sub.name), 0o755);
    rmSync(d, { recursive: true, force: true });
  }
});

/** A directory the reader may enter and read (mkdtemp makes it 0700). */
function dir(): string {
  const d = tempDir("pcc-readonly-");
  chmodSync(d, 0o755);
  dirs.push(d);
  return d;
}

/** A directory the reader may write: where its reports go. */
function writableOut(): string {
  const d = dir();
  const out = join(d, "out");
  mkdirSync(out);
  return out;
}

/** Takes write access to the database and its directory away (the directory holds the database alone). */
function readOnly(dbDir: string): void {
  for (const f of readdirSync(dbDir)) chmodSync(join(dbDir, f), 0o444);
  chmodSync(dbDir, 0o555);
}

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runAsReader(cli: "status" | "report", args: string[]): Promise<Result> {
  const env: NodeJS.ProcessEnv = { NO_COLOR: "1" };
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("COVERAGE_")) env[k] = v;
  const argv = [process.execPath, ...scriptArgs(`src/cli/${cli}.ts`), ...args];
  if (asRoot) argv.unshift(...WITHOUT_OVERRIDE);
  const child = spawn(argv[0]!, argv.slice(1), { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  return childOutput(child);
}

describe.skipIf(SETPRIV.skip)("read-only readers of a database from a finished batch", () => {
  let dbDir: string;
  let dbPath: string;
  let bytes: Buffer;

  beforeAll(async () => {
    dbDir = dir();
    dbPath = join(dbDir, "coverage.sqlite");
    const work = dir();
    const input = writeCsv(work, "in.csv", ["postcode", "SW1A 2AA", "EC1A 1BB", "M1 1AE"]);
    const run = await runIn(work, { in: input, simulate: true, db: dbPath, reports: false }, {});
    expect(run.exitCode).toBe(0);
    // A batch that closed cleanly leaves the database file alone: no -wal, no -shm to read through.
    expect(readdirSync(dbDir)).toEqual(["coverage.sqlite"]);
    readOnly(dbDir);
    bytes = readFileSync(dbPath);
  });

  it("status lists the run", async () => {
    const r = await runAsReader("status", ["--db", dbPath, "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const status = JSON.parse(r.stdout) as { runs: { id: number; state: string; postcodes: number }[] };
    expect(status.runs.map((run) => [run.id, run.state, run.postcodes])).toEqual([[1, "completed", 3]]);
    expect(readdirSync(dbDir)).toEqual(["coverage.sqlite"]);
    expect(readFileSync(dbPath).equals(bytes)).toBe(true);
  });

  it("report writes the set to an --out the reader can write", async () => {
    const out = writableOut();
    const r = await runAsReader("report", ["--db", dbPath, "--out", out]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`reports written to ${out}: broadband.csv,`);
    const summary = readSummaryJson<{ runId: number | null }>(join(out, "summary.json"));
    expect(summary.runId).toBe(1);
    expect(readdirSync(dbDir)).toEqual(["coverage.sqlite"]);
    expect(readFileSync(dbPath).equals(bytes)).toBe(true);
  });
});

describe.skipIf(SETPRIV.skip)("a read-only reader while a batch has the database open", () => {
  it("status reads through the batch's -wal and -shm files, and sees its uncheckpointed writes", async () => {
    const dbDir = dir();
    const dbPath = join(dbDir, "coverage.sqlite");
    const work = dir();
    const input = writeCsv(work, "in.csv", ["postcode", "SW1A 2AA"]);
    expect((await runIn(work, { in: input, simulate: true, db: dbPath, reports: false }, {})).exitCode).toBe(0);
    // The running batch: a writer with a write in its WAL, not yet checkpointed into the file. It
    // writes before the modes are taken away (an ordinary user cannot write through them), and
    // keeps the database open.
    const writer = new Database(dbPath);
    try {
      writer.pragma("wal_autocheckpoint = 0");
      writer.prepare("UPDATE runs SET message = 'written by the running batch' WHERE id = 1").run();
      readOnly(dbDir);
      expect(readdirSync(dbDir).sort()).toEqual(["coverage.sqlite", "coverage.sqlite-shm", "coverage.sqlite-wal"]);
      const r = await runAsReader("status", ["--db", dbPath, "--json"]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect((JSON.parse(r.stdout) as { runs: { message: string | null }[] }).runs[0]!.message).toBe("written by the running batch");
    } finally {
      writer.close();
    }
  });
});

describe.skipIf(SETPRIV.skip)("a read-only reader of a database of an older schema", () => {
  it("status reads it; report says it needs write access to upgrade it", async () => {
    const dbDir = dir();
    const dbPath = join(dbDir, "coverage.sqlite");
    const db = new Database(dbPath);
    db.exec(MIGRATIONS[0]!);
    db.pragma("user_version = 1");
    db.close();
    readOnly(dbDir);

    const status = await runAsReader("status", ["--db", dbPath]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`database ${dbPath} (schema ${MIGRATIONS.length - 1} change(s) behind this program's: the next batch upgrades it)`);

    const report = await runAsReader("report", ["--db", dbPath, "--out", writableOut()]);
    expect(report.code).toBe(1);
    expect(report.stderr).toBe(
      `error: ${dbPath} has schema version 1, older than this program's ${MIGRATIONS.length}, and upgrading it needs write access to it and its directory: ` +
        "run a batch or `npm run report` once as a user who can write it\n",
    );
    expect(readdirSync(dbDir)).toEqual(["coverage.sqlite"]);
    expect(existsSync(`${dbPath}-wal`)).toBe(false);
  });
});
