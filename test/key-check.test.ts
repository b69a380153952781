// A refused key is a refused key: against the simulator (which accepts only its own key), a key
// that stops working on a database whose products answered before is `auth` from the first line
// on, never a closed product; and a night with nothing to fetch still learns whether its keys are
// accepted, with one request a day per lookup, counted in the ledger, and fails when they are not
// (exit 1, and the monitor hears /1).
import { createServer, type Server } from "node:http";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generatePostcodes, startSimulator, type Simulator } from "../src/simulator/index.js";
import { probeRule, type ProbeSituation } from "../src/plan/probe-rule.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { query, spawnCli } from "./helpers/child-cli.js";
import { FakeClock } from "./helpers/fake-clock.js";

const KEY = "kc-7f3e-41Qa-88pz-Lm2w-check-key";
const WRONG = "kc-0000-0000-0000-0000-wrong-key";
const SEED = 43;
const DAY = 24 * 3600 * 1000;
const dirs: string[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const events = (logs: string[]) => logs.map((l) => JSON.parse(l) as Record<string, unknown>);

async function simulator(): Promise<Simulator> {
  const sim = await startSimulator({ port: 0, seed: SEED, key: KEY });
  closers.push(() => sim.close());
  return sim;
}

/** A database whose every postcode of `list` both lookups answered, on a night at `at`. */
async function answeredNight(list: readonly string[], at: string): Promise<{ d: string; input: string; clock: FakeClock }> {
  const d = tempDir("pcc-keycheck-");
  dirs.push(d);
  const input = writeCsv(d, "in.csv", ["postcode", ...list]);
  const clock = new FakeClock(Date.parse(at));
  const sim = await simulator();
  const r = await runIn(d, { in: input, baseUrl: sim.url, reports: false }, { COVERAGE_API_KEY: KEY }, { clock });
  expect(r.exitCode).toBe(0);
  return { d, input, clock };
}

describe("the key check, as a rule", () => {
  const base: ProbeSituation = { lookup: "broadband", probe: 20, fresh: 300, fetching: 0, refetching: 0, replacingRelease: false, lastCheck: null, now: "2026-11-23T02:00:00.000Z" };
  it.each<[string, Partial<ProbeSituation>, number, boolean]>([
    ["nothing to send, release checked today, no answer accepted today: one request", { lastCheck: "2026-11-23T00:30:00.000Z", lastAccepted: "2026-11-22T02:10:00.000Z" }, 1, true],
    ["nothing to send, last accepted just before midnight: one request", { lastCheck: "2026-11-23T00:30:00.000Z", lastAccepted: "2026-11-22T23:59:00.000Z" }, 1, true],
    ["--probe 0: no probe at all, not even the key check", { probe: 0, lastAccepted: "2026-11-22T02:00:00.000Z" }, 0, false],
    ["every fresh answer younger than a day, but from yesterday: one request", { probeable: 0, lastAccepted: "2026-11-22T22:00:00.000Z" }, 1, true],
    ["an answer accepted today: none", { lastCheck: "2026-11-23T00:30:00.000Z", lastAccepted: "2026-11-23T00:05:00.000Z" }, 0, false],
    ["the run fetches anyway: its requests are the check", { lookup: "mobile", fetching: 3, lastAccepted: "2026-11-20T02:00:00.000Z" }, 0, false],
    ["a probe round goes out anyway: it is the check", { lastAccepted: "2026-11-20T02:00:00.000Z" }, 20, false],
    ["nothing stored to ask again: nothing to check with", { fresh: 0, lastAccepted: null }, 0, false],
  ])("%s", (_name, situation, probes, keyCheck) => {
    const d = probeRule({ ...base, ...situation });
    expect(d.probes).toBe(probes);
    expect(d.keyCheck === true).toBe(keyCheck);
  });
});

describe("a refused key", () => {
  it("where both products answered before is `auth` first and only: never called a closed product", async () => {
    const list = generatePostcodes(SEED, 12);
    const { d, clock } = await answeredNight(list.slice(0, 6), "2026-11-01T02:00:00Z");
    clock.t += DAY;
    const sim = await simulator();
    // new postcodes to fetch, with a key the service refuses
    const r = await runIn(d, { in: writeCsv(d, "more.csv", ["postcode", ...list]), baseUrl: sim.url, concurrency: 1 }, { COVERAGE_API_KEY: WRONG }, { clock });
    expect(r.exitCode).toBe(1);
    const log = events(r.logs);
    const errors = log.filter((e) => e.level === "error");
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatchObject({ event: "stop", stopReason: "auth" });
    expect(String(errors[0]!.message)).toMatch(/^the (broadband|mobile) key was rejected \(Access denied due to invalid subscription key/);
    expect(r.logs.join("\n")).not.toMatch(/closed/);
    expect(log.filter((e) => "stopReason" in e).map((e) => e.stopReason)).toEqual(expect.arrayContaining(["auth"]));
    expect(log.filter((e) => "stopReason" in e).every((e) => e.stopReason === "auth")).toBe(true);
    expect(log.find((e) => e.event === "summary")).toMatchObject({ exitCode: 1, stopReason: "auth" });
    // the key is never written
    expect(r.logs.join("\n")).not.toContain(WRONG);
  });

  it("refused by one product while the other accepts its own: that lookup stops as `auth`, the other runs to its end", async () => {
    const list = generatePostcodes(SEED, 10);
    const d = tempDir("pcc-keycheck-");
    dirs.push(d);
    const clock = new FakeClock(Date.parse("2026-11-01T02:00:00Z"));
    const keys = { COVERAGE_BROADBAND_KEY: KEY, COVERAGE_MOBILE_KEY: "kc-mobile-1111-2222-3333-key-0001" };
    const first = await startSimulator({ port: 0, seed: SEED, key: KEY, mobileKey: keys.COVERAGE_MOBILE_KEY });
    closers.push(() => first.close());
    expect((await runIn(d, { in: writeCsv(d, "a.csv", ["postcode", ...list.slice(0, 4)]), baseUrl: first.url, reports: false }, keys, { clock })).exitCode).toBe(0);
    clock.t += DAY;
    // the mobile product now takes another key only
    const later = await startSimulator({ port: 0, seed: SEED, key: KEY, mobileKey: "kc-mobile-9999-8888-7777-key-0002" });
    closers.push(() => later.close());
    const r = await runIn(d, { in: writeCsv(d, "b.csv", ["postcode", ...list]), baseUrl: later.url, concurrency: 1 }, keys, { clock });
    expect(r.exitCode).toBe(1);
    const log = events(r.logs);
    const stops = log.filter((e) => e.event === "stop");
    expect(stops).toHaveLength(1);
    expect(stops[0]).toMatchObject({ stopReason: "auth" });
    expect(String(stops[0]!.message)).toMatch(/^the mobile key was rejected \(/);
    expect(log.find((e) => e.event === "summary")).toMatchObject({ exitCode: 1, stopReason: "auth" });
    expect(r.counts).toMatchObject({ pending: 6 });
    // the 6 new postcodes, and the day's probe round of the answered ones
    expect(later.counters.requests.broadband).toBeGreaterThanOrEqual(6);
  });
});

describe("a night with nothing to fetch", () => {
  it("asks each lookup once to learn its key is still accepted, counted in the ledger; the same day, not again", async () => {
    const list = generatePostcodes(SEED, 8);
    // answered at 10:00; the next night at 02:00 is a new day, but every answer is younger than a
    // probe's day: without the key check it would send nothing at all
    const { d, input, clock } = await answeredNight(list, "2026-11-01T10:00:00Z");
    clock.t = Date.parse("2026-11-02T02:00:00Z");
    const sim = await simulator();
    const ledger = () => query(join(d, "coverage.sqlite"), "SELECT lookup, COUNT(*) AS n FROM request_ledger GROUP BY lookup ORDER BY lookup");
    expect(ledger()).toEqual([{ lookup: "broadband", n: 8 }, { lookup: "mobile", n: 8 }]);
    const r = await runIn(d, { in: input, baseUrl: sim.url, reports: false }, { COVERAGE_API_KEY: KEY }, { clock });
    expect(r.exitCode).toBe(0);
    expect(sim.counters.requests).toEqual({ broadband: 1, mobile: 1 });
    expect(ledger()).toEqual([{ lookup: "broadband", n: 9 }, { lookup: "mobile", n: 9 }]);
    expect(r.logs.join("\n")).toMatch(/broadband: 1 to fetch \(1 probe\)/);
    clock.t += 3600_000;
    const again = await runIn(d, { in: input, baseUrl: sim.url, reports: false }, { COVERAGE_API_KEY: KEY }, { clock });
    expect(again.exitCode).toBe(0);
    expect(sim.counters.requests).toEqual({ broadband: 1, mobile: 1 });
  });

  it("fails on a refused key: exit 1, stop reason auth, one request per lookup", async () => {
    const list = generatePostcodes(SEED, 8);
    const { d, input, clock } = await answeredNight(list, "2026-11-01T10:00:00Z");
    // the next night: every answer fresh (--max-age 30d) and younger than a probe's day
    clock.t = Date.parse("2026-11-02T02:00:00Z");
    const sim = await simulator();
    const r = await runIn(d, { in: input, baseUrl: sim.url, reports: false }, { COVERAGE_API_KEY: WRONG }, { clock });
    expect(r.exitCode).toBe(1);
    const log = events(r.logs);
    expect(log.find((e) => e.event === "summary")).toMatchObject({ exitCode: 1, stopReason: "auth" });
    expect(String(log.find((e) => e.event === "summary")!.message)).toMatch(/the broadband and mobile keys were rejected/);
    expect(sim.counters.requests).toEqual({ broadband: 1, mobile: 1 });
  });
});

describe("the installed command's night with nothing to fetch and a refused key", () => {
  it("exits 1 and the monitor hears /1", async () => {
    const sim = await simulator();
    const pings: string[] = [];
    const monitor: Server = createServer((req, res) => {
      pings.push(req.url!);
      req.resume().on("end", () => res.end("OK"));
    });
    await new Promise<void>((resolve) => monitor.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => monitor.close(resolve)));
    const d = tempDir("pcc-keycheck-");
    dirs.push(d);
    const input = join(d, "in.csv");
    writeFileSync(input, ["postcode", ...generatePostcodes(SEED, 5)].join("\n") + "\n");
    const common = ["--in", input, "--base-url", sim.url, "--rate", "6000", "--db", join(d, "c.sqlite"), "--out", join(d, "out"), "--no-progress", "--quiet"];
    // the first night at 23:00 UTC, whatever the hour the suite runs; the next at 01:00: a new day,
    // every answer fresh and younger than a probe's day, so only the key check asks
    const lateEvening = Math.ceil(Date.now() / DAY) * DAY - 3600_000 - Date.now();
    const first = await spawnCli("batch", [...common, "--clock-offset-ms", String(lateEvening)], { env: { COVERAGE_API_KEY: KEY } }).done;
    expect(first.code, first.stderr).toBe(0);
    const asked = { ...sim.counters.requests };
    const pingUrl = `http://127.0.0.1:${(monitor.address() as { port: number }).port}/p`;
    const next = await spawnCli("batch", [...common, "--ping-url", pingUrl, "--clock-offset-ms", String(lateEvening + 2 * 3600_000)], { env: { COVERAGE_API_KEY: WRONG } }).done;
    expect(next.code).toBe(1);
    expect({ broadband: sim.counters.requests.broadband - asked.broadband, mobile: sim.counters.requests.mobile - asked.mobile }).toEqual({ broadband: 1, mobile: 1 });
    expect(next.stderr).toMatch(/keys? (was|were) rejected/);
    expect(pings).toEqual(["/p/start", "/p/1"]);
  }, 60_000);
});
