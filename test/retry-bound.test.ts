// --retries bounds the attempts at a postcode whatever the failure: a body over the size limit is the
// server answering (not the API unreachable), so it spends a retry like any failed answer, and with
// --retries 0 each postcode is asked once.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
afterAll(() => {
  server.close();
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
