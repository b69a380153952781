// A product that closes stops alone: the simulator closes the mobile product (its gateway answers
// every mobile path 404 with its own body); a list whose mobile answers are stored stops mobile
// with one line, broadband runs to its end and its reports are written, and the run exits 1.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, describe, expect, it } from "vitest";
import { generatePostcodes, startSimulator } from "../src/simulator/index.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { FakeClock } from "./helpers/fake-clock.js";
import { withStore } from "./helpers/stored.js";

const KEY = "zq-0b7e-44Az-91kw-x7Tg";
const SEED = 31;
const env = { COVERAGE_API_KEY: KEY };
const DAY = 24 * 3600 * 1000;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const events = (logs: string[]) => logs.map((l) => JSON.parse(l) as Record<string, unknown>);

describe("a product that closes", () => {
  it("stops that lookup alone with one line; the other runs to its end, its reports are written; exit 1, stop reason closed", async () => {
    const d = tempDir("pcc-closed-");
    dirs.push(d);
    const all = generatePostcodes(SEED, 30);
    const clock = new FakeClock(Date.parse("2026-11-01T02:00:00Z"));
    const open = await startSimulator({ port: 0, seed: SEED, key: KEY });
    try {
      expect((await runIn(d, { in: writeCsv(d, "in.csv", ["postcode", ...all.slice(0, 10)]), baseUrl: open.url, reports: false }, env, { clock })).exitCode).toBe(0);
    } finally {
      await open.close();
    }
    clock.t += DAY;
    const closed = await startSimulator({ port: 0, seed: SEED, key: KEY, closed: ["mobile"] });
    try {
      const r = await runIn(d, { in: writeCsv(d, "in.csv", ["postcode", ...all]), baseUrl: closed.url, concurrency: 1 }, env, { clock });
      expect(r.exitCode).toBe(1);
      const log = events(r.logs);
      const stops = log.filter((e) => e.event === "stop");
      expect(stops).toHaveLength(1);
      expect(stops[0]).toMatchObject({ level: "error", stopReason: "closed" });
      expect(String(stops[0]!.message)).toMatch(/^mobile: the mobile product appears closed \(the API answered 404 .*Resource not found.*\); the other lookup goes on; see docs\/running.md#a-product-that-closes$/);
      expect(log.find((e) => e.event === "summary")).toMatchObject({ exitCode: 1, stopReason: "closed" });
      // mobile stopped at its first 404; broadband fetched every new postcode
      expect(closed.counters.requests.mobile).toBe(1);
      expect(r.counts).toMatchObject({ pending: 20 });
      const postcodes = parse(readFileSync(join(d, "out", "postcodes.csv")), { columns: true, bom: true }) as Record<string, string>[];
      expect(postcodes).toHaveLength(30);
      expect(postcodes.every((p) => p.BroadbandStatus === "ok" || p.BroadbandStatus === "not_found")).toBe(true);
      expect(postcodes.filter((p) => p.MobileStatus === "pending")).toHaveLength(20);
    } finally {
      await closed.close();
    }
  });

  /** A database holding both lookups' answers of `stored`, as a night against the open service leaves it; the clock then a day on. */
  async function nightBeforeClosing(stored: readonly string[]): Promise<{ d: string; clock: FakeClock }> {
    const d = tempDir("pcc-closed-");
    dirs.push(d);
    const clock = new FakeClock(Date.parse("2026-11-01T02:00:00Z"));
    const open = await startSimulator({ port: 0, seed: SEED, key: KEY });
    try {
      expect((await runIn(d, { in: writeCsv(d, "first.csv", ["postcode", ...stored]), baseUrl: open.url, reports: false }, env, { clock })).exitCode).toBe(0);
    } finally {
      await open.close();
    }
    clock.t += DAY;
    return { d, clock };
  }

  it("stays a closure once the retention has deleted the product's answers: the other lookup runs to its end", async () => {
    const list = generatePostcodes(SEED, 10);
    const { d, clock } = await nightBeforeClosing(list);
    clock.t += 30 * DAY;
    const closed = await startSimulator({ port: 0, seed: SEED, key: KEY, closed: ["mobile"] });
    try {
      const r = await runIn(d, { in: writeCsv(d, "in.csv", ["postcode", ...list]), baseUrl: closed.url, reports: false, concurrency: 1 }, env, { clock });
      expect(await withStore(join(d, "coverage.sqlite"), (s) => s.answers.get(list[0]!, "mobile"))).toBeNull();
      expect(events(r.logs).find((e) => e.event === "summary")).toMatchObject({ exitCode: 1, stopReason: "closed" });
      expect(closed.counters.requests).toEqual({ broadband: 10, mobile: 1 });
    } finally {
      await closed.close();
    }
  });

  it("stays a closure on a list of postcodes the database has never held", async () => {
    const all = generatePostcodes(SEED, 30);
    const { d, clock } = await nightBeforeClosing(all.slice(0, 10));
    const closed = await startSimulator({ port: 0, seed: SEED, key: KEY, closed: ["mobile"] });
    try {
      const r = await runIn(d, { in: writeCsv(d, "new.csv", ["postcode", ...all.slice(10)]), baseUrl: closed.url, reports: false, concurrency: 1 }, env, { clock });
      expect(events(r.logs).find((e) => e.event === "summary")).toMatchObject({ exitCode: 1, stopReason: "closed" });
      expect(closed.counters.requests).toEqual({ broadband: 20, mobile: 1 });
    } finally {
      await closed.close();
    }
  });

  it("a product never seen to answer that gives the gateway's 404 is a wrong base URL: the whole run stops", async () => {
    const d = tempDir("pcc-closed-");
    dirs.push(d);
    const closed = await startSimulator({ port: 0, seed: SEED, key: KEY, closed: ["mobile"] });
    const clock = new FakeClock(Date.parse("2026-11-01T02:00:00Z"));
    const input = writeCsv(d, "in.csv", ["postcode", ...generatePostcodes(SEED, 5)]);
    try {
      const r = await runIn(d, { in: input, baseUrl: closed.url, concurrency: 1 }, env, { clock });
      expect(r.exitCode).toBe(1);
      expect(events(r.logs).find((e) => e.event === "summary")).toMatchObject({ stopReason: "misconfigured" });
      // the ledger's record of that 404 is no answer: the next night says the same
      clock.t += DAY;
      const again = await runIn(d, { in: input, baseUrl: closed.url, concurrency: 1 }, env, { clock });
      expect(events(again.logs).find((e) => e.event === "summary")).toMatchObject({ stopReason: "misconfigured" });
    } finally {
      await closed.close();
    }
  });

  describe("both products answering the gateway's 404 to the first requests of a night", () => {
    /** A database whose broadband and mobile answers are stored, as a night against the open service leaves it. */
    async function answeredBefore(): Promise<{ d: string; clock: FakeClock; input: string }> {
      const d = tempDir("pcc-closed-");
      dirs.push(d);
      const clock = new FakeClock(Date.parse("2026-11-01T02:00:00Z"));
      const input = writeCsv(d, "in.csv", ["postcode", ...generatePostcodes(SEED, 12)]);
      const open = await startSimulator({ port: 0, seed: SEED, key: KEY });
      try {
        expect((await runIn(d, { in: writeCsv(d, "first.csv", ["postcode", ...generatePostcodes(SEED, 4)]), baseUrl: open.url, reports: false }, env, { clock })).exitCode).toBe(0);
      } finally {
        await open.close();
      }
      clock.t += DAY;
      return { d, clock, input };
    }

    it("is a wrong base URL, not two closures: the run stops as misconfigured, naming both lookups", async () => {
      const { d, clock, input } = await answeredBefore();
      const closed = await startSimulator({ port: 0, seed: SEED, key: KEY, closed: ["broadband", "mobile"] });
      try {
        const r = await runIn(d, { in: input, baseUrl: closed.url, concurrency: 1 }, env, { clock });
        expect(r.exitCode).toBe(1);
        const summary = events(r.logs).find((e) => e.event === "summary");
        expect(summary).toMatchObject({ exitCode: 1, stopReason: "misconfigured" });
        expect(String(summary!.message)).toMatch(/\(broadband and mobile: every lookup met the gateway's 404 on its first requests .*check the base URL/);
      } finally {
        await closed.close();
      }
    });

    it("unless the gateway says 410 Gone: then both products closed", async () => {
      const { d, clock, input } = await answeredBefore();
      const server = http.createServer((_req, res) => {
        res.writeHead(410, { "content-type": "application/json" });
        res.end(JSON.stringify({ statusCode: 410, message: "This API has been retired" }));
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      try {
        const r = await runIn(d, { in: input, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, concurrency: 1 }, env, { clock });
        expect(r.exitCode).toBe(1);
        expect(events(r.logs).find((e) => e.event === "summary")).toMatchObject({ exitCode: 1, stopReason: "closed" });
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });
});
