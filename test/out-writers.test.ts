// Issue 19.2 and 19.6: one writer per output folder (a lock file that also holds across hosts), a
// set trusted only when every file is the one its fingerprint was written with, and what a killed
// writer leaves (staging, a half-done swap, an export's moved-aside table) cleared by the next one.
import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generatePostcodes, startSimulator } from "../src/simulator/index.js";
import { openStore } from "../src/store/open-store.js";
import { writeReports } from "../src/report/index.js";
import { acquireOutLock, isStale, OUT_LOCK_FILE, OutLockedError, type LockOwner } from "../src/outputs/out-lock.js";
import { clearDebris, debrisPrefix, parseDebrisName } from "../src/outputs/out-debris.js";
import { asNextWriter, exportTree, exportProblems, reportSetProblems } from "../soak/whole-set.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { scriptArgs } from "./helpers/compiled-tree.js";

const KEY = "Hq3-vN8w-Xp2k-Lm5-Zr7";
const SEED = 5;
const env = { COVERAGE_API_KEY: KEY };
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A database with one finished batch and its report set in d/out. */
async function stored() {
  const d = tempDir("pcc-writers-");
  dirs.push(d);
  const s = await startSimulator({ port: 0, seed: SEED, key: KEY });
  try {
    const input = writeCsv(d, "in.csv", ["postcode", ...generatePostcodes(SEED, 8)]);
    const r = await runIn(d, { in: input, baseUrl: s.url }, env);
    expect(r.exitCode).toBe(0);
    return { d, out: join(d, "out"), db: join(d, "coverage.sqlite"), input, url: s.url, close: () => s.close() };
  } catch (err) {
    await s.close();
    throw err;
  }
}

const owner = (o: Partial<LockOwner>): LockOwner => ({
  host: "here",
  pid: 4242,
  identity: null,
  command: "batch",
  startedAt: "2026-11-23T00:00:00.000Z",
  expiresAt: "2026-11-23T00:02:00.000Z",
  ...o,
});

describe("the --out lock", () => {
  it("is stale only when expired, or on this host with its process gone", () => {
    const at = Date.parse("2026-11-23T00:01:00.000Z");
    const alive = () => true;
    const dead = () => false;
    expect(isStale(owner({}), at, "here", alive)).toBe(false);
    expect(isStale(owner({}), at, "here", dead)).toBe(true);
    // another host's process cannot be seen: only its expiry counts
    expect(isStale(owner({ host: "there" }), at, "here", dead)).toBe(false);
    expect(isStale(owner({ host: "there" }), Date.parse("2026-11-23T00:02:00.001Z"), "here", alive)).toBe(true);
  });

  it("refuses a second writer naming the first, and lets the next one in after release", () => {
    const d = tempDir("pcc-lock-");
    dirs.push(d);
    const first = acquireOutLock(d, { command: "batch" });
    expect(() => acquireOutLock(d, { command: "report" })).toThrow(OutLockedError);
    expect(() => acquireOutLock(d, { command: "report" })).toThrow(new RegExp(`is being written by another process \\(batch pid ${process.pid} on `));
    first.release();
    expect(existsSync(join(d, OUT_LOCK_FILE))).toBe(false);
    acquireOutLock(d, { command: "report" }).release();
  });

  it("takes over another host's lock once it expired, and a dead local process's at once; never a live one's", () => {
    const d = tempDir("pcc-lock-");
    dirs.push(d);
    const path = join(d, OUT_LOCK_FILE);
    const t = Date.parse("2026-11-23T00:01:00.000Z");
    writeFileSync(path, JSON.stringify(owner({ host: "other-host" })));
    expect(() => acquireOutLock(d, { command: "report", now: () => t, host: "here" })).toThrow(/report|batch pid 4242 on other-host/);
    const later = acquireOutLock(d, { command: "report", now: () => t + 60_001, host: "here" });
    expect(JSON.parse(readFileSync(path, "utf8"))).toMatchObject({ pid: process.pid, host: "here", command: "report" });
    later.release();
    writeFileSync(path, JSON.stringify(owner({ host: "here" })));
    expect(() => acquireOutLock(d, { command: "report", now: () => t, host: "here", isAlive: () => true })).toThrow(OutLockedError);
    acquireOutLock(d, { command: "report", now: () => t, host: "here", isAlive: () => false }).release();
  });

  it("is renewed while held: its expiry moves on", () => {
    const d = tempDir("pcc-lock-");
    dirs.push(d);
    let t = 1_000_000;
    let renew: (() => void) | undefined;
    let every = 0;
    let stopped = false;
    const schedule = (fn: () => void, ms: number) => {
      renew = fn;
      every = ms;
      return () => (stopped = true);
    };
    const lock = acquireOutLock(d, { command: "batch", now: () => t, ttlMs: 60_000, schedule });
    const expiry = () => (JSON.parse(readFileSync(join(d, OUT_LOCK_FILE), "utf8")) as LockOwner).expiresAt;
    expect(expiry()).toBe(new Date(1_060_000).toISOString());
    expect(every).toBe(15_000); // a quarter of the TTL
    t += 30_000;
    renew!();
    expect(expiry()).toBe(new Date(t + 60_000).toISOString());
    lock.release();
    expect(stopped).toBe(true);
  });

  it("makes npm run report's writer and a batch refuse an --out another live writer holds, leaving its set alone", async () => {
    const { d, out, db: dbPath, input, url, close } = await stored();
    try {
      const before = readdirSync(out).map((f) => [f, readFileSync(join(out, f), "utf8")]);
      const other = acquireOutLock(out, { command: "report", isAlive: () => true });
      const db = await openStore(dbPath, { readonly: true });
      try {
        await expect(writeReports(db, { outDir: out })).rejects.toThrow(OutLockedError);
      } finally {
        await db.close();
      }
      const r = await runIn(d, { in: input, baseUrl: url, refresh: true }, env);
      expect(r.exitCode).toBe(1);
      expect(r.logs.some((l) => l.includes(`${out} is being written by another process (report pid ${process.pid}`))).toBe(true);
      other.release();
      expect(readdirSync(out).map((f) => [f, readFileSync(join(out, f), "utf8")])).toEqual(before);
    } finally {
      await close();
    }
  });
});

describe("the set's fingerprint", () => {
  it("is not trusted when a file is not the one it was written with, even with the same bytes", async () => {
    const { d, out, input, url, close } = await stored();
    try {
      // another writer's copy of one file: same name, same content, not this set's file
      copyFileSync(join(out, "mobile.csv"), join(d, "mobile.csv"));
      renameSync(join(d, "mobile.csv"), join(out, "mobile.csv"));
      expect(reportSetProblems(out)).toEqual(["mobile.csv is not the file its set's .fingerprint was written with"]);
      const r = await runIn(d, { in: input, baseUrl: url }, env);
      expect(r.exitCode).toBe(0);
      expect(r.logs.some((l) => l.includes("reports are current"))).toBe(false);
      expect(r.logs.some((l) => l.includes(`reports written to ${out}`))).toBe(true);
      expect(reportSetProblems(out)).toEqual([]);
    } finally {
      await close();
    }
  });
});

describe("what a killed writer leaves", () => {
  it("names its working directories by host and pid, so that a live writer's is told from a dead one's", () => {
    expect(parseDebrisName(`${debrisPrefix("staging", "box-1", 77)}aB3dE9`)).toEqual({
      name: ".staging-box-1-77-aB3dE9",
      kind: "staging",
      host: "box-1",
      pid: 77,
    });
    expect(parseDebrisName("report.html")).toBeNull();
  });

  it("is cleared by the next writer: staging removed, a half-done swap rolled back, a live writer's left alone", async () => {
    const { out, db: dbPath, close } = await stored();
    await close();
    const before = new Map(readdirSync(out).map((f) => [f, readFileSync(join(out, f))]));
    // a writer killed between moving summary.json aside and moving the new one in
    const dead = 2 ** 22 + 12345;
    const prefix = (kind: "staging" | "previous") => join(out, `${debrisPrefix(kind, undefined, dead)}Zz0000`);
    const staging = prefix("staging");
    const previous = prefix("previous");
    mkdirSync(staging);
    mkdirSync(previous);
    writeFileSync(join(staging, "summary.json"), "new, not moved in");
    writeFileSync(join(previous, ".swap.json"), JSON.stringify({ staging: staging.split("/").pop(), names: ["broadband.csv", "summary.json"] }));
    renameSync(join(out, "broadband.csv"), join(previous, "broadband.csv"));
    writeFileSync(join(out, "broadband.csv"), "new, moved in");
    renameSync(join(out, "summary.json"), join(previous, "summary.json"));
    // a live writer's staging (our own pid stands for it)
    const live = join(out, `${debrisPrefix("staging")}Yy1111`);
    mkdirSync(live);
    const done = clearDebris(out, { isAlive: (pid) => pid !== dead });
    expect(done).toHaveLength(2);
    expect(done[0]).toMatch(/^rolled back the report swap a killed writer left half done .*: 2 file\(s\) of the previous set put back$/);
    expect(existsSync(staging) || existsSync(previous)).toBe(false);
    expect(existsSync(live)).toBe(true);
    rmSync(live, { recursive: true });
    expect(new Map(readdirSync(out).map((f) => [f, readFileSync(join(out, f))]))).toEqual(before);
    expect(reportSetProblems(out)).toEqual([]);
    // and the next writer does it itself
    mkdirSync(staging);
    const db = await openStore(dbPath, { readonly: true });
    try {
      const warnings: string[] = [];
      await writeReports(db, { outDir: out, onWarning: (m) => warnings.push(m) });
      expect(warnings).toContain(`removed ${staging.split("/").pop()}, left by a writer that is no longer running`);
    } finally {
      await db.close();
    }
    expect(reportSetProblems(out)).toEqual([]);
  });
});

/** Runs soak/crash-writer.ts: the writer SIGKILLs itself at `step`. */
function crashAt(what: "report" | "export", db: string, out: string, step: string) {
  const r = spawnSync(process.execPath, [...scriptArgs("soak/crash-writer.ts"), what, db, out, step], { encoding: "utf8" });
  return r.signal;
}

describe("a writer killed at a rename or a file write", () => {
  it("leaves the previous report set, whole once the next writer has cleared its debris", async () => {
    const { out, db, close } = await stored();
    await close();
    const before = new Map(readdirSync(out).map((f) => [f, readFileSync(join(out, f))]));
    for (const step of ["write coverage.xlsx", "aside report.html", "in summary.json"]) {
      expect(crashAt("report", db, out, step)).toBe("SIGKILL");
      expect(readdirSync(out).some((n) => n.startsWith(".staging-"))).toBe(true);
      asNextWriter(out);
      expect([step, reportSetProblems(out)]).toEqual([step, []]);
      expect(new Map(readdirSync(out).map((f) => [f, readFileSync(join(out, f))]))).toEqual(before);
    }
  }, 60_000);

  it("leaves every export table whole, old or new: a version nothing links to is deleted, a table moved aside put back", async () => {
    const { d, db, close } = await stored();
    await close();
    const exp = join(d, "export");
    expect(crashAt("export", db, exp, "list")).toBeNull();
    const whole = exportTree(exp);
    expect([...whole.keys()].some((p) => p.startsWith("broadband.parquet/area="))).toBe(true);
    // a partitioned table is a symlink to its version: killed before the new version is made, before
    // its link is flipped (a version nothing links to), before the old version is deleted
    expect(lstatSync(join(exp, "broadband.parquet")).isSymbolicLink()).toBe(true);
    const steps = ["write mobile", "link broadband.parquet", "in mobile.parquet", "delete broadband.parquet", "in postcodes.parquet"];
    // and an export from before versions, its table a real folder: moved aside, then the link in
    const asFolder = () => {
      const version = join(exp, readlinkSync(join(exp, "broadband.parquet")));
      rmSync(join(exp, "broadband.parquet"));
      cpSync(version, join(exp, "broadband.parquet"), { recursive: true });
      rmSync(version, { recursive: true });
    };
    for (const step of [...steps, "aside broadband.parquet", "in broadband.parquet", "delete broadband.parquet"]) {
      if (step.startsWith("aside")) asFolder();
      expect(crashAt("export", db, exp, step)).toBe("SIGKILL");
      expect(readdirSync(exp).some((n) => n.startsWith(".export-"))).toBe(true);
      const cleared = asNextWriter(exp);
      if (step === "in mobile.parquet") expect(cleared).toContainEqual(expect.stringMatching(/^removed \.tables\/mobile\.parquet-\w{6}, a table version no export links to any more$/));
      expect([step, exportProblems(exp, whole)]).toEqual([step, []]);
      if (step.startsWith("aside")) expect(lstatSync(join(exp, "broadband.parquet")).isDirectory()).toBe(true);
    }
    expect(lstatSync(join(exp, "broadband.parquet")).isSymbolicLink()).toBe(true);
  }, 120_000);
});
