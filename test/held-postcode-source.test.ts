// A postcode held for the outage monitor's judgement keeps its claim until it is judged. In team
// mode the run's source of postcodes can wait on another run's claims, and that run on this one's:
// while the source waits, the held postcode is judged as nothing of this run's can settle it, and
// takes a slot back, so the wait ends. Real HTTP over loopback, an injected clock.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { emptyStats, fetchLookup, type PostcodeSource } from "../src/fetch/fetch-lookup.js";
import { createHttpClient } from "../src/fetch/http-client.js";
import { Pacer } from "../src/fetch/pacer.js";
import { StopControl } from "../src/fetch/stop.js";
import { RequestBudget } from "../src/fetch/budget.js";
import { DEFAULT_BACKOFF } from "../src/fetch/backoff.js";
import type { FinalRecord } from "../src/contract/records.js";
import { FakeClock } from "./helpers/fake-clock.js";

const servers: Server[] = [];
afterAll(() => servers.forEach((s) => s.close()));

/** A server that resets the connection of every request: a network failure the monitor cannot judge from one postcode. */
async function resettingServer(): Promise<{ url: URL; requests: () => number }> {
  let n = 0;
  const server = createServer((req) => {
    n++;
    req.socket.destroy();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), requests: () => n };
}

/**
 * One postcode, then a wait on "another run" that ends only once that postcode's answer is final
 * (the other run waits on its claim), as the claimed pairs wait on other runs' claims.
 */
function waitingSource(postcode: string, finals: Map<string, FinalRecord>): PostcodeSource & { waits: number } {
  let listener: (() => void) | undefined;
  const source = {
    waits: 0,
    onWaiting(l: () => void) {
      listener = l;
    },
    async *[Symbol.asyncIterator]() {
      yield postcode;
      while (!finals.has(postcode)) {
        source.waits++;
        listener?.();
        await new Promise((resolve) => setImmediate(resolve));
        if (source.waits > 10_000) throw new Error("the source waited for ever on the held postcode's claim");
      }
    },
  };
  return source;
}

describe("a held postcode while the source waits on another run", () => {
  it.each([1, 4])("is judged and answered at --concurrency %i, within --retries, and the wait ends", async (concurrency) => {
    const server = await resettingServer();
    const clock = new FakeClock();
    const finals = new Map<string, FinalRecord>();
    const http = createHttpClient({ maxSockets: 4, timeoutMs: 10_000, maxBodyBytes: 1 << 20 });
    try {
      const source = waitingSource("AB12CD", finals);
      await fetchLookup(source, {
        lookup: "broadband",
        baseUrl: server.url,
        key: "k-held-test",
        providers: [],
        concurrency,
        retries: 1,
        backoff: DEFAULT_BACKOFF,
        outageLimitMs: 15 * 60_000,
        runId: 1,
        http,
        pacer: new Pacer({ rate: 1000, windowMs: 60_000 }, clock),
        clock,
        random: () => 0.5,
        budget: new RequestBudget(null),
        stop: new StopControl(),
        stats: emptyStats(),
        redact: (t) => t,
        onFinal: (record) => void finals.set(record.postcode, record),
      });
      expect(source.waits).toBeGreaterThan(0);
      expect(finals.get("AB12CD")?.status).toBe("failed");
      // --retries 1: the first attempt and one retry, never a free one more
      expect(server.requests()).toBe(2);
    } finally {
      http.close();
    }
  });
});
