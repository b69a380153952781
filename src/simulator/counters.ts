// What the simulator did, as one plain object that tests and benches read while it runs.
import { LOOKUPS, type Lookup } from "../contract/fields.js";
import type { MalformedKind } from "./faults.js";

export interface SimulatorCounters {
  /** every request received, matched or not */
  total: number;
  /** requests received per lookup, whatever happened to them */
  requests: Record<Lookup, number>;
  /** complete responses sent, per lookup and status (stalls and resets are not responses) */
  byLookup: Record<Lookup, Record<number, number>>;
  /** requests to any other path (gateway 404) */
  unmatched: number;
  /** 401s sent */
  unauthorized: number;
  /** 429s sent */
  throttled: number;
  /** requests that arrived (same key and lookup) before a Retry-After they were given had elapsed */
  earlyRetries: number;
  /** 403s sent */
  quotaExceeded: number;
  /** injected faults */
  failures: number;
  unavailable: number;
  stalls: number;
  resets: number;
  malformed: number;
  malformedByKind: Partial<Record<MalformedKind, number>>;
  /** answers held back by --latency/--jitter, and the delay added to them in total (ms) */
  delayed: number;
  delayedMs: number;
}

export function createCounters(): SimulatorCounters {
  const c = {} as SimulatorCounters;
  resetCounters(c);
  return c;
}

/** Zero in place, so references held by readers stay live. */
export function resetCounters(c: SimulatorCounters): void {
  Object.assign(c, {
    total: 0,
    requests: Object.fromEntries(LOOKUPS.map((l) => [l, 0])) as Record<Lookup, number>,
    byLookup: Object.fromEntries(LOOKUPS.map((l) => [l, {}])) as Record<Lookup, Record<number, number>>,
    unmatched: 0,
    unauthorized: 0,
    throttled: 0,
    earlyRetries: 0,
    quotaExceeded: 0,
    failures: 0,
    unavailable: 0,
    stalls: 0,
    resets: 0,
    malformed: 0,
    malformedByKind: {},
    delayed: 0,
    delayedMs: 0,
  } satisfies SimulatorCounters);
}

export function countStatus(c: SimulatorCounters, lookup: Lookup, status: number): void {
  const by = c.byLookup[lookup];
  by[status] = (by[status] ?? 0) + 1;
}
