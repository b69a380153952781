// The batch end to end, in-process, against the simulator over real HTTP.
import { readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type SimulatorOptions } from "../src/simulator/index.js";
import { generatePostcode, generatePostcodes } from "../src/simulator/index.js";
import { systemClock } from "../src/fetch/clock.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { dayClock } from "./helpers/fake-clock.js";
import { snapshot } from "./helpers/db-snapshot.js";
import { storedInputRows, storedTable } from "./helpers/stored.js";
import { mobileFields } from "../src/contract/fields.js";
import { DEFAULT_OUTAGE_THRESHOLDS } from "../src/fetch/outage.js";

const KEY = "test-key-Zx81-do-not-leak";
const SEED = 7;
const env = { COVERAGE_API_KEY: KEY };
const dirs: string[] = [];
const sims: { close(): Promise<void> }[] = [];

async function sim(options: Partial<SimulatorOptions> = {}) {
  const s = await startSimulator({ port: 0, seed: SEED, key: KEY, ...options });
  sims.push(s);
  return s;
}
function dir() {
  const d = tempDir();
  dirs.push(d);
  return d;
}
afterEach(async () => {
  await Promise.all(sims.splice(0).map((s) => s.close()));
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const postcodes = generatePostcodes(SEED, 60);
const known = postcodes.filter((p) => generatePostcode(SEED, p) !== null);
const unknown = postcodes.filter((p) => generatePostcode(SEED, p) === null);
let inputLines: string[];
beforeAll(() => {
  // lower case, odd spacing, a duplicate and two invalid values, as analysts' files have
  inputLines = ["id,Postcode,notes", ...postcodes.map((p, i) => `${i},${i % 3 === 0 ? p.toLowerCase() : p.replace(" ", "")},n${i}`)];
  inputLines.push(`dup,${postcodes[0]},again`, "bad1,NOT A POSTCODE,x", "bad2,,empty");
});

function totalRequests(s: Awaited<ReturnType<typeof sim>>): number {
  return s.counters.total;
}

describe("batch against the simulator", () => {
  it("stores every answer, rejects invalid rows, and a fresh re-run sends zero requests", async () => {
    expect(unknown.length + known.length).toBe(60);
    const s = await sim();
    const d = dir();
    const input = writeCsv(d, "in.csv", inputLines);
    // every run on a clock of its own day: the same-day runs below must not straddle midnight
    const first = await runIn(d, { in: input, baseUrl: s.url }, env, { clock: dayClock(0) });
    expect(first.exitCode).toBe(0);
    expect(first.counts).toMatchObject({ inputRows: 63, postcodes: 60, rejects: 2, failed: 0, pending: 0 });
    expect(first.counts!.ok + first.counts!.notFound).toBe(120);
    expect(first.counts!.requests).toBe(120);
    expect(totalRequests(s)).toBe(120);

    const dbPath = join(d, "coverage.sqlite");
    const answers = await storedTable(dbPath, "postcodes");
    const notFound = answers.filter((l) => l.status === "not_found");
    expect(new Set(notFound.map((l) => l.postcode))).toEqual(new Set(unknown.map((p) => p.replace(" ", ""))));
    // a 404 is final at once: one attempt, never retried
    expect([...new Set(notFound.map((l) => l.attempts))]).toEqual([1]);
    // exact addresses and values for one postcode, both lookups (rows come by postcode, then UPRN)
    const p = known[0]!;
    const expected = generatePostcode(SEED, p)!;
    const bb = (await storedTable(dbPath, "broadband")).filter((r) => r.postcode === expected.PostCode);
    const exp = [...expected.addresses].sort((a, b) => a.UPRN - b.UPRN);
    expect(bb.map((r) => r.UPRN)).toEqual(exp.map((a) => a.UPRN));
    expect(bb.map((r) => r.AddressShortDescription)).toEqual(exp.map((a) => a.AddressShortDescription));
    expect(bb.map((r) => r.MaxPredictedDown)).toEqual(exp.map((a) => a.speeds.MaxPredictedDown));
    const mob = (await storedTable(dbPath, "mobile")).filter((r) => r.postcode === expected.PostCode);
    const field = mobileFields().indexOf("ProvCDataIndoorNo4g");
    expect(mob.map((r) => r.ProvCDataIndoorNo4g)).toEqual(exp.map((a) => a.ratings[field]));
    const rejects = (await storedInputRows(dbPath, first.runId!)).filter(([, , , reason]) => reason !== null).map(([line, value, , reason]) => ({ line, value, reason }));
    expect(rejects).toEqual([
      { line: 63, value: "NOT A POSTCODE", reason: "not a valid UK postcode" },
      { line: 64, value: "", reason: "empty postcode" },
    ]);

    const again = await runIn(d, { in: input, baseUrl: s.url, probe: 0 }, env, { clock: dayClock(0) });
    expect(again.exitCode).toBe(0);
    expect(again.counts!.requests).toBe(0);
    expect(totalRequests(s)).toBe(120);
    // by default a fresh re-run the same day sends nothing: the first run's answers checked the release today
    const sameDay = await runIn(d, { in: input, baseUrl: s.url }, env, { clock: dayClock(0) });
    expect(sameDay.counts!.requests).toBe(0);
    // the next day, one probe round of 20 answers per lookup looks for a new release, once
    const nextDay = dayClock(1);
    const probed = await runIn(d, { in: input, baseUrl: s.url }, env, { clock: nextDay });
    expect(probed.exitCode).toBe(0);
    expect(probed.counts!.requests).toBe(40);
    expect((await runIn(d, { in: input, baseUrl: s.url }, env, { clock: nextDay })).counts!.requests).toBe(0);
    // --refresh fetches everything again, and the data is the same
    const before = await snapshot(join(d, "coverage.sqlite"));
    const twoDaysOn = dayClock(2);
    const refreshed = await runIn(d, { in: input, baseUrl: s.url, refresh: true }, env, { clock: twoDaysOn });
    expect(refreshed.counts!.requests).toBe(120);
    expect(await snapshot(join(d, "coverage.sqlite"))).toEqual(before);
  });

  it("stores the same data from the documented and the live dialect", async () => {
    const input = writeCsv(dir(), "in.csv", inputLines);
    const snaps = [];
    for (const dialect of ["spec", "live"] as const) {
      const s = await sim({ dialect });
      const d = dir();
      const r = await runIn(d, { in: input, baseUrl: s.url }, env);
      expect(r.exitCode).toBe(0);
      snaps.push(await snapshot(join(d, "coverage.sqlite"), { dropDataset: true }));
    }
    expect(snaps[0]).toEqual(snaps[1]);
    expect(snaps[0]!.broadband.length).toBeGreaterThan(100);
  });

  it("retries 5xx, resets, stalls and malformed bodies until every postcode is final", async () => {
    const s = await sim({ failRate: 0.15, unavailableRate: 0.1, resetRate: 0.1, stallRate: 0.05, malformedRate: 0.1 });
    const d = dir();
    const input = writeCsv(d, "in.csv", inputLines);
    const r = await runIn(d, { in: input, baseUrl: s.url, retries: 12 }, env, { timeoutMs: 300 });
    expect(r.exitCode).toBe(0);
    expect(r.counts!.retries).toBeGreaterThan(5);
    // the same data a fault-free run stores
    const clean = await sim();
    const d2 = dir();
    await runIn(d2, { in: input, baseUrl: clean.url }, env);
    expect(await snapshot(join(d, "coverage.sqlite"))).toEqual(await snapshot(join(d2, "coverage.sqlite")));
  });

  it.each([
    ["failRate", /HTTP 500/],
    ["unavailableRate", /HTTP 503/],
    ["resetRate", /closed mid-body|reset/],
    ["malformedRate", /body/],
  ] as const)("a postcode that always gets %s fails after --retries with the last error kept (exit 2)", async (fault, error) => {
    const s = await sim({ [fault]: 1 });
    const d = dir();
    const input = writeCsv(d, "in.csv", ["postcode", known[0]!, known[1]!]);
    const r = await runIn(d, { in: input, baseUrl: s.url, retries: 2, lookups: "broadband" }, env);
    expect(r.exitCode).toBe(2);
    const rows = (await storedTable(join(d, "coverage.sqlite"), "postcodes")) as { status: string; attempts: number; last_error: string }[];
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.status).toBe("failed");
      // a reset while the other postcode's attempts fail the same way spends no retry until the
      // outage monitor has judged (6 failures in a row, here across only 2 postcodes: not an outage)
      if (fault === "resetRate") expect(row.attempts).toBeGreaterThanOrEqual(3);
      else expect(row.attempts).toBe(3);
      expect(row.attempts).toBeLessThanOrEqual(3 + DEFAULT_OUTAGE_THRESHOLDS.sameFailures);
      expect(row.last_error).toMatch(error);
    }
    expect(readFileSync(join(d, "out", "failures.csv"), "utf8")).toContain("broadband");
  });

  it("a server that never answers is caught by the timeout", async () => {
    const s = await sim({ stallRate: 1 });
    const d = dir();
    const input = writeCsv(d, "in.csv", ["postcode", known[0]!]);
    const r = await runIn(d, { in: input, baseUrl: s.url, retries: 1, lookups: "mobile" }, env, { timeoutMs: 200 });
    expect(r.exitCode).toBe(2);
    expect((await storedTable(join(d, "coverage.sqlite"), "postcodes")).map((l) => l.last_error)).toEqual([expect.stringMatching(/no complete answer within 200 ms/)]);
  });

  it("a wrong key stops the run within a handful of requests, exit 1, naming the lookup but never the key", async () => {
    const s = await sim({ key: "the-right-key-9f3a" });
    const d = dir();
    const input = writeCsv(d, "in.csv", inputLines);
    const r = await runIn(d, { in: input, baseUrl: s.url }, env);
    expect(r.exitCode).toBe(1);
    expect(totalRequests(s)).toBeLessThanOrEqual(8);
    const errors = r.logs.filter((l) => l.includes('"error"'));
    expect(errors.join("\n")).toMatch(/keys? (was|were) rejected/);
    // one key for both lookups: the run's line names both
    expect((await storedTable(join(d, "coverage.sqlite"), "runs")).at(-1)?.message).toMatch(/^the broadband and mobile keys were rejected \(/);
    expect(r.logs.join("\n")).not.toContain(KEY);
  });

  it("a --providers list that does not match the service's codes stops at once (exit 1) instead of spending retries", async () => {
    const s = await sim({ providers: ["EE", "Three", "Vodafone", "OTwo"] });
    const d = dir();
    const input = writeCsv(d, "in.csv", inputLines);
    const r = await runIn(d, { in: input, baseUrl: s.url, lookups: "mobile" }, env);
    expect(r.exitCode).toBe(1);
    expect(s.counters.requests.mobile).toBeLessThanOrEqual(4);
    expect(r.logs.join("\n")).toMatch(/rates providers EE, Three, Vodafone, OTwo, but --providers names ProvA, ProvB, ProvC, ProvD/);
  });

  it("a separate mobile key is used for the mobile lookup", async () => {
    const s = await sim({ key: "bb-key-1234-abcdef", mobileKey: "mob-key-5678-ghijkl" });
    const d = dir();
    const input = writeCsv(d, "in.csv", ["postcode", known[0]!, known[1]!]);
    const r = await runIn(d, { in: input, baseUrl: s.url }, { COVERAGE_BROADBAND_KEY: "bb-key-1234-abcdef", COVERAGE_MOBILE_KEY: "mob-key-5678-ghijkl" });
    expect(r.exitCode).toBe(0);
    expect(r.counts!.ok).toBe(4);
  });

  it("a base URL that answers 404 without the API's body stops at once (exit 1)", async () => {
    const s = await sim();
    const d = dir();
    const input = writeCsv(d, "in.csv", inputLines);
    const r = await runIn(d, { in: input, baseUrl: `${s.url}/wrong-prefix` }, env);
    expect(r.exitCode).toBe(1);
    expect(totalRequests(s)).toBeLessThanOrEqual(8);
    expect(r.logs.join("\n")).toMatch(/base URL/);
  });

  it("stops on quota with exit 3, keeps what was done, and a re-run resumes without refetching", async () => {
    const s = await sim({ quota: 20 });
    const d = dir();
    const input = writeCsv(d, "in.csv", inputLines);
    const r = await runIn(d, { in: input, baseUrl: s.url, concurrency: 1 }, env);
    expect(r.exitCode).toBe(3);
    expect(r.logs.join("\n")).toMatch(/quota exhausted, re-run resumes/);
    const done = r.counts!.ok + r.counts!.notFound;
    expect(done).toBe(40);
    expect(r.counts!.pending).toBe(80);
    // until the time the 403 named, nothing is sent to that lookup: exit 3 at once
    const fresh = await sim();
    const blocked = await runIn(d, { in: input, baseUrl: fresh.url, probe: 0, lookups: "broadband" }, env);
    expect(blocked.exitCode).toBe(3);
    expect(fresh.counters.total).toBe(0);
    // next month: the quota is replenished
    const nextMonth = dayClock(31);
    const again = await runIn(d, { in: input, baseUrl: fresh.url, probe: 0, maxAge: "90d", retention: "none" }, env, { clock: nextMonth });
    expect(again.exitCode).toBe(0);
    expect(again.counts!.requests).toBe(80);
  });

  it("--max-requests stops cleanly after exactly N requests (exit 3)", async () => {
    const s = await sim();
    const d = dir();
    const input = writeCsv(d, "in.csv", inputLines);
    const r = await runIn(d, { in: input, baseUrl: s.url, maxRequests: 25 }, env);
    expect(r.exitCode).toBe(3);
    expect(totalRequests(s)).toBe(25);
    expect(r.counts!.ok + r.counts!.notFound).toBe(25);
  });

  it("429s are waited out and do not use up retries", async () => {
    const s = await sim({ rateLimit: 10, rateWindowMs: 1000 });
    const d = dir();
    const input = writeCsv(d, "in.csv", ["postcode", ...known.slice(0, 15)]);
    const r = await runIn(d, { in: input, baseUrl: s.url, retries: 0, lookups: "broadband" }, env, { clock: systemClock });
    expect(r.exitCode).toBe(0);
    expect(r.counts!.throttled).toBeGreaterThan(0);
    expect(r.counts!.ok).toBe(15);
    expect(s.counters.throttled).toBe(r.counts!.throttled);
  });

  it("pacing at the server's own limit draws no 429", async () => {
    const s = await sim({ rateLimit: 20, rateWindowMs: 1000 });
    const d = dir();
    const input = writeCsv(d, "in.csv", ["postcode", ...known.slice(0, 50)]);
    const r = await runIn(d, { in: input, baseUrl: s.url, rate: 20, concurrency: 8 }, env, {
      clock: systemClock,
      rateWindowMs: 1000,
      // real time: a busy machine can delay a request's arrival well past the default 20 ms margin
      rateMarginMs: 250,
    });
    expect(r.exitCode).toBe(0);
    expect(r.counts!.requests).toBe(100);
    expect(s.counters.throttled).toBe(0);
  });

  it("masks the key where an error body echoes it, in the database, the reports and the logs", async () => {
    // a proxy that quotes the request back: 500 for broadband, 401 for mobile
    const server = http.createServer((req, res) => {
      const key = String(req.headers["ocp-apim-subscription-key"]);
      const mobile = req.url!.startsWith("/mobile/");
      res.writeHead(mobile ? 401 : 500, { "content-type": "application/json" });
      res.end(JSON.stringify(mobile ? { statusCode: 401, message: `key ${key} is not valid here` } : { Error: `upstream refused subscription key ${key}` }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const d = dir();
      const input = writeCsv(d, "in.csv", ["postcode", known[0]!]);
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const bb = await runIn(d, { in: input, baseUrl: url, retries: 0, lookups: "broadband" }, env);
      expect(bb.exitCode).toBe(2);
      const mob = await runIn(d, { in: input, baseUrl: url, lookups: "mobile" }, env);
      expect(mob.exitCode).toBe(1);
      const dbPath = join(d, "coverage.sqlite");
      expect((await storedTable(dbPath, "postcodes")).find((l) => l.lookup === "broadband")?.last_error).toBe("HTTP 500: upstream refused subscription key ***");
      expect((await storedTable(dbPath, "runs")).at(-1)?.message).toMatch(/key \*\*\* is not valid here/);
      expect([...bb.logs, ...mob.logs].join("\n")).not.toContain(KEY);
      for (const f of readdirSync(join(d, "out"))) expect(readFileSync(join(d, "out", f), "latin1")).not.toContain(KEY);
      for (const f of readdirSync(d).filter((f) => f.startsWith("coverage.sqlite")))
        expect(readFileSync(join(d, f), "latin1")).not.toContain(KEY);
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });

  it("never writes the key to a log line, report file or the database", async () => {
    const s = await sim({ failRate: 0.2 });
    const d = dir();
    const input = writeCsv(d, "in.csv", inputLines);
    const r = await runIn(d, { in: input, baseUrl: s.url, retries: 8 }, env);
    expect(r.exitCode).toBe(0);
    expect(r.logs.join("\n")).not.toContain(KEY);
    for (const f of readdirSync(join(d, "out"))) expect(readFileSync(join(d, "out", f), "latin1")).not.toContain(KEY);
    for (const f of readdirSync(d).filter((f) => f.startsWith("coverage.sqlite")))
      expect(readFileSync(join(d, f), "latin1")).not.toContain(KEY);
  });
});
