// Issue 10.9 and 10.10 in the pipeline: one process, a batch outliving its parent, an unexpected failure
// keeping its counts, and `status` showing a running batch's progress.
import { openStore } from "../src/store/open-store.js";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { generatePostcodes, startSimulator, type Simulator } from "../src/simulator/index.js";
import { createLogger } from "../src/log/logger.js";
import { withStore } from "./helpers/stored.js";
import { runningProgress } from "../src/cli/running-progress.js";
import { formatRunningProgress } from "../src/cli/status-text.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { instantSleepClock } from "./helpers/fake-clock.js";
import { query, ROOT, spawnCli, storedAnswers, waitFor, type ChildRun } from "./helpers/child-cli.js";

const KEY = "Tq6-mW3z-Rk8v-Jc1x";
const env = { COVERAGE_API_KEY: KEY };
const SEED = 4;
const POSTCODES = generatePostcodes(SEED, 40);
const dirs: string[] = [];
const sims: Simulator[] = [];
const children: ChildRun[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill("SIGKILL");
  await Promise.all(sims.splice(0).map((s) => s.close()));
});
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function dir() {
  const d = tempDir("pcc-trust-");
  dirs.push(d);
  return d;
}
async function sim(): Promise<Simulator> {
  const s = await startSimulator({ port: 0, seed: SEED, key: KEY });
  sims.push(s);
  return s;
}

describe("one process", () => {
  it("npm run batch, demo, report, status and simulate start node itself, so the pid a scheduler sees is the program", () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
    for (const name of ["batch", "demo", "report", "status", "simulate"]) expect(scripts[name], name).toMatch(/^node --import tsx src\/cli\/\w+\.ts\b/);
  });

  it("a batch whose parent stops reading its output finishes and records its run", async () => {
    const d = dir();
    const s = await sim();
    const db = join(d, "coverage.sqlite");
    const input = writeCsv(d, "in.csv", ["postcode", ...POSTCODES]);
    const run = spawnCli("batch", ["--in", input, "--db", db, "--out", join(d, "out"), "--base-url", s.url, "--rate", "600", "--rate-window-ms", "1000", "--verbose"], { env });
    children.push(run);
    await waitFor("some answers", () => storedAnswers(db) >= 4);
    // the parent goes away: nobody reads stderr or stdout any more
    run.child.stderr!.destroy();
    run.child.stdout!.destroy();
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(query<{ state: string; ok: number }>(db, "SELECT state, ok + not_found AS ok FROM runs")).toEqual([{ state: "completed", ok: 80 }]);
  });

  it("SIGHUP (the terminal closed) stops cleanly: requests in flight finish, exit 129, a re-run resumes", async () => {
    const d = dir();
    const s = await sim();
    const db = join(d, "coverage.sqlite");
    const input = writeCsv(d, "in.csv", ["postcode", ...POSTCODES]);
    const run = spawnCli("batch", ["--in", input, "--db", db, "--out", join(d, "out"), "--base-url", s.url, "--rate", "60", "--rate-window-ms", "1000"], { env });
    children.push(run);
    await waitFor("some answers", () => storedAnswers(db) >= 4);
    run.child.kill("SIGHUP");
    const result = await run.done;
    expect(result.code, result.stderr).toBe(129);
    expect(query<{ state: string; message: string }>(db, "SELECT state, message FROM runs")).toEqual([
      { state: "interrupted", message: "interrupted by SIGHUP; re-run resumes" },
    ]);
  });
});

/**
 * A batch whose `failure` strikes a while into the fetch: the clock is read for every request
 * (pacer, ledger), so its 80th reading after the plan comes after a dozen or so answers.
 */
async function batchFailingMidFetch(failure: () => Error): Promise<{ d: string; run: Promise<Awaited<ReturnType<typeof runIn>>> }> {
  const d = dir();
  const s = await sim();
  const input = writeCsv(d, "in.csv", ["postcode", ...POSTCODES]);
  const logs: string[] = [];
  const logger = createLogger({ format: "json", quiet: false, write: (l) => logs.push(l) });
  let readings = 0;
  const clock = {
    now: () => {
      if (logs.some((l) => l.includes('"event":"plan"')) && ++readings === 80) throw failure();
      return instantSleepClock.now();
    },
    sleep: instantSleepClock.sleep,
  };
  return { d, run: runIn(d, { in: input, baseUrl: s.url, concurrency: 1 }, env, { logger, clock }) };
}

describe("an unexpected failure", () => {
  it("keeps the input and request counts already reached instead of writing zeros", async () => {
    const { d, run } = await batchFailingMidFetch(() => new TypeError("a bug"));
    await expect(run).rejects.toThrow("a bug");
    const [row] = query<{ state: string; message: string; input_rows: number; requests: number; ok: number }>(
      join(d, "coverage.sqlite"),
      "SELECT state, message, input_rows, requests, ok + not_found AS ok FROM runs",
    );
    expect(row).toMatchObject({ state: "failed", message: "unexpected failure: a bug", input_rows: 40 });
    // the requests sent before the failure (on main: 0)
    expect(row!.requests, JSON.stringify(row)).toBeGreaterThanOrEqual(10);
    expect(row!.ok).toBeGreaterThanOrEqual(8);
  });
});

describe("a full disk mid-run", () => {
  it("is said as it is in the run's row, not as a bug, and the batch ends with exit 1", async () => {
    // the file system's own error
    const { d, run } = await batchFailingMidFetch(() => Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" }));
    expect((await run).exitCode).toBe(1);
    const [row] = query<{ state: string; message: string }>(join(d, "coverage.sqlite"), "SELECT state, message FROM runs");
    expect(row).toEqual({ state: "failed", message: "ENOSPC: no space left on device, write" });
  });
});

describe("status of a running batch", () => {
  it("shows how many lookups it has fetched of how many, and an ETA from its pace", async () => {
    const d = dir();
    const s = await sim();
    const db = join(d, "coverage.sqlite");
    const input = writeCsv(d, "in.csv", ["postcode", ...POSTCODES]);
    // a batch that gets through 30 of its 80 lookups before it is cut short, then looks running
    expect((await runIn(d, { in: input, baseUrl: s.url, maxRequests: 30 }, env)).exitCode).toBe(3);
    const started = Date.parse(await looksRunning(db, 1, 3));
    const h = await openStore(db, { readonly: true });
    try {
      // 30 fetched in 60 s: 50 more take 100 s
      const view = await runningProgress(h, started + 60_000);
      expect(view).toMatchObject({ runId: 1, pairs: 80, reused: 0, toFetch: 80, fetched: 30, requests: 30, etaSeconds: 100 });
      expect(formatRunningProgress(view)).toBe("\nRun 1 is running: 30 of 80 lookups fetched (37%), 30 requests, ETA 100 s\n");
    } finally {
      await h.close();
    }
  });

  it("counts what a refresh night plans to fetch, not only what was never fetched", async () => {
    const d = dir();
    const s = await sim();
    const db = join(d, "coverage.sqlite");
    const input = writeCsv(d, "in.csv", ["postcode", ...POSTCODES]);
    expect((await runIn(d, { in: input, baseUrl: s.url }, env)).exitCode).toBe(0);
    // every answer is stored and fresh; a --refresh gets through 20 of its 80 before it is cut short
    const refresh = await runIn(d, { in: input, baseUrl: s.url, refresh: true, maxRequests: 20 }, env);
    expect(refresh.exitCode).toBe(3);
    await looksRunning(db, 2, 3);
    const h = await openStore(db, { readonly: true });
    try {
      expect(await runningProgress(h, refresh.clock.now())).toMatchObject({ runId: 2, pairs: 80, toFetch: 80, fetched: 20, reused: 0 });
    } finally {
      await h.close();
    }
  });
});

/** Makes a finished run (its exit code as it ended) look as if it were still running, as a killed batch leaves it; returns its start. */
function looksRunning(db: string, runId: number, exitCode: number): Promise<string> {
  return withStore(
    db,
    async (store) => {
      const facts = (await store.runs.facts(runId))!;
      await store.runs.setExit(runId, exitCode, facts.message, "running");
      return facts.startedAt;
    },
    {},
  );
}
