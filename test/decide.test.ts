// The fetch loop's decisions, table-driven: outcome, attempt state and API health in, what to do out.
import { describe, expect, it } from "vitest";
import { boundWait, decide, ledgerEntry, MAX_THROTTLES_PER_POSTCODE, type Decision, type LedgerEntry } from "../src/fetch/decide.js";
import { OutageMonitor, type FailureSignature, type Health } from "../src/fetch/outage.js";
import type { Outcome } from "../src/fetch/outcome.js";
import { StopControl } from "../src/fetch/stop.js";
import { decideExit, describeStop, describeStops } from "../src/pipeline/exit-code.js";

const policy = { retries: 3, backoff: { baseMs: 100, capMs: 1000 }, random: () => 0.5 };
const healthy: Health = { kind: "healthy" };
const outage: Health = { kind: "outage", since: 0, what: "HTTP 503" };
const answer = { lookup: "broadband" as const, addresses: [], dataset: null };

const cases: [string, Outcome, { retriesUsed: number; throttles: number }, Health, Decision][] = [
  ["ok is final", { kind: "ok", answer }, { retriesUsed: 0, throttles: 0 }, healthy, { kind: "final", status: "ok", lastError: null }],
  ["not found is final", { kind: "not_found", message: "nf" }, { retriesUsed: 2, throttles: 0 }, healthy, { kind: "final", status: "not_found", lastError: null }],
  ["another 4xx fails at once", { kind: "final_error", message: "HTTP 400" }, { retriesUsed: 0, throttles: 0 }, healthy, { kind: "final", status: "failed", lastError: "HTTP 400" }],
  ["a 5xx retries after backoff", { kind: "retryable", message: "HTTP 500" }, { retriesUsed: 1, throttles: 0 }, healthy, { kind: "retry", afterMs: 100, lastError: "HTTP 500" }],
  ["a 5xx with retries spent fails", { kind: "retryable", message: "HTTP 500" }, { retriesUsed: 3, throttles: 0 }, healthy, { kind: "final", status: "failed", lastError: "HTTP 500" }],
  ["a 5xx in an outage holds, spending nothing", { kind: "retryable", message: "HTTP 503" }, { retriesUsed: 3, throttles: 0 }, outage, { kind: "hold", lastError: "HTTP 503" }],
  ["a 429 waits its Retry-After", { kind: "throttled", retryAfterMs: 7000, message: "HTTP 429" }, { retriesUsed: 0, throttles: 0 }, healthy, { kind: "wait", waitMs: 7000, lastError: "HTTP 429" }],
  ["a 429 without Retry-After backs off", { kind: "throttled", retryAfterMs: null, message: "HTTP 429" }, { retriesUsed: 0, throttles: 2 }, healthy, { kind: "wait", waitMs: 200, lastError: "HTTP 429" }],
  [
    "the 50th 429 in a row fails the postcode",
    { kind: "throttled", retryAfterMs: 1000, message: "HTTP 429" },
    { retriesUsed: 0, throttles: MAX_THROTTLES_PER_POSTCODE - 1 },
    healthy,
    { kind: "final", status: "failed", lastError: "answered 429 50 times: HTTP 429" },
  ],
  ["a 429 in an outage holds", { kind: "throttled", retryAfterMs: 1000, message: "HTTP 429" }, { retriesUsed: 0, throttles: 49 }, outage, { kind: "hold", lastError: "HTTP 429" }],
  ["quota stops the lookup", { kind: "quota", message: "q" }, { retriesUsed: 0, throttles: 0 }, healthy, { kind: "stop", scope: "lookup", reason: { kind: "quota", lookup: "broadband", message: "q" } }],
  ["a rejected key stops the run", { kind: "auth", message: "a" }, { retriesUsed: 0, throttles: 0 }, healthy, { kind: "stop", scope: "all", reason: { kind: "auth", lookup: "broadband", message: "a" } }],
  ["a wrong URL stops the run", { kind: "misconfigured", message: "m" }, { retriesUsed: 0, throttles: 0 }, healthy, { kind: "stop", scope: "all", reason: { kind: "misconfigured", lookup: "broadband", message: "m" } }],
  [
    "an unreachable API stops the run",
    { kind: "retryable", message: "connection refused" },
    { retriesUsed: 0, throttles: 0 },
    { kind: "unreachable", message: "refused" },
    { kind: "stop", scope: "all", reason: { kind: "unreachable", lookup: "broadband", message: "refused" } },
  ],
];

describe("decide", () => {
  it.each(cases)("%s", (_name, outcome, state, health, expected) => {
    expect(decide("broadband", outcome, state, health, policy)).toEqual(expected);
  });
});

// A product that answered this key before (productKnown) and now gives the gateway's 404 or a 410
// has closed: that lookup stops alone. A refused key is a refused key (auth), never a closure: where
// the product answered before, that lookup stops alone. The same answers from a product never seen stop the run.
const gone: Outcome = { kind: "misconfigured", message: "g", gone: true };
const withdrawn: Outcome = { kind: "misconfigured", message: "w", gone: true, withdrawn: true };
const closedCases: [string, Outcome, boolean, Decision, boolean?][] = [
  ["a gateway 404 where the product answered in this run: it closed, the lookup stops alone", gone, true, { kind: "stop", scope: "lookup", reason: { kind: "closed", lookup: "mobile", message: "g" } }, true],
  ["a 410 where the product answered before: it closed, whenever it comes", withdrawn, true, { kind: "stop", scope: "lookup", reason: { kind: "closed", lookup: "mobile", message: "w" } }],
  // every lookup so at once is a wrong base path (StopControl below)
  ["a gateway 404 on the first requests where the product answered before: closed, marked firstRequests", gone, true, { kind: "stop", scope: "lookup", reason: { kind: "closed", lookup: "mobile", message: "g", firstRequests: true } }],
  ["a refused key that worked before: auth, never closed; that lookup stops alone", { kind: "auth", message: "a" }, true, { kind: "stop", scope: "lookup", reason: { kind: "auth", lookup: "mobile", message: "a", lookupOnly: true } }],
  ["a refused key that worked before, after answers this run: still auth", { kind: "auth", message: "a" }, true, { kind: "stop", scope: "lookup", reason: { kind: "auth", lookup: "mobile", message: "a", lookupOnly: true } }, true],
  ["a gateway 404 from a product never seen: a wrong base URL stops the run", gone, false, { kind: "stop", scope: "all", reason: { kind: "misconfigured", lookup: "mobile", message: "g" } }],
  ["a refused key never seen to work stops the run", { kind: "auth", message: "a" }, false, { kind: "stop", scope: "all", reason: { kind: "auth", lookup: "mobile", message: "a" } }],
  ["an HTML 404 (not the gateway's) stays a wrong base URL", { kind: "misconfigured", message: "m" }, true, { kind: "stop", scope: "all", reason: { kind: "misconfigured", lookup: "mobile", message: "m" } }],
  ["the API's own not-found stays not found", { kind: "not_found", message: "nf" }, true, { kind: "final", status: "not_found", lastError: null }],
];

describe("decide: a product that closes", () => {
  it.each(closedCases)("%s", (_name, outcome, known, expected, answered) => {
    expect(decide("mobile", outcome, { retriesUsed: 0, throttles: 0 }, healthy, policy, known, answered)).toEqual(expected);
  });
});

const refused: FailureSignature = { what: "refused", group: "network", wrongAddress: true, throttled: false };
const e503: FailureSignature = { what: "HTTP 503", group: "HTTP 503", wrongAddress: false, throttled: false };
const e429: FailureSignature = { what: "HTTP 429", group: "HTTP 429", wrongAddress: false, throttled: true };
const monitor = () => new OutageMonitor({ sameFailures: 4, throttles: 6, postcodes: 2, unreachable: 3, url: "http://127.0.0.1:9/" });

describe("outage monitor", () => {
  it("before any success, refused on 3 attempts means a wrong address", () => {
    const m = monitor();
    expect(m.record("A", refused, 0).kind).toBe("healthy");
    expect(m.record("B", refused, 1).kind).toBe("healthy");
    expect(m.record("C", refused, 2)).toEqual({ kind: "unreachable", message: "refused from http://127.0.0.1:9/ on every attempt so far: check --base-url" });
  });

  it("after a success, the same refusal is an outage, not a wrong address", () => {
    const m = monitor();
    m.record("A", null, 0);
    for (const p of ["A", "B", "C"]) expect(m.record(p, refused, 1).kind).toBe("healthy");
    expect(m.record("D", refused, 5)).toEqual({ kind: "outage", since: 5, what: "refused" });
  });

  it("one postcode failing again and again is not an outage", () => {
    const m = monitor();
    m.record("A", null, 0);
    for (let i = 0; i < 10; i++) expect(m.record("B", e503, i).kind).toBe("healthy");
  });

  it("mixed failures are not an outage; a success ends one", () => {
    const m = monitor();
    for (let i = 0; i < 10; i++) m.record(`P${i}`, i % 2 ? e503 : { ...e503, what: "timeout", group: "network" }, i);
    expect(m.health.kind).toBe("healthy");
    for (let i = 0; i < 4; i++) m.record(`Q${i}`, e503, 20);
    expect(m.health.kind).toBe("outage");
    expect(m.record("R", null, 30).kind).toBe("healthy");
  });

  it("only 429s across postcodes make an outage after their own, higher count", () => {
    const m = monitor();
    for (let i = 0; i < 5; i++) m.record(`P${i}`, e429, i);
    expect(m.health.kind).toBe("healthy");
    expect(m.record("P5", e429, 9)).toEqual({ kind: "outage", since: 9, what: "HTTP 429" });
  });

  // A network failure the monitor cannot judge yet holds its postcode (not sent again, not counted);
  // these say when it can.
  const reset: FailureSignature = { what: "reset", group: "network", wrongAddress: false, throttled: false };
  it("a network failure is unjudged while its streak is too short to call; an answer, another failure or an outage settles it", () => {
    const m = monitor();
    m.record("A", null, 0);
    expect(m.record("B", reset, 1).kind).toBe("healthy");
    expect(m.unjudged(reset)).toBe(true);
    expect(m.unjudged(e503)).toBe(false); // an HTTP error is the server answering: it counts at once
    m.record("C", null, 2);
    expect(m.unjudged(reset)).toBe(false);
    m.record("D", reset, 3);
    m.record("E", e503, 4);
    expect(m.unjudged(reset)).toBe(false);
    for (const p of ["F", "G", "H"]) m.record(p, reset, 5);
    expect(m.unjudged(reset)).toBe(true);
    expect(m.record("I", reset, 6).kind).toBe("outage");
    expect(m.unjudged(reset)).toBe(false);
  });

  it("one postcode's own streak, long enough to call, is judged: not an outage, so it counts", () => {
    const m = monitor();
    m.record("A", null, 0);
    for (let i = 0; i < 4; i++) m.record("B", reset, i);
    expect(m.health.kind).toBe("healthy");
    expect(m.unjudged(reset)).toBe(false);
  });

  it("with nothing left to send, refused alone before any success is a wrong address, however few; after a success, or mixed with resets, it is not", () => {
    const wrong = monitor();
    wrong.record("A", refused, 0);
    expect(wrong.settleQuiet()).toEqual({ kind: "unreachable", message: "refused from http://127.0.0.1:9/ on every attempt so far: check --base-url" });
    const answered = monitor();
    answered.record("A", null, 0);
    answered.record("B", refused, 1);
    expect(answered.settleQuiet().kind).toBe("healthy");
    const mixed = monitor();
    mixed.record("A", refused, 0);
    mixed.record("B", reset, 1);
    expect(mixed.settleQuiet().kind).toBe("healthy");
  });
});

describe("--outage-limit bounds every wait (issue 19.3)", () => {
  it("keeps a wait that fits what is left, stops the lookup on one that does not, naming what was asked", () => {
    const wait: Decision = { kind: "wait", waitMs: 30_000, lastError: "HTTP 429" };
    expect(boundWait("mobile", wait, 30_000, 60_000, "Retry-After: 30")).toBe(wait);
    expect(boundWait("mobile", wait, 29_999, 60_000, "Retry-After: 30")).toEqual({
      kind: "stop",
      scope: "lookup",
      reason: { kind: "outage", lookup: "mobile", message: "the server asked to wait Retry-After: 30 (30 s), longer than the 30 s left of --outage-limit 60 s; a re-run resumes" },
    });
    const retry: Decision = { kind: "retry", afterMs: 5_000, lastError: "HTTP 500" };
    expect(boundWait("broadband", retry, -10, 900_000, undefined)).toMatchObject({ kind: "stop", reason: { message: "the next retry is due in 5 s, longer than the 0 s left of --outage-limit 15 min; a re-run resumes" } });
    const final: Decision = { kind: "final", status: "ok", lastError: null };
    expect(boundWait("broadband", final, 0, 60_000, undefined)).toBe(final);
  });

  it("counts from the first failure since the last success, whatever the postcodes", () => {
    const m = monitor();
    expect(m.failingSince).toBeNull();
    m.record("P", e429, 100);
    m.record("P", e429, 200);
    expect(m.failingSince).toBe(100);
    m.record("Q", null, 300);
    expect(m.failingSince).toBeNull();
  });
});

describe("stopping on a refused key that worked before", () => {
  const refused = (lookup: "broadband" | "mobile") => ({ kind: "auth" as const, lookup, message: `${lookup} refused`, lookupOnly: true as const });

  it("stops only that lookup while the other product still takes its key", () => {
    const stop = new StopControl();
    stop.signalFor("broadband");
    stop.signalFor("mobile");
    stop.stopLookup(refused("mobile"));
    expect(stop.reasons).toEqual([refused("mobile")]);
    expect(stop.signalFor("mobile").aborted).toBe(true);
    expect(stop.signalFor("broadband").aborted).toBe(false);
    // a rejected key, named as one: never "closed"; the other lookup's reports are written
    expect(describeStops(stop.reasons, { broadband: "k", mobile: "k" })).toMatch(/^the mobile key was rejected \(mobile refused\)/);
    expect(decideExit(stop.reasons, 0, 0)).toEqual({ code: 1, state: "stopped" });
  });

  it("is a rejected key, not two closures, when every product refuses it: the run stops", () => {
    const stop = new StopControl();
    stop.signalFor("broadband");
    stop.signalFor("mobile");
    stop.stopLookup(refused("mobile"));
    stop.stopLookup(refused("broadband"));
    expect(stop.reasons).toEqual([{ kind: "auth", lookup: "broadband", message: "broadband refused" }]);
    expect(stop.stopped).toBe(true);
    expect(decideExit(stop.reasons, 0, 0)).toEqual({ code: 1, state: "failed" });
  });

  it("leaves a gateway's 404 a closure even when the other product refused its key", () => {
    const stop = new StopControl();
    stop.signalFor("broadband");
    stop.signalFor("mobile");
    stop.stopLookup(refused("mobile"));
    stop.stopLookup({ kind: "closed", lookup: "broadband", message: "gone" });
    expect(stop.reasons.map((r) => r.kind)).toEqual(["auth", "closed"]);
  });
});

describe("every product meeting the gateway's 404 on its first requests", () => {
  const first = (lookup: "broadband" | "mobile") => ({ kind: "closed" as const, lookup, message: `${lookup} 404`, firstRequests: true as const });

  it("is a wrong base path, not every product closing: the run stops as misconfigured, naming both lookups", () => {
    const stop = new StopControl();
    stop.signalFor("broadband");
    stop.signalFor("mobile");
    stop.stopLookup(first("mobile"));
    expect(stop.stopped).toBe(false);
    stop.stopLookup(first("broadband"));
    expect(stop.stopped).toBe(true);
    expect(stop.reasons).toEqual([expect.objectContaining({ kind: "misconfigured", lookup: "broadband", lookups: ["broadband", "mobile"] })]);
    expect(describeStop(stop.reasons[0]!)).toMatch(/^broadband and mobile: every lookup met the gateway's 404 on its first requests \(broadband 404\): check the base URL/);
    expect(decideExit(stop.reasons, 0, 0)).toEqual({ code: 1, state: "failed" });
  });

  it("stays a closure when the other lookup answered first, or said 410, or the run has one lookup", () => {
    const answeredFirst = new StopControl();
    answeredFirst.signalFor("broadband");
    answeredFirst.signalFor("mobile");
    answeredFirst.stopLookup(first("mobile"));
    answeredFirst.stopLookup({ kind: "closed", lookup: "broadband", message: "410" });
    expect(answeredFirst.reasons.map((r) => r.kind)).toEqual(["closed", "closed"]);
    const alone = new StopControl();
    alone.signalFor("mobile");
    alone.stopLookup(first("mobile"));
    expect(alone.reasons.map((r) => r.kind)).toEqual(["closed"]);
  });
});

// The request ledger never counts too few: every request that reached the server is a row, with its
// status when it got an answer; one the run abandoned in flight (outcome null) has none.
const ledgerCases: [string, boolean, number | null, Outcome | null, LedgerEntry | null][] = [
  ["an answer is recorded with its status", true, 200, { kind: "ok", answer }, { status: 200, quotaMessage: null }],
  ["a quota answer carries its text", true, 403, { kind: "quota", message: "Out of call volume quota" }, { status: 403, quotaMessage: "Out of call volume quota" }],
  ["a connection dropped after the request is recorded without a status", true, null, { kind: "retryable", message: "connection reset" }, { status: null, quotaMessage: null }],
  ["a request abandoned in flight after it reached the server is recorded without a status", true, null, null, { status: null, quotaMessage: null }],
  ["a request abandoned before it reached the server is not", false, null, null, null],
  ["a refused connection is not", false, null, { kind: "retryable", message: "connection refused" }, null],
];

describe("ledgerEntry", () => {
  it.each(ledgerCases)("%s", (_name, reached, status, outcome, expected) => {
    expect(ledgerEntry(reached, status, outcome)).toEqual(expected);
  });
});
