// Faults of the API as a whole (issue 10.3), against the real simulator over loopback with a virtual clock:
// a wrong address stops within seconds; an outage pauses the lookup, probes one request at a time, and
// either recovers (the run completes, no retries spent) or stops with exit 3 after --outage-limit.
import http from "node:http";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { generatePostcode, generatePostcodes, startSimulator, type Simulator, type SimulatorOptions } from "../src/simulator/index.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { FakeClock } from "./helpers/fake-clock.js";

const KEY = "Vb7r-2Lk9-Qm4x-8Tz";
const env = { COVERAGE_API_KEY: KEY };
const SEED = 11;
const known = generatePostcodes(SEED, 80).filter((p) => generatePostcode(SEED, p) !== null).slice(0, 20);
const dirs: string[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function setup() {
  const d = tempDir("pcc-outage-");
  dirs.push(d);
  return { d, input: writeCsv(d, "in.csv", ["postcode", ...known]) };
}
async function sim(options: Partial<SimulatorOptions>): Promise<Simulator> {
  const s = await startSimulator({ seed: SEED, key: KEY, port: 0, ...options });
  closers.push(() => s.close());
  return s;
}
function summary(logs: string[]): Record<string, unknown> {
  return JSON.parse(logs.find((l) => l.includes('"event":"summary"'))!) as Record<string, unknown>;
}
function errors(logs: string[]): string[] {
  return logs.map((l) => JSON.parse(l) as { level: string; message: string }).filter((l) => l.level === "error").map((l) => l.message);
}

/** A port that was free a moment ago: nothing listens there. */
async function deadPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe("a wrong address stops the run within seconds, before any report", () => {
  it("connection refused: exit 1 naming the cause and the URL", async () => {
    const { d, input } = setup();
    const url = `http://127.0.0.1:${await deadPort()}`;
    const clock = new FakeClock();
    const r = await runIn(d, { in: input, baseUrl: url }, env, { clock });
    expect(r.exitCode).toBe(1);
    // on main: 20 postcodes x 2 lookups x 6 attempts (240) and exit 2
    expect(r.counts!.requests).toBeLessThanOrEqual(2 * 4 + 2 * 3);
    expect(errors(r.logs)).toContainEqual(expect.stringMatching(new RegExp(`cannot reach the API: refused from ${url}/ on every attempt so far: check --base-url`)));
    expect(summary(r.logs).stopReason).toBe("unreachable");
    expect(existsSync(join(d, "out"))).toBe(false);
  });

  it("a redirect: exit 1 naming where it points", async () => {
    const { d, input } = setup();
    const server = http.createServer((_req, res) => {
      res.writeHead(301, { location: "https://api.example.com/" });
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    closers.push(() => new Promise((r) => server.close(() => r())));
    const r = await runIn(d, { in: input, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }, env, { clock: new FakeClock() });
    expect(r.exitCode).toBe(1);
    expect(errors(r.logs)).toContainEqual(expect.stringContaining("the API answered 301 (a redirect to https://api.example.com/): check the base URL"));
    expect(summary(r.logs).stopReason).toBe("misconfigured");
    expect(r.counts!.failed).toBe(0);
    expect(existsSync(join(d, "out"))).toBe(false);
  });
});

describe("an outage stops the lookup after --outage-limit, with exit 3, and spends no retries while it lasts", () => {
  it("an API that answers only 503", async () => {
    const { d, input } = setup();
    const s = await sim({ unavailableRate: 1 });
    const clock = new FakeClock();
    const r = await runIn(d, { in: input, baseUrl: s.url, outageLimit: "15m" }, env, { clock });
    expect(r.exitCode).toBe(3);
    expect(summary(r.logs).stopReason).toBe("outage");
    expect(r.logs.join("\n")).toContain("stopped by an API outage: the API has failed (HTTP 503) for 15 min, past --outage-limit; a re-run resumes");
    // the postcodes not yet failed stay pending for the re-run; probing costs about one request per pause
    expect(r.counts!.pending).toBeGreaterThan(20);
    expect(r.counts!.requests).toBeLessThan(2 * (8 + 4 + 60));

    // the API is back: the same command resumes and finishes
    const healthy = await sim({});
    const again = await runIn(d, { in: input, baseUrl: healthy.url }, env, { clock });
    expect(again.exitCode).toBe(0);
    expect(r.counts!.failed).toBe(0);
    expect(again.counts).toMatchObject({ ok: 40, failed: 0, pending: 0 });
    expect(healthy.counters.total).toBe(r.counts!.pending);
  });

  it("an API that answers only 429 (Retry-After honoured)", async () => {
    const { d, input } = setup();
    const clock = new FakeClock();
    // one request a day: after the first, every answer is 429
    const s = await sim({ rateLimit: 1, rateWindowMs: 86_400_000, now: () => clock.now() });
    const r = await runIn(d, { in: input, baseUrl: s.url, lookups: "broadband", outageLimit: "2h" }, env, { clock });
    expect(r.exitCode).toBe(3);
    expect(summary(r.logs).stopReason).toBe("outage");
    // each wait is the day's remaining Retry-After (capped at 1 h): the one that outlasts --outage-limit ends the lookup
    expect(r.logs.join("\n")).toMatch(/stopped by an API outage: the server asked to wait Retry-After: \d+ \(60 min\), longer than the \d+ (s|min) left of --outage-limit 2 h/);
    // on main: 50 attempts per postcode before failing it
    expect(r.counts!.requests).toBeLessThan(40);
    expect(r.counts!.failed).toBe(0);
  });
});

describe("--outage-limit bounds every wait, a Retry-After included (issue 19.3)", () => {
  /** A server answering every request 429 with this Retry-After. */
  async function throttling(retryAfter: string): Promise<string> {
    const server = http.createServer((_req, res) => {
      res.writeHead(429, { "retry-after": retryAfter, "content-type": "application/json" });
      res.end(JSON.stringify({ statusCode: 429, message: "Rate limit is exceeded." }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    closers.push(() => new Promise((r) => server.close(() => r())));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** One postcode, broadband only, --outage-limit 1m, against a server answering 429 with `retryAfter`: exit 3, outage. */
  async function onePostcodeThrottled(postcode: string, retryAfter: string) {
    const { d } = setup();
    const clock = new FakeClock();
    const start = clock.now();
    const input = writeCsv(d, "one.csv", ["postcode", postcode]);
    const r = await runIn(d, { in: input, baseUrl: await throttling(retryAfter), lookups: "broadband", outageLimit: "1m" }, env, { clock });
    expect(r.exitCode).toBe(3);
    expect(summary(r.logs).stopReason).toBe("outage");
    return { r, log: r.logs.join("\n"), waited: clock.now() - start };
  }

  it("a Retry-After longer than the limit ends the lookup at once, exit 3, saying what the server asked for", async () => {
    const { r, log, waited } = await onePostcodeThrottled(known[0]!, "1000000000");
    expect(log).toContain(
      "broadband: stopped by an API outage: the server asked to wait Retry-After: 1000000000 (60 min), longer than the 60 s left of --outage-limit 60 s; a re-run resumes",
    );
    // on main: the lookup parks for the 1-hour cap, 50 times, and the postcode fails (exit 2)
    expect(r.counts!.requests).toBe(1);
    expect(waited).toBeLessThan(60_000);
    expect(r.counts).toMatchObject({ failed: 0, pending: 1 });
  });

  it("one postcode that only ever gets 429s counts: it stops once the waits reach the limit", async () => {
    const { r, log, waited } = await onePostcodeThrottled(known[1]!, "10");
    expect(log).toMatch(/the server asked to wait Retry-After: 10 \(10 s\), longer than the \d s left of --outage-limit 60 s/);
    // six waits of 10 s fit in the minute; on main 50 429s, then the postcode failed (exit 2)
    expect(r.counts!.requests).toBeLessThanOrEqual(7);
    expect(waited).toBeLessThanOrEqual(60_000);
  });
});

/** A simulator that closes after `answers` answers and listens again on its port `downMs` of virtual time later, with the clock that moves it. */
async function outageAfter(answers: number, downMs: number): Promise<{ port: number; clock: FakeClock; phase: () => "up" | "down" | "back" }> {
  let s = await sim({});
  const port = s.port;
  let phase: "up" | "down" | "back" = "up";
  const clock = new FakeClock();
  const sleep = clock.sleep.bind(clock);
  let downAt = 0;
  clock.sleep = async (ms, signal) => {
    if (phase === "up" && s.counters.total >= answers) {
      phase = "down";
      downAt = clock.now();
      await s.close();
    } else if (phase === "down" && clock.now() - downAt > downMs) {
      phase = "back";
      s = await sim({ port });
    }
    return sleep(ms, signal);
  };
  return { port, clock, phase: () => phase };
}

describe("an outage mid-run", () => {
  it("pauses, probes, and completes when the API is back, with every postcode answered and no retries spent on the wait", async () => {
    const { d, input } = setup();
    // the simulator goes down after 10 answers; it comes back 3 virtual minutes later
    const { port, clock, phase } = await outageAfter(10, 180_000);
    const r = await runIn(d, { in: input, baseUrl: `http://127.0.0.1:${port}`, rate: 600 }, env, { clock });
    expect(phase()).toBe("back");
    expect(r.exitCode, JSON.stringify(r.stats)).toBe(0);
    expect(r.counts).toMatchObject({ ok: 40, failed: 0, pending: 0 });
    // only attempts until the outage is recognised (6 in a row, plus those in flight) count as retries;
    // the 3 minutes of probing spend none (on main: every postcode spent its 5 retries and failed)
    expect(r.counts!.retries).toBeLessThanOrEqual(2 * (6 + 4));
    const warnings = r.logs.join("\n");
    expect(warnings).toContain("the API fails as a whole (refused on consecutive attempts across postcodes): pausing");
    expect(warnings).toMatch(/the API answers again after \d+ (s|min)/);
  });
});

describe("a network failure before the outage is recognised spends no retry", () => {
  it("with --retries 0 an outage mid-run still fails no postcode: the attempts of its run-up are held or given back", async () => {
    const { d, input } = setup();
    const { port, clock, phase } = await outageAfter(10, 60_000);
    const r = await runIn(d, { in: input, baseUrl: `http://127.0.0.1:${port}`, rate: 600, retries: 0 }, env, { clock });
    expect(phase()).toBe("back");
    // on main: every postcode whose attempt met a refused connection before the outage was
    // recognised (6 failures across 3 postcodes) failed at once, and the run exited 2
    expect(r.counts).toMatchObject({ ok: 40, failed: 0, pending: 0 });
    expect(r.exitCode, JSON.stringify(r.stats)).toBe(0);
  });
});
