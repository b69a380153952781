// The one place a lookup's fetch options are made: which key it sends, the defaults the run falls
// back on, whether its product answered before, and where its log notes go.
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_BACKOFF } from "../src/fetch/backoff.js";
import { RequestBudget } from "../src/fetch/budget.js";
import { systemClock } from "../src/fetch/clock.js";
import { emptyStats } from "../src/fetch/fetch-lookup.js";
import { createHttpClient, type HttpClient } from "../src/fetch/http-client.js";
import { Pacer } from "../src/fetch/pacer.js";
import { StopControl } from "../src/fetch/stop.js";
import { createLogger } from "../src/log/logger.js";
import type { Lookup } from "../src/contract/fields.js";
import { fetchOptionsFor, keyFor, type FetchSettings, type LookupFetchParts } from "../src/pipeline/fetch-options.js";

const settings: FetchSettings = { keys: { broadband: "configured-broadband-key", mobile: "configured-mobile-key" }, providers: ["EE", "O2"], concurrency: 3, retries: 4, outageLimit: 600_000 };

let http: HttpClient | undefined;
afterEach(() => http?.close());

function parts(over: Partial<LookupFetchParts> = {}, logs: string[] = []): LookupFetchParts {
  http = createHttpClient({ maxSockets: 1, timeoutMs: 1000, maxBodyBytes: 1024 });
  return {
    runId: 7,
    api: { baseUrl: new URL("http://127.0.0.1:9/") },
    http,
    clock: systemClock,
    budget: new RequestBudget(null),
    stop: new StopControl(),
    log: createLogger({ format: "json", quiet: false, verbose: true, write: (l) => logs.push(l) }),
    answered: new Set<Lookup>(),
    pacer: new Pacer({ rate: 60, windowMs: 60_000 }, systemClock),
    stats: emptyStats(),
    onFinal: () => {},
    onRequest: undefined,
    lookupBudget: undefined,
    ...over,
  };
}

describe("fetchOptionsFor", () => {
  it("sends the lookup's configured key, or the simulator's own when it has one", () => {
    expect(fetchOptionsFor("mobile", settings, {}, parts()).key).toBe("configured-mobile-key");
    expect(fetchOptionsFor("broadband", settings, {}, parts()).key).toBe("configured-broadband-key");
    expect(fetchOptionsFor("mobile", settings, {}, parts({ api: { baseUrl: new URL("http://127.0.0.1:9/"), key: "simulator-key" } })).key).toBe("simulator-key");
    expect(() => keyFor({}, { broadband: "b" }, "mobile")).toThrow("no key for the mobile lookup");
  });

  it("carries the run's settings, with the default backoff and randomness unless the batch gives its own", () => {
    const plain = fetchOptionsFor("broadband", settings, {}, parts());
    expect(plain).toMatchObject({ lookup: "broadband", providers: ["EE", "O2"], concurrency: 3, retries: 4, outageLimitMs: 600_000, runId: 7 });
    expect(plain.backoff).toBe(DEFAULT_BACKOFF);
    expect(plain.random).toBe(Math.random);
    const backoff = { baseMs: 1, capMs: 2 };
    const random = () => 0.25;
    const given = fetchOptionsFor("broadband", settings, { backoff, random }, parts());
    expect(given.backoff).toBe(backoff);
    expect(given.random).toBe(random);
  });

  it("knows the product answered before when the store says it did", () => {
    const answered = new Set<Lookup>(["broadband"]);
    expect(fetchOptionsFor("broadband", settings, {}, parts({ answered })).productKnown).toBe(true);
    expect(fetchOptionsFor("mobile", settings, {}, parts({ answered })).productKnown).toBe(false);
  });

  it("logs an outage as a warning naming the lookup, a retry at debug; masks the run's secrets", () => {
    const logs: string[] = [];
    const p = parts({}, logs);
    (p.log as ReturnType<typeof createLogger>).addSecret("Zq7xW2vK9pLm4T");
    const o = fetchOptionsFor("mobile", settings, {}, p);
    o.onEvent?.({ level: "warn", message: "mobile: the API fails as a whole" });
    o.onEvent?.({ level: "debug", message: "mobile AB1 2CD: HTTP 500; retry 1 in 500 ms" });
    const lines = logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({ level: "warn", message: "mobile: the API fails as a whole", event: "outage", lookup: "mobile" }),
      expect.objectContaining({ level: "debug", message: "mobile AB1 2CD: HTTP 500; retry 1 in 500 ms" }),
    ]);
    expect(lines[1]).not.toHaveProperty("event");
    expect(o.redact("body holds Zq7xW2vK9pLm4T")).not.toContain("Zq7xW2vK9pLm4T");
    expect(o.holdsSecret?.("body holds Zq7xW2vK9pLm4T")).toBe(true);
  });
});
