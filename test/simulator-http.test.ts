// The simulator over real loopback HTTP: bodies against schemas derived from the spec, determinism,
// postcode handling, the gateway (keys, rate limit, quota, unknown paths), every fault, counters.
import { squeezePostcode } from "../src/contract/postcode.js";
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { parentPid, processAlive } from "../src/store/process-identity.js";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  GENERAL_ERROR_MESSAGE,
  INVALID_KEY_MESSAGE,
  LIVE_DB_NAME,
  MALFORMED_KINDS,
  MISSING_KEY_MESSAGE,
  NOT_FOUND_MESSAGE,
  generatePostcode,
  generatePostcodes,
  okBodyText,
  startSimulator,
  type MalformedKind,
  type Simulator,
  type SimulatorOptions,
} from "../src/simulator/index.js";
import { DEFAULT_PROVIDERS, LOOKUPS, SPEED_FIELDS, mobileFields, type Lookup } from "../src/contract/fields.js";
import { lookupPath, type Dialect } from "../src/contract/types.js";
import { KEY, coverageSchemas, get, json, rawGet, type Reply } from "./simulator-helpers.js";
import { scriptArgs } from "./helpers/compiled-tree.js";

const SEED = 11;
const JSON_TYPE = "application/json; charset=utf-8";
const postcodes = generatePostcodes(SEED, 200);
const known = postcodes.filter((p) => generatePostcode(SEED, p) !== null);
const unknown = postcodes.filter((p) => generatePostcode(SEED, p) === null);
/** Postcodes with several hundred addresses (about 1 in 100), found among more candidates. */
const large = generatePostcodes(SEED, 1500).filter((p) => (generatePostcode(SEED, p)?.addresses.length ?? 0) > 60).slice(0, 2);
/** The body the dataset says a known postcode has. */
const expected = (lookup: Lookup, dialect: Dialect, p: string) => okBodyText(lookup, dialect, generatePostcode(SEED, p)!, DEFAULT_PROVIDERS);

const sims: Simulator[] = [];
async function sim(options: Partial<SimulatorOptions> = {}): Promise<Simulator> {
  const s = await startSimulator({ port: 0, seed: SEED, ...options });
  sims.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(sims.splice(0).map((s) => s.close()));
});

function expectJson(r: Reply, status: number, body: unknown): void {
  expect({ status: r.status, type: r.headers.get("content-type"), body: json(r) }).toEqual({ status, type: JSON_TYPE, body });
  expect(r.headers.get("content-length")).toBe(String(Buffer.byteLength(r.text)));
}

const gatewayBody = (statusCode: number, message: string) => ({ statusCode, message });

describe("200 bodies", () => {
  it.each(["spec", "live"] as const)("every 200 body validates against the spec's schema (%s dialect) and is the dataset's", async (dialect) => {
    const s = await sim({ dialect });
    const schemas = coverageSchemas(dialect);
    expect(known.length).toBeGreaterThan(180);
    expect(unknown.length).toBeGreaterThan(0);
    const invalid: string[] = [];
    const sample = [...known.slice(0, 120), ...large];
    expect(large).toHaveLength(2);
    let sizes = 0;
    const check = async (p: string, lookup: Lookup) => {
      const r = await get(s.url, lookupPath(lookup, p));
      expect(r.status, `${lookup} ${p}`).toBe(200);
      expect(r.headers.get("content-type")).toBe(JSON_TYPE);
      const body = json(r);
      const validate = schemas[lookup];
      if (!validate(body)) invalid.push(`${lookup} ${p}: ${JSON.stringify(validate.errors?.slice(0, 2))}`);
      expect(r.text).toBe(expected(lookup, dialect, p));
      const top = (Array.isArray(body) ? body[0] : body) as { PostCode: string; Count?: number; DBName?: string; Availability: { PostCode: string }[] };
      expect(top.PostCode).toBe(squeezePostcode(p));
      expect(new Set(top.Availability.map((a) => a.PostCode))).toEqual(new Set([squeezePostcode(p)]));
      if (dialect === "live" && lookup === "broadband") expect(top.Count).toBe(top.Availability.length);
      if (dialect === "live" && lookup === "mobile") expect(top.DBName).toBe(LIVE_DB_NAME);
      sizes += top.Availability.length;
    };
    for (let i = 0; i < sample.length; i += 8) await Promise.all(sample.slice(i, i + 8).flatMap((p) => LOOKUPS.map((l) => check(p, l))));
    expect(sizes).toBeGreaterThan(2 * 120 * 10);
    expect(invalid).toEqual([]);
  });

  it("spec bodies carry no field the spec does not list; live bodies carry Count, DBName and extras", async () => {
    const spec = await sim({ dialect: "spec" });
    const live = await sim({ dialect: "live" });
    const p = known[0]!;
    const item = ["UPRN", "AddressShortDescription", "PostCode"];
    const sb = json(await get(spec.url, lookupPath("broadband", p))) as { Availability: object[] };
    expect(Object.keys(sb)).toEqual(["PostCode", "Availability"]);
    expect(Object.keys(sb.Availability[0]!)).toEqual([...item, ...SPEED_FIELDS]);
    const sm = json(await get(spec.url, lookupPath("mobile", p))) as { Availability: object[] }[];
    expect(sm).toHaveLength(1);
    expect(Object.keys(sm[0]!)).toEqual(["PostCode", "Availability"]);
    expect(Object.keys(sm[0]!.Availability[0]!)).toEqual([...item, ...mobileFields()]);
    const lb = json(await get(live.url, lookupPath("broadband", p))) as Record<string, unknown>;
    expect(Object.keys(lb)).toEqual(expect.arrayContaining(["PostCode", "Count", "Availability"]));
    expect(Object.keys(lb).length).toBeGreaterThan(3);
    const lm = json(await get(live.url, lookupPath("mobile", p))) as { Availability: object[] };
    expect(Array.isArray(lm)).toBe(false);
    expect(Object.keys(lm)).toEqual(expect.arrayContaining(["PostCode", "DBName", "Availability"]));
    expect(Object.keys(lm.Availability[0]!).length).toBeGreaterThan(item.length + mobileFields().length);
  });

  it("both lookups list the same addresses in the same order", async () => {
    const s = await sim();
    for (const p of known.slice(0, 30)) {
      const [b, m] = await Promise.all(LOOKUPS.map(async (l) => json(await get(s.url, lookupPath(l, p))) as { Availability: { UPRN: number; AddressShortDescription: string }[] }));
      const pairs = (x: typeof b) => x!.Availability.map((a) => [a.UPRN, a.AddressShortDescription]);
      expect(pairs(m)).toEqual(pairs(b));
    }
  });

  it("sends 12-digit UPRNs above 2^31 as exact JSON integers, and descriptions with Welsh letters, quotes and formula starts", async () => {
    const s = await sim();
    const texts: string[] = [];
    const uprns: string[] = [];
    for (const p of [...known.slice(0, 100), ...large]) {
      const r = await get(s.url, lookupPath("broadband", p));
      for (const m of r.text.matchAll(/"UPRN":(\d+)/g)) uprns.push(m[1]!);
      texts.push(...(json(r) as { Availability: { AddressShortDescription: string }[] }).Availability.map((a) => a.AddressShortDescription));
    }
    expect(uprns.filter((u) => u.length === 12 && Number(u) > 2 ** 31).length).toBeGreaterThan(uprns.length / 2);
    expect(texts.some((t) => /[ŵŷ]/.test(t))).toBe(true);
    expect(texts.some((t) => t.includes('"'))).toBe(true);
    expect(texts.some((t) => /^[=+\-@]/.test(t))).toBe(true);
  });
});

describe("determinism", () => {
  it("gives the same bytes for the same seed and postcode from two simulators; another seed differs", async () => {
    const a = await sim({ seed: "abc" });
    const b = await sim({ seed: "abc" });
    const c = await sim({ seed: "abd" });
    let differs = 0;
    for (const p of postcodes.slice(0, 25))
      for (const lookup of LOOKUPS) {
        const path = lookupPath(lookup, p);
        const [ra, rb, rc] = await Promise.all([get(a.url, path), get(b.url, path), get(c.url, path)]);
        expect(rb.status).toBe(ra.status);
        expect(rb.text).toBe(ra.text);
        if (rc.text !== ra.text) differs++;
      }
    expect(differs).toBeGreaterThan(40);
  });
});

describe("the path postcode", () => {
  it("is read in any letter case, with or without its space", async () => {
    const s = await sim();
    const p = known.find((x) => x.length === 8)!; // e.g. "SW1A 2AA": outward code of 4
    const [outward, inward] = p.split(" ") as [string, string];
    const sent = [
      `/${outward}${inward}`,
      `/${outward}%20${inward}`,
      `/${outward.toLowerCase()}%20${inward.toLowerCase()}`,
      `/${outward.toLowerCase()}${inward}`,
      `/${outward[0]!.toLowerCase()}${outward.slice(1)}%20${inward}`,
      `/%20${outward}%20%20${inward}%20`,
    ];
    for (const lookup of LOOKUPS)
      for (const tail of sent) {
        const r = await get(s.url, `/${lookup}/coverage${tail}`);
        expect(r.status, tail).toBe(200);
        expect(r.text, tail).toBe(expected(lookup, "live", p));
      }
  });

  it.each([
    ["live", "not%20a%20postcode", { PostCode: "not a postcode", Error: NOT_FOUND_MESSAGE }],
    ["live", "ZZ99", { PostCode: "ZZ99", Error: NOT_FOUND_MESSAGE }],
    ["spec", "not%20a%20postcode", { PostCode: "NOTAPOS", ErrorMessage: NOT_FOUND_MESSAGE }],
    ["spec", "%E2%82%AC99", { PostCode: "€99", ErrorMessage: NOT_FOUND_MESSAGE }],
    ["spec", "%E2%82%ZZ", { PostCode: "%E2%82%", ErrorMessage: NOT_FOUND_MESSAGE }], // a broken escape is kept as sent
  ] as const)("a string that is no UK postcode answers 404 with the %s not-found body (%s)", async (dialect, segment, body) => {
    const s = await sim({ dialect });
    for (const lookup of LOOKUPS) expectJson(await get(s.url, `/${lookup}/coverage/${segment}`), 404, body);
  });

  it("an unknown postcode answers 404: live echoes the caller's spacing, spec sends it compact", async () => {
    const live = await sim({ dialect: "live" });
    const spec = await sim({ dialect: "spec" });
    const p = unknown[0]!;
    const lower = p.toLowerCase();
    for (const lookup of LOOKUPS) {
      expectJson(await get(live.url, lookupPath(lookup, p)), 404, { PostCode: p, Error: NOT_FOUND_MESSAGE });
      expectJson(await get(live.url, lookupPath(lookup, lower)), 404, { PostCode: lower, Error: NOT_FOUND_MESSAGE });
      expectJson(await get(spec.url, lookupPath(lookup, lower)), 404, { PostCode: squeezePostcode(p), ErrorMessage: NOT_FOUND_MESSAGE });
      expect(coverageSchemas("spec").notFound(json(await get(spec.url, lookupPath(lookup, p))))).toBe(true);
    }
  });
});

describe("gateway: keys", () => {
  it("accepts the key in the header or in the subscription-key query parameter", async () => {
    const s = await sim({ key: "k-123" });
    const p = lookupPath("broadband", known[0]!);
    expect((await get(s.url, p, { key: "k-123" })).status).toBe(200);
    expect((await get(s.url, p, { key: "k-123", viaQuery: true })).status).toBe(200);
    expect((await get(s.url, `${p}?other=1&subscription-key=k-123`, { key: null })).status).toBe(200);
  });

  it("answers a missing key with 401 and the gateway's missing-key body", async () => {
    const s = await sim({ key: "k-123" });
    for (const lookup of LOOKUPS) {
      const path = lookupPath(lookup, known[0]!);
      expectJson(await get(s.url, path, { key: null }), 401, gatewayBody(401, MISSING_KEY_MESSAGE));
      expectJson(await get(s.url, path, { key: "" }), 401, gatewayBody(401, MISSING_KEY_MESSAGE));
      expectJson(await get(s.url, `${path}?subscription-key=`, { key: null }), 401, gatewayBody(401, MISSING_KEY_MESSAGE));
    }
    expect(MISSING_KEY_MESSAGE).toMatch(/^Access denied due to missing subscription key\. /);
    expect(s.counters.unauthorized).toBe(6);
  });

  it("answers a wrong key with 401 and the gateway's invalid-key body, in header or query", async () => {
    const s = await sim({ key: "k-123" });
    const path = lookupPath("mobile", known[0]!);
    expectJson(await get(s.url, path, { key: "k-124" }), 401, gatewayBody(401, INVALID_KEY_MESSAGE));
    expectJson(await get(s.url, path, { key: "K-123", viaQuery: true }), 401, gatewayBody(401, INVALID_KEY_MESSAGE));
    expect(INVALID_KEY_MESSAGE).toMatch(/^Access denied due to invalid subscription key\. /);
    expect(s.counters.byLookup.mobile).toEqual({ 401: 2 });
  });

  it("with a separate mobile key, each lookup takes only its own key", async () => {
    const s = await sim({ key: "bb-key", mobileKey: "mob-key" });
    const p = known[0]!;
    expect((await get(s.url, lookupPath("broadband", p), { key: "bb-key" })).status).toBe(200);
    expect((await get(s.url, lookupPath("mobile", p), { key: "mob-key" })).status).toBe(200);
    expectJson(await get(s.url, lookupPath("mobile", p), { key: "bb-key" }), 401, gatewayBody(401, INVALID_KEY_MESSAGE));
    expectJson(await get(s.url, lookupPath("broadband", p), { key: "mob-key" }), 401, gatewayBody(401, INVALID_KEY_MESSAGE));
  });
});

describe("gateway: unknown paths", () => {
  it("answers anything but the two lookups with the gateway's 404", async () => {
    const s = await sim();
    const p = squeezePostcode(known[0]!);
    const paths = ["/", "/broadband", "/broadband/coverage/", `/broadband/coverage/${p}/extra`, `/mobile/other/${p}`, `/Broadband/coverage/${p}`, `/fixed/coverage/${p}`];
    for (const path of paths) expectJson(await get(s.url, path), 404, gatewayBody(404, "Resource not found"));
    // without a key too: the gateway matches the operation first
    expectJson(await get(s.url, "/nothing", { key: null }), 404, gatewayBody(404, "Resource not found"));
    const post = await fetch(`${s.url}/broadband/coverage/${p}`, { method: "POST", headers: { "Ocp-Apim-Subscription-Key": KEY } });
    expect(post.status).toBe(404);
    expect(await post.json()).toEqual(gatewayBody(404, "Resource not found"));
    expect(s.counters.unmatched).toBe(paths.length + 2);
    expect(s.counters.requests).toEqual({ broadband: 0, mobile: 0 });
  });
});

describe("gateway: rate limit", () => {
  it("is a sliding window per key and lookup: 429 with Retry-After and the gateway's body", async () => {
    let now = 1_700_000_000_000;
    const t0 = now;
    const s = await sim({ rateLimit: 3, rateWindowMs: 60_000, now: () => now });
    const bb = lookupPath("broadband", known[0]!);
    const at = async (ms: number, path = bb) => {
      now = t0 + ms;
      return get(s.url, path);
    };
    const throttled = (r: Reply, seconds: number) => {
      expectJson(r, 429, gatewayBody(429, `Rate limit is exceeded. Try again in ${seconds} seconds.`));
      expect(r.headers.get("retry-after")).toBe(String(seconds));
    };

    expect((await at(0)).status).toBe(200);
    expect((await at(10_000)).status).toBe(200);
    expect((await at(20_000)).status).toBe(200);
    throttled(await at(30_000), 30); // the oldest (t0) leaves the window at t0 + 60 s
    expect(s.counters.earlyRetries).toBe(0);
    // mobile has its own window
    expect((await at(30_000, lookupPath("mobile", known[0]!))).status).toBe(200);
    throttled(await at(40_000), 20); // came back before its Retry-After: counted
    expect(s.counters.earlyRetries).toBe(1);
    // sliding, not fixed: at t0 + 60 s one slot is free, the next frees at t0 + 70 s
    expect((await at(60_000)).status).toBe(200);
    throttled(await at(60_000), 10);
    expect(s.counters.earlyRetries).toBe(1); // t0 + 60 s is when it was told to come back
    expect((await at(70_000)).status).toBe(200);
    expect((await at(80_000)).status).toBe(200);
    throttled(await at(80_001), 40); // the oldest now is the one admitted at t0 + 60 s

    expect(s.counters.throttled).toBe(4);
    expect(s.counters.byLookup.broadband).toEqual({ 200: 6, 429: 4 });
    expect(s.counters.byLookup.mobile).toEqual({ 200: 1 });
  });

  it("keeps a window per key: with a separate mobile key, each lookup's key is limited on its own", async () => {
    let now = 5_000_000;
    const s = await sim({ key: "bb", mobileKey: "mob", rateLimit: 1, rateWindowMs: 1_000, now: () => now });
    const p = known[0]!;
    expect((await get(s.url, lookupPath("broadband", p), { key: "bb" })).status).toBe(200);
    expect((await get(s.url, lookupPath("mobile", p), { key: "mob" })).status).toBe(200);
    expect((await get(s.url, lookupPath("broadband", p), { key: "bb" })).status).toBe(429);
    // a wrong key is refused before the limit and uses none of it
    expect((await get(s.url, lookupPath("mobile", p), { key: "nope" })).status).toBe(401);
    now += 1_000;
    expect((await get(s.url, lookupPath("broadband", p), { key: "bb" })).status).toBe(200);
  });
});

describe("gateway: quota", () => {
  it("answers past the quota with 403 and the gateway's body, per lookup, until the period rolls over", async () => {
    let now = 1_700_000_000_000;
    const t0 = now;
    const s = await sim({ quota: 2, quotaPeriodMs: 3_600_000, now: () => now });
    const bb = lookupPath("broadband", known[0]!);
    expect((await get(s.url, bb)).status).toBe(200);
    expect((await get(s.url, lookupPath("broadband", unknown[0]!))).status).toBe(404); // a 404 is a call too
    now = t0 + 10_000;
    expectJson(await get(s.url, bb), 403, gatewayBody(403, "Out of call volume quota. Quota will be replenished in 00:59:50."));
    now = t0 + 3_600_000 - 1_500;
    expectJson(await get(s.url, bb), 403, gatewayBody(403, "Out of call volume quota. Quota will be replenished in 00:00:02."));
    expect((await get(s.url, lookupPath("mobile", known[0]!))).status).toBe(200);
    now = t0 + 3_600_000;
    expect((await get(s.url, bb)).status).toBe(200);
    expect(s.counters.quotaExceeded).toBe(2);
    expect(s.counters.byLookup.broadband).toEqual({ 200: 2, 404: 1, 403: 2 });
  });

  it("states a monthly quota's wait as hours:minutes:seconds", async () => {
    const now = 1_700_000_000_000;
    const s = await sim({ quota: 0, now: () => now });
    const r = await get(s.url, lookupPath("mobile", known[0]!));
    expectJson(r, 403, gatewayBody(403, "Out of call volume quota. Quota will be replenished in 720:00:00."));
  });
});

describe("faults", () => {
  it.each([
    ["spec", { ErrorMessage: GENERAL_ERROR_MESSAGE }],
    ["live", { Error: GENERAL_ERROR_MESSAGE }],
  ] as const)("--fail-rate answers 500 with the %s error body", async (dialect, body) => {
    const s = await sim({ dialect, failRate: 1 });
    for (const lookup of LOOKUPS) {
      const r = await get(s.url, lookupPath(lookup, known[0]!));
      expectJson(r, 500, body);
      expect(coverageSchemas(dialect).generalError(json(r))).toBe(true);
    }
    expect(s.counters.failures).toBe(2);
    expect(s.counters.byLookup).toEqual({ broadband: { 500: 1 }, mobile: { 500: 1 } });
  });

  it("--unavailable-rate answers 503 with no body", async () => {
    const s = await sim({ unavailableRate: 1 });
    const r = await get(s.url, lookupPath("broadband", known[0]!));
    expect(r.status).toBe(503);
    expect(r.text).toBe("");
    expect(r.headers.get("content-length")).toBe("0");
    expect(r.headers.get("content-type")).toBeNull();
    expect(s.counters.unavailable).toBe(1);
    expect(s.counters.byLookup.broadband).toEqual({ 503: 1 });
  });

  it("--stall-rate accepts the request and never answers (the client has to give up)", async () => {
    const s = await sim({ stallRate: 1 });
    const signal = AbortSignal.timeout(300);
    await expect(get(s.url, lookupPath("broadband", known[0]!), { signal })).rejects.toThrow(/abort|timeout/i);
    const raw = await rawGet(s.url, lookupPath("mobile", known[0]!), { timeoutMs: 300 });
    expect(raw).toMatchObject({ status: null, complete: false, error: "timeout" });
    expect(s.counters.stalls).toBe(2);
    expect(s.counters.byLookup).toEqual({ broadband: {}, mobile: {} });
    await s.close(); // does not wait for stalled requests
  });

  it("--reset-rate sends the head and part of the body, then drops the connection", async () => {
    const s = await sim({ resetRate: 1 });
    for (const [p, status] of [[known[0]!, 200], [unknown[0]!, 404]] as const) {
      const r = await rawGet(s.url, lookupPath("broadband", p));
      expect(r.status).toBe(status);
      expect(r.complete).toBe(false);
      expect(r.error).toBe("closed mid-body");
      const announced = Number(r.headers["content-length"]);
      expect(r.body.length).toBeGreaterThan(0);
      expect(r.body.length).toBeLessThan(announced);
      if (status === 200) expect(expected("broadband", "live", p).startsWith(r.body.toString("utf8"))).toBe(true);
    }
    expect(s.counters.resets).toBe(2);
    expect(s.counters.byLookup.broadband).toEqual({});
  });

  it("--malformed-rate breaks bodies in each of its ways: truncated, invalid JSON, out of range, a field missing", async () => {
    const s = await sim({ malformedRate: 1 });
    const seen: Record<MalformedKind, number> = { truncated: 0, "invalid-json": 0, "out-of-range": 0, "missing-field": 0 };
    const schemas = coverageSchemas("live");
    for (const p of known.slice(0, 30))
      for (const lookup of LOOKUPS) {
        const r = await get(s.url, lookupPath(lookup, p));
        expect(r.status).toBe(200);
        expect(r.headers.get("content-length")).toBe(String(Buffer.byteLength(r.text)));
        const intact = expected(lookup, "live", p);
        expect(r.text).not.toBe(intact);
        let body: unknown;
        try {
          body = JSON.parse(r.text);
        } catch {
          if (r.text.length < intact.length && intact.startsWith(r.text)) seen.truncated++;
          else if (r.text.length === intact.length) seen["invalid-json"]++;
          else throw new Error(`unexpected broken body for ${lookup} ${p}`);
          continue;
        }
        expect(schemas[lookup](body)).toBe(false);
        const errors = schemas[lookup].errors ?? [];
        if (errors.some((e) => e.keyword === "required")) seen["missing-field"]++;
        else if (errors.some((e) => e.keyword === "minimum" || e.keyword === "maximum")) {
          expect(r.text).toMatch(lookup === "mobile" ? /"Prov[A-D]\w+":5[,}]/ : /"Max\w+":-2[,}]/);
          seen["out-of-range"]++;
        } else throw new Error(`unexpected schema errors ${JSON.stringify(errors)}`);
      }
    for (const kind of MALFORMED_KINDS) expect(seen[kind], kind).toBeGreaterThan(0);
    expect(s.counters.malformedByKind).toEqual(seen);
    expect(s.counters.malformed).toBe(60);
  });

  it("--latency and --jitter hold each answer back by latency plus up to jitter ms", async () => {
    const s = await sim({ latencyMs: 40, jitterMs: 30 });
    const started = performance.now();
    const replies = await Promise.all(known.slice(0, 10).map((p) => get(s.url, lookupPath("broadband", p))));
    const elapsed = performance.now() - started;
    expect(replies.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(s.counters.delayed).toBe(10);
    expect(s.counters.delayedMs).toBeGreaterThan(10 * 40); // jitter adds something...
    expect(s.counters.delayedMs).toBeLessThanOrEqual(10 * 70); // ...but never more than 30 each
    expect(elapsed).toBeGreaterThanOrEqual(39); // a lower bound only: timing upper bounds are flaky
  });

  it("decides faults from (seed, lookup, postcode, n-th request): reproducible, and a retry can succeed", async () => {
    const rates = { failRate: 0.3, unavailableRate: 0.2, malformedRate: 0.1 };
    const a = await sim(rates);
    const b = await sim(rates);
    const statuses = async (s: Simulator) => {
      const out: string[] = [];
      for (const p of known.slice(0, 15))
        for (let attempt = 0; attempt < 3; attempt++) {
          const r = await get(s.url, lookupPath("mobile", p));
          out.push(`${r.status}:${r.text.length}`);
        }
      return out;
    };
    const sa = await statuses(a);
    expect(await statuses(b)).toEqual(sa);
    expect(sa.filter((x) => x.startsWith("500")).length).toBeGreaterThan(3);
    expect(sa.filter((x) => x.startsWith("503")).length).toBeGreaterThan(2);
    expect(sa.filter((x) => x.startsWith("200")).length).toBeGreaterThan(10);
    // the same postcode asked again does not always meet the same fault
    const perPostcode = known.slice(0, 15).map((_, i) => new Set(sa.slice(3 * i, 3 * i + 3).map((x) => x.slice(0, 3))).size);
    expect(perPostcode.some((n) => n > 1)).toBe(true);
  });
});

describe("counters", () => {
  it("count requests by lookup and status, and reset in place", async () => {
    let now = 0;
    const s = await sim({ rateLimit: 2, now: () => now });
    const counters = s.counters;
    await get(s.url, lookupPath("broadband", known[0]!));
    await get(s.url, lookupPath("broadband", unknown[0]!));
    await get(s.url, lookupPath("broadband", known[1]!));
    await get(s.url, lookupPath("mobile", known[0]!), { key: "wrong" });
    await get(s.url, lookupPath("mobile", known[0]!));
    await get(s.url, "/elsewhere");
    expect(counters).toMatchObject({
      total: 6,
      requests: { broadband: 3, mobile: 2 },
      byLookup: { broadband: { 200: 1, 404: 1, 429: 1 }, mobile: { 401: 1, 200: 1 } },
      unmatched: 1,
      unauthorized: 1,
      throttled: 1,
    });
    s.resetCounters();
    expect(s.counters).toBe(counters);
    expect(counters).toMatchObject({ total: 0, requests: { broadband: 0, mobile: 0 }, byLookup: { broadband: {}, mobile: {} }, throttled: 0 });
    now += 60_000;
    await get(s.url, lookupPath("mobile", known[0]!));
    expect(counters.byLookup.mobile).toEqual({ 200: 1 });
  });
});

describe("npm run simulate", () => {
  it("prints `listening <url>`, serves both lookups with its flags, and stops on SIGTERM", async () => {
    const root = fileURLToPath(new URL("..", import.meta.url));
    const args = [...scriptArgs("src/cli/simulate.ts"), "--port", "0", "--dialect", "spec", "--seed", String(SEED), "--key", "cli-secret-key"];
    const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const lines: string[] = [];
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).on("line", (line) => {
        lines.push(line);
        const m = /^listening (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
        if (m) resolve(m[1]!);
      });
      child.once("exit", () => reject(new Error(`exited early: ${stderr}`)));
    });
    try {
      for (const lookup of LOOKUPS) {
        const r = await get(url, lookupPath(lookup, known[0]!), { key: "cli-secret-key" });
        expect(r.status).toBe(200);
        expect(r.text).toBe(expected(lookup, "spec", known[0]!));
      }
      expect((await get(url, lookupPath("mobile", known[0]!))).status).toBe(401);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
    expect(lines.join("\n") + stderr).not.toContain("cli-secret-key");
  });

  it("stops when the npm process that started it is killed", async () => {
    const root = fileURLToPath(new URL("..", import.meta.url));
    // npm, then its shell, then the simulator: killing npm by its pid reaches neither of the others
    const npm = spawn("npm", ["run", "--silent", "simulate", "--", "--port", "0"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    npm.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    // the pipe ends when its last writer, the simulator itself, has exited
    const outputEnded = new Promise<void>((resolve) => npm.stdout.once("end", resolve).resume());
    const first = await new Promise<string>((resolve) => createInterface({ input: npm.stdout }).once("line", resolve));
    // its shell and the simulator, to clean up after a failure
    const descendants = childrenOf(npm.pid!).flatMap((pid) => [pid, ...childrenOf(pid)]);
    try {
      const url = /^listening (http:\/\/\S+)$/.exec(first)?.[1];
      expect(url, first).toBeDefined();
      expect((await get(url!, lookupPath("broadband", "SW1A 1AA"))).status).toBe(200);
      npm.kill("SIGKILL");
      await outputEnded;
      expect(stderr).toContain("the process that started the simulator exited: stopping");
      await expect(get(url!, lookupPath("broadband", "SW1A 1AA"))).rejects.toMatchObject({ cause: { code: "ECONNREFUSED" } });
    } finally {
      for (const pid of [npm.pid!, ...descendants]) if (processAlive(pid)) process.kill(pid, "SIGKILL");
    }
  });

  /** the processes whose parent is `pid`, from /proc */
  function childrenOf(pid: number): number[] {
    return readdirSync("/proc")
      .filter((e) => /^\d+$/.test(e))
      .map(Number)
      .filter((p) => parentPid(p) === pid);
  }

  it("refuses a bad flag with a one-line error and exit code 1", async () => {
    const root = fileURLToPath(new URL("..", import.meta.url));
    const child = spawn(process.execPath, [...scriptArgs("src/cli/simulate.ts"), "--port", "0", "--fail-rate", "2"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(1);
    expect(stderr.trim()).toBe("error: --fail-rate must be a probability in [0, 1], got 2 (npm run simulate -- --help lists the options)");
  });
});
