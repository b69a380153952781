// --retries bounds the attempts at a postcode whatever the failure: a body over the size limit is the
// server answering (not the API unreachable), so it spends a retry like any failed answer; a
// connection reset or refused before the outage monitor can judge it holds the postcode (not sent
// again, not counted) until the monitor is settled. With --retries 0 each postcode is asked once.
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { squeezePostcode } from "../src/contract/postcode.js";
import { generatePostcode, generatePostcodes, startSimulator, type Simulator } from "../src/simulator/index.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { FakeClock } from "./helpers/fake-clock.js";

const KEY = "retry-bound-key-7Hq2-Zx9w";
const LIMIT = 64 * 1024;
const asked = new Map<string, number>();
let server: Server;
let url: string;
const dirs: string[] = [];

beforeAll(async () => {
  // every answer a body past the limit, half of them announced (Content-Length), half streamed
  server = createServer((req, res) => {
    const postcode = decodeURIComponent(/\/coverage\/([^/?]+)/.exec(req.url ?? "")?.[1] ?? "");
    asked.set(postcode, (asked.get(postcode) ?? 0) + 1);
    const body = Buffer.alloc(2 * LIMIT, "x");
    if (postcode.startsWith("SW")) res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
    else res.writeHead(200, { "content-type": "application/json" });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  server.close();
  await Promise.all(closers.map((c) => c()));
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

describe("the retry bound", () => {
  it("holds for bodies over the size limit: --retries N asks each postcode N + 1 times, and fails it", async () => {
    for (const retries of [0, 2]) {
      asked.clear();
      const d = tempDir("pcc-retry-bound-");
      dirs.push(d);
      const postcodes = ["SW1A 1AA", "CF10 1AA"];
      const r = await runIn(
        d,
        { in: writeCsv(d, "in.csv", ["postcode", ...postcodes]), baseUrl: url, lookups: "broadband", retries, probe: 0, reports: false, concurrency: 1 },
        { COVERAGE_API_KEY: KEY },
        { clock: new FakeClock(Date.UTC(2026, 2, 1, 2)), maxBodyBytes: LIMIT, rateWindowMs: 1e-6, rateMarginMs: 0 },
      );
      // on main: 7 requests a postcode (6 let off as "not yet judged" network failures), whatever --retries said
      expect(Object.fromEntries(asked), `--retries ${retries}`).toEqual({ SW1A1AA: retries + 1, CF101AA: retries + 1 });
      expect(r.counts).toMatchObject({ failed: 2, requests: 2 * (retries + 1), retries: 2 * retries });
    }
  });
});

const SEED = 11;
const known = generatePostcodes(SEED, 40).filter((p) => generatePostcode(SEED, p) !== null);

async function sim(resetRate: number): Promise<Simulator> {
  const s = await startSimulator({ seed: SEED, key: KEY, port: 0, resetRate });
  closers.push(() => s.close());
  return s;
}

/** A loopback proxy sending `victim`'s requests to `bad` and every other postcode's to `good`. */
async function route(victim: string, bad: Simulator, good: Simulator): Promise<string> {
  const proxy = createServer((req, res) => {
    const postcode = decodeURIComponent(/\/coverage\/([^/?]+)/.exec(req.url ?? "")?.[1] ?? "");
    const to = squeezePostcode(postcode) === squeezePostcode(victim) ? bad : good;
    const up = request(new URL(req.url ?? "/", to.url), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      // the simulator's reset (headers, part of the body, then the connection dropped) passes on as one
      answer.on("close", () => !answer.complete && res.destroy());
    });
    up.on("error", () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => proxy.close(() => resolve())));
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

async function run(postcodes: readonly string[], baseUrl: string, retries: number, concurrency: number) {
  const d = tempDir("pcc-retry-bound-");
  dirs.push(d);
  return runIn(
    d,
    { in: writeCsv(d, "in.csv", ["postcode", ...postcodes]), baseUrl, lookups: "broadband", retries, probe: 0, reports: false, concurrency },
    { COVERAGE_API_KEY: KEY },
    { clock: new FakeClock(Date.UTC(2026, 2, 1, 2)), rateWindowMs: 1e-6, rateMarginMs: 0 },
  );
}

describe("the retry bound holds for connection failures", () => {
  it("a postcode whose connection always resets, among postcodes that answer: --retries N sends it exactly N + 1 requests, then fails it", async () => {
    const [victim, ...others] = known.slice(0, 6) as [string, ...string[]];
    for (const retries of [0, 2])
      for (const concurrency of [1, 4]) {
        const bad = await sim(1);
        const good = await sim(0);
        const r = await run([victim, ...others], await route(victim, bad, good), retries, concurrency);
        const what = `--retries ${retries} --concurrency ${concurrency}`;
        // on main: up to 6 requests before it failed, the first ones "not yet judged" and free
        expect(bad.counters.requests.broadband, what).toBe(retries + 1);
        expect(bad.counters.resets, what).toBe(retries + 1);
        expect(good.counters.requests.broadband, what).toBe(others.length);
        expect(r.counts, what).toMatchObject({ ok: others.length, failed: 1, pending: 0, requests: others.length + retries + 1, retries });
        expect(r.exitCode, what).toBe(2);
      }
  });

  it("an API that resets every connection, too few postcodes to call it an outage: each is sent at most N + 1 requests", async () => {
    for (const retries of [0, 2]) {
      const bad = await sim(1);
      const r = await run(known.slice(0, 2), bad.url, retries, 4);
      // on main: 7 requests in all at --retries 0 (the free attempts ran until the streak was judged)
      expect(bad.counters.requests.broadband, `--retries ${retries}`).toBe(2 * (retries + 1));
      expect(r.counts, `--retries ${retries}`).toMatchObject({ failed: 2, pending: 0, requests: 2 * (retries + 1) });
    }
  });

  it("a refused connection with --retries 0 is sent once, and with nothing else to judge by is a wrong address: exit 1, the postcode kept for the next run", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const r = await run(known.slice(0, 1), `http://127.0.0.1:${port}`, 0, 4);
    // on main: 3 requests (two of them free) before the address was called wrong
    expect(r.counts).toMatchObject({ requests: 1, failed: 0, pending: 1 });
    expect(r.exitCode).toBe(1);
    expect(r.logs.join("\n")).toContain(`cannot reach the API: refused from http://127.0.0.1:${port}/ on every attempt so far: check --base-url`);
  });
});
