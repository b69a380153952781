// Fault injection. Every decision is a pure function of (seed, lookup, postcode, n), n being the
// n-th backend request for that postcode and lookup, so concurrency order never changes what happens.
import type { Lookup } from "../contract/fields.js";
import { rngFor, type Rng } from "./hash.js";

export interface FaultRates {
  /** 500 with the dialect's error body */
  failRate: number;
  /** 503, no body */
  unavailableRate: number;
  /** accept the request, never answer */
  stallRate: number;
  /** headers and part of the body, then the connection is destroyed */
  resetRate: number;
  /** a complete response whose body is broken or out of the documented range */
  malformedRate: number;
  latencyMs: number;
  /** uniform extra latency in [0, jitterMs] */
  jitterMs: number;
}

/** In precedence order: when rates add up past 1, later kinds get what is left. */
export const FAULT_KINDS = ["stall", "reset", "unavailable", "fail", "malformed"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
const RATE_OF: Record<FaultKind, keyof FaultRates> = {
  stall: "stallRate",
  reset: "resetRate",
  unavailable: "unavailableRate",
  fail: "failRate",
  malformed: "malformedRate",
};

export const MALFORMED_KINDS = ["truncated", "invalid-json", "out-of-range", "missing-field"] as const;
export type MalformedKind = (typeof MALFORMED_KINDS)[number];

export interface FaultDecision {
  fault: FaultKind | null;
  malformed: MalformedKind;
  delayMs: number;
  /** the rest of this request's random stream, for details (which field to break, where to cut) */
  rng: Rng;
}

export function faultsEnabled(r: FaultRates): boolean {
  return FAULT_KINDS.some((k) => r[RATE_OF[k]] > 0) || r.latencyMs > 0 || r.jitterMs > 0;
}

export function validateFaultRates(r: FaultRates): void {
  for (const k of FAULT_KINDS) {
    const v = r[RATE_OF[k]];
    if (!(v >= 0 && v <= 1)) throw new RangeError(`${RATE_OF[k]} must be a probability in [0, 1], got ${v}`);
  }
  for (const k of ["latencyMs", "jitterMs"] as const)
    if (!(r[k] >= 0 && Number.isFinite(r[k]))) throw new RangeError(`${k} must be >= 0, got ${r[k]}`);
}

export function decideFault(seed: string, r: FaultRates, lookup: Lookup, postcode: string, n: number): FaultDecision {
  const rng = rngFor(seed, "fault", lookup, postcode, n);
  const u = rng.next();
  const delayMs = r.latencyMs + rng.next() * r.jitterMs;
  const malformed = rng.pick(MALFORMED_KINDS);
  let edge = 0;
  let fault: FaultKind | null = null;
  for (const k of FAULT_KINDS) {
    edge += r[RATE_OF[k]];
    if (u < edge) {
      fault = k;
      break;
    }
  }
  return { fault, malformed, delayMs, rng };
}
