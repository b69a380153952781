// What to do after one attempt at one postcode: a pure decision, table-tested in test/decide.test.ts.
// The fetch loop only carries it out.
import type { Lookup } from "../contract/fields.js";
import { backoffDelay, type BackoffPolicy } from "./backoff.js";
import type { Outcome } from "./outcome.js";
import type { Health } from "./outage.js";
import type { StopReason } from "./stop.js";

/** A postcode answered 429 this many times in a row fails, so a stuck limiter cannot spin forever. */
export const MAX_THROTTLES_PER_POSTCODE = 50;

export interface AttemptState {
  /** retries this postcode has spent of --retries */
  retriesUsed: number;
  /** 429s in a row for this postcode */
  throttles: number;
}

export interface RetryPolicy {
  retries: number;
  backoff: BackoffPolicy;
  random: () => number;
}

export type Decision =
  /** the postcode's answer is final */
  | { kind: "final"; status: "ok" | "not_found" | "failed"; lastError: string | null }
  /** retry this postcode after `afterMs`, spending one of its retries */
  | { kind: "retry"; afterMs: number; lastError: string }
  /** 429: the whole lookup waits `waitMs`, slows down, and this postcode tries again at no cost */
  | { kind: "wait"; waitMs: number; lastError: string }
  /** the API as a whole is down: the postcode waits for the outage to end, spending nothing */
  | { kind: "hold"; lastError: string }
  /** nothing more for this lookup (quota; a wait longer than --outage-limit leaves; its product closed; its key refused where it worked) */
  | { kind: "stop"; scope: "lookup"; reason: StopReason & { kind: "quota" | "outage" | "closed" | "auth" } }
  /** nothing more for the run (key, URL, unreachable) */
  | { kind: "stop"; scope: "all"; reason: StopReason };

/**
 * `productKnown`: this lookup's product has answered this key before (a stored answer, or one this
 * run). Then the gateway's own closing signals, its 404 or a 410 on the lookup's path, mean the
 * product itself has closed, and a refused key is still a refused key (`auth`, never a closure):
 * either way that lookup stops alone and the other goes on. Without it they mean a wrong base URL
 * or key, and the whole run stops. `answeredThisRun`: the lookup answered in this run; a gateway
 * 404 before that is marked `firstRequests` (StopControl judges every lookup so a wrong base path).
 */
export function decide(lookup: Lookup, outcome: Outcome, state: AttemptState, health: Health, policy: RetryPolicy, productKnown = false, answeredThisRun = false): Decision {
  if (health.kind === "unreachable") return { kind: "stop", scope: "all", reason: { kind: "unreachable", lookup, message: health.message } };
  if (productKnown && outcome.kind === "auth") return { kind: "stop", scope: "lookup", reason: { kind: "auth", lookup, message: outcome.message, lookupOnly: true } };
  if (productKnown && outcome.kind === "misconfigured" && outcome.gone) {
    const firstRequests = !outcome.withdrawn && !answeredThisRun;
    return { kind: "stop", scope: "lookup", reason: { kind: "closed", lookup, message: outcome.message, ...(firstRequests ? { firstRequests: true as const } : {}) } };
  }
  switch (outcome.kind) {
    case "ok":
      return { kind: "final", status: "ok", lastError: null };
    case "not_found":
      return { kind: "final", status: "not_found", lastError: null };
    case "auth":
    case "misconfigured":
      return { kind: "stop", scope: "all", reason: { kind: outcome.kind, lookup, message: outcome.message } };
    case "quota":
      return { kind: "stop", scope: "lookup", reason: { kind: "quota", lookup, message: outcome.message } };
    case "final_error":
      return { kind: "final", status: "failed", lastError: outcome.message };
    case "throttled": {
      if (health.kind === "outage") return { kind: "hold", lastError: outcome.message };
      const throttles = state.throttles + 1;
      if (throttles >= MAX_THROTTLES_PER_POSTCODE)
        return { kind: "final", status: "failed", lastError: `answered 429 ${throttles} times: ${outcome.message}` };
      return { kind: "wait", waitMs: outcome.retryAfterMs ?? backoffDelay(throttles - 1, policy.backoff, policy.random), lastError: outcome.message };
    }
    case "retryable": {
      if (health.kind === "outage") return { kind: "hold", lastError: outcome.message };
      if (state.retriesUsed >= policy.retries) return { kind: "final", status: "failed", lastError: outcome.message };
      return { kind: "retry", afterMs: backoffDelay(state.retriesUsed, policy.backoff, policy.random), lastError: outcome.message };
    }
  }
}

/** What the request ledger records of one request (--monthly-quota counts it); quotaMessage: the text of a 403 quota answer. */
export interface LedgerEntry {
  status: number | null;
  quotaMessage: string | null;
}

/**
 * Every request that reached the server goes to the ledger, also one the run abandoned in flight
 * (`outcome` null, no status): the service may have counted it, and the ledger must never count too
 * few. One that never reached it (a refused connection, a name that did not resolve) is not.
 */
export function ledgerEntry(reached: boolean, httpStatus: number | null, outcome: Outcome | null): LedgerEntry | null {
  if (!reached) return null;
  return { status: httpStatus, quotaMessage: outcome?.kind === "quota" ? outcome.message : null };
}

/**
 * --outage-limit bounds every wait: a 429's (its Retry-After) or a retry's backoff longer than what
 * is left of the limit, counted from the first failure since the last success, ends the lookup at
 * once instead of parking it past the limit. `asked`: what the server asked for, for the message.
 */
export function boundWait(lookup: Lookup, decision: Decision, leftMs: number, limitMs: number, asked: string | undefined): Decision {
  const waitMs = decision.kind === "wait" ? decision.waitMs : decision.kind === "retry" ? decision.afterMs : 0;
  if (waitMs <= Math.max(0, leftMs)) return decision;
  const what = decision.kind === "wait" ? `the server asked to wait ${asked ?? "(429)"} (${duration(waitMs)})` : `the next retry is due in ${duration(waitMs)}`;
  const message = `${what}, longer than the ${duration(Math.max(0, leftMs))} left of --outage-limit ${duration(limitMs)}; a re-run resumes`;
  return { kind: "stop", scope: "lookup", reason: { kind: "outage", lookup, message } };
}

function duration(ms: number): string {
  return ms >= 7_200_000 ? `${Math.round(ms / 3_600_000)} h` : ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}
