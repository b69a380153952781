// A nightly run that changed nothing rewrites nothing: the batch keeps a current report set (same
// files, same inodes and times) and says so; a changed input, answer, option or a missing file
// rewrites it; npm run report (writeReports) always writes.
import { readdirSync, rmSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePostcodes, startSimulator } from "../src/simulator/index.js";
import { openStore } from "../src/store/open-store.js";
import { writeReports, writeReportsUnlessCurrent } from "../src/report/index.js";
import type { ReportSnapshot, SnapshotSource } from "../src/store/snapshot.js";
import { optionsKey } from "../src/report/set/fingerprint.js";
import { dayClock } from "./helpers/fake-clock.js";
import { runIn, tempDir, writeCsv, type HarnessRun } from "./helpers/batch-harness.js";

const KEY = "test-key-fingerprint";
const env = { COVERAGE_API_KEY: KEY };
let sim: Awaited<ReturnType<typeof startSimulator>>;
/** the same data after a new release: about a tenth of postcodes changed */
let nextRelease: Awaited<ReturnType<typeof startSimulator>>;
const dirs: string[] = [];
const postcodes = generatePostcodes(5, 30);

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 5, key: KEY });
  nextRelease = await startSimulator({ port: 0, seed: 5, key: KEY, release: 2 });
});
afterAll(async () => {
  await sim.close();
  await nextRelease.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function setup() {
  const dir = tempDir("pcc-fingerprint-");
  dirs.push(dir);
  const input = writeCsv(dir, "in.csv", ["id,postcode", ...postcodes.map((p, i) => `${i},${p}`), "x,NOT A POSTCODE"]);
  return { dir, input, out: join(dir, "out") };
}

/** Every file of the set with its inode and modification time. */
function files(out: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(out).map((f) => {
      const s = statSync(join(out, f), { bigint: true });
      return [f, `${s.ino}@${s.mtimeNs}`];
    }),
  );
}

const messages = (run: HarnessRun) => run.logs.map((l) => (JSON.parse(l) as { message: string }).message);
const current = (run: HarnessRun) => messages(run).some((m) => m.startsWith("reports are current"));
const written = (run: HarnessRun) => messages(run).some((m) => m.startsWith("reports written"));

describe("report set fingerprint", () => {
  it("keeps the set of an unchanged re-run and logs that it is current", async () => {
    const { dir, input, out } = setup();
    const first = await runIn(dir, { in: input, baseUrl: sim.url }, env);
    expect(first.exitCode).toBe(0);
    expect(written(first)).toBe(true);
    const before = files(out);
    expect(Object.keys(before)).toContain(".fingerprint");
    expect(Object.keys(before)).toContain("enriched.csv");

    // the next day, the default probe round fetches 20 answers per lookup again; they come back the same
    const nextDay = dayClock(1);
    const second = await runIn(dir, { in: input, baseUrl: sim.url }, env, { clock: nextDay });
    expect(second.exitCode).toBe(0);
    expect(second.counts!.requests).toBe(40);
    expect(current(second)).toBe(true);
    expect(written(second)).toBe(false);
    expect(files(out)).toEqual(before);
  });

  it("rewrites when an input row changes", async () => {
    const { dir, input, out } = setup();
    await runIn(dir, { in: input, baseUrl: sim.url }, env);
    const before = files(out);
    // The same postcodes, one other cell: enriched.csv would differ.
    const changed = writeCsv(dir, "in2.csv", ["id,postcode", ...postcodes.map((p, i) => `${i === 3 ? "three" : i},${p}`), "x,NOT A POSTCODE"]);
    const run = await runIn(dir, { in: changed, baseUrl: sim.url, probe: 0 }, env);
    expect(run.counts!.requests).toBe(0);
    expect(current(run)).toBe(false);
    expect(written(run)).toBe(true);
    expect(files(out)["enriched.csv"]).not.toBe(before["enriched.csv"]);
  });

  it("keeps the set when a --refresh brings the same answers, rewrites it when they changed", async () => {
    const { dir, input, out } = setup();
    await runIn(dir, { in: input, baseUrl: sim.url }, env);
    const before = files(out);
    const same = await runIn(dir, { in: input, baseUrl: sim.url, refresh: true }, env);
    expect(same.counts!.requests).toBe(60);
    expect(current(same)).toBe(true);
    expect(files(out)).toEqual(before);

    const changed = await runIn(dir, { in: input, baseUrl: nextRelease.url, refresh: true }, env);
    expect(changed.counts!.requests).toBe(60);
    expect(current(changed)).toBe(false);
    expect(written(changed)).toBe(true);
    expect(files(out)["changes.csv"]).not.toBe(before["changes.csv"]);
  });

  it("rewrites when the set in --out was written with other options, or lost a file", async () => {
    const { dir, input, out } = setup();
    const first = await runIn(dir, { in: input, baseUrl: sim.url }, env);
    // npm run report with another good rating over the batch's set: always written.
    const db = await openStore(join(dir, "coverage.sqlite"));
    const before = files(out);
    try {
      await writeReports(db, { outDir: out, runId: first.runId!, goodRating: 3, now: () => new Date(first.clock.now()) });
    } finally {
      await db.close();
    }
    expect(files(out)["mobile.csv"]).not.toBe(before["mobile.csv"]);
    const afterOption = await runIn(dir, { in: input, baseUrl: sim.url }, env);
    expect(current(afterOption)).toBe(false);
    expect(written(afterOption)).toBe(true);

    expect(current(await runIn(dir, { in: input, baseUrl: sim.url }, env))).toBe(true);
    unlinkSync(join(out, "coverage.csv"));
    const afterLoss = await runIn(dir, { in: input, baseUrl: sim.url }, env);
    expect(current(afterLoss)).toBe(false);
    expect(statSync(join(out, "coverage.csv")).size).toBeGreaterThan(0);
  });

  it("npm run report's writeReports writes even when the set is current", async () => {
    const { dir, input, out } = setup();
    const first = await runIn(dir, { in: input, baseUrl: sim.url }, env);
    const before = files(out);
    const db = await openStore(join(dir, "coverage.sqlite"));
    try {
      // 4: the good rating of the simulator's (current) scale
      await writeReports(db, { outDir: out, runId: first.runId!, goodRating: 4, bom: true, now: () => new Date(first.clock.now()) });
    } finally {
      await db.close();
    }
    expect(files(out)["summary.json"]).not.toBe(before["summary.json"]);
    // Explicit defaults are the same set as implicit ones.
    expect(current(await runIn(dir, { in: input, baseUrl: sim.url }, env))).toBe(true);
  });

  it("keeps an unchanged set without deciding the mobile scale again (a count of every stored rating)", async () => {
    const { dir, input, out } = setup();
    const first = await runIn(dir, { in: input, baseUrl: sim.url }, env);
    const db = await openStore(join(dir, "coverage.sqlite"));
    let decided = 0;
    // the real snapshot, its scale evidence counted
    const counting: SnapshotSource = {
      snapshot: (request, work, options) =>
        db.snapshot(request, (snapshot) => work(new Proxy(snapshot, {
          get(target, name) {
            const value = Reflect.get(target, name, target) as unknown;
            if (name === "scaleEvidence") decided++;
            return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
          },
        }) as ReportSnapshot), options),
    };
    try {
      const now = () => new Date(first.clock.now());
      await writeReports(counting, { outDir: out, runId: first.runId!, now });
      expect(decided).toBe(1);
      const before = files(out);
      decided = 0;
      expect(await writeReportsUnlessCurrent(counting, { outDir: out, runId: first.runId!, command: "batch", now })).toBe("current");
      expect(decided).toBe(0);
      expect(files(out)).toEqual(before);
      // other options than the set's: decided, then found the same set (an explicit default)
      expect(await writeReportsUnlessCurrent(counting, { outDir: out, runId: first.runId!, command: "batch", now, goodRating: 4 })).toBe("current");
      expect(decided).toBe(1);
    } finally {
      await db.close();
    }
  });

  it("keys options by value, without the directory, run, clock or callbacks", () => {
    expect(optionsKey({ outDir: "/x", runId: 3, all: true, now: () => new Date(), onWarning: () => {}, goodRating: 3, bom: true, extra: undefined })).toEqual({
      bom: true,
      goodRating: 3,
    });
  });
});
