// The exit code says what happened, for cron (documented in the README).
import type { StopReason } from "../fetch/stop.js";
import { LOOKUPS, type Lookup } from "../contract/fields.js";
import { inWords, LOOKUP_SPECS } from "../contract/lookups.js";
import type { RunState } from "../store/types.js";

export const EXIT = {
  ok: 0,
  /** configuration, input, key or address error; a lookup's product closed; or the reports could not be written */
  error: 1,
  /** finished, but some postcodes failed after retries */
  failures: 2,
  /** stopped early by quota, --max-requests or an outage past --outage-limit; a re-run resumes */
  stoppedEarly: 3,
  /** the run's lease expired (a paused or cut-off machine) and another batch took over its work */
  leaseLost: 4,
  SIGHUP: 129,
  SIGINT: 130,
  SIGTERM: 143,
} as const;

export const EXIT_CODE_HELP =
  "Exit codes: 0 all answered; 1 configuration, input, key or address error, a product closed, or reports not written;\n" +
  "2 some postcodes failed after retries; 3 stopped early by quota, --max-requests or an API outage\n" +
  "(re-run resumes); 4 lost its lease to another batch (paused or cut off past the lease; that batch\n" +
  "finishes the work); 129/130/143 interrupted by SIGHUP/SIGINT/SIGTERM.";

export function decideExit(reasons: readonly StopReason[], failed: number, pending: number): { code: number; state: RunState } {
  const first = (kinds: StopReason["kind"][]) => reasons.find((r) => kinds.includes(r.kind));
  if (first(["lease_lost"])) return { code: EXIT.leaseLost, state: "stopped" };
  if (first(["misconfigured", "unreachable"])) return { code: EXIT.error, state: "failed" };
  // a key refused by one product that answered it before stopped that lookup alone: the other ran
  // to its end and its reports are written (stopped, exit 1); any other refused key fails the run
  const refused = reasons.filter((r) => r.kind === "auth");
  if (refused.length > 0) return { code: EXIT.error, state: refused.every((r) => r.lookupOnly) ? "stopped" : "failed" };
  const signal = first(["signal"]);
  if (signal?.kind === "signal") return { code: EXIT[signal.signal], state: "interrupted" };
  // the other lookup ran to its end and its reports are written: stopped, not failed, but exit 1
  if (first(["closed"])) return { code: EXIT.error, state: "stopped" };
  if (first(["quota", "max_requests", "outage"])) return { code: EXIT.stoppedEarly, state: "stopped" };
  if (failed > 0 || pending > 0) return { code: EXIT.failures, state: "completed" };
  return { code: EXIT.ok, state: "completed" };
}

/**
 * A signal that came after the run's exit was decided (while the reports were written): the run
 * ends as interrupted by it, so its state, exit code and stop reason say the same. Null otherwise.
 */
export function lateSignal(reasons: readonly StopReason[], exitCode: number): { code: number; state: RunState; message: string } | null {
  const first = reasons[0];
  if (first?.kind !== "signal" || exitCode === EXIT[first.signal]) return null;
  return { code: EXIT[first.signal], state: "interrupted", message: `interrupted by ${first.signal} while the reports were written; re-run to write them again` };
}

/** The stopReason of the JSON summary: the reason's kind, with the signal's name for signals. */
export function stopReasonCode(reason: StopReason): string {
  return reason.kind === "signal" ? reason.signal : reason.kind;
}

/**
 * Why the run stopped, in one line: its first reason. A rejected key names every lookup it stops:
 * each whose requests were refused, and each that sends the same key (`keys`: the run's lookups'
 * keys), whose requests were abandoned in flight but would be refused as well.
 */
export function describeStops(reasons: readonly StopReason[], keys: Partial<Record<Lookup, string>> = {}): string | null {
  const first = reasons[0];
  if (first?.kind !== "auth") return first ? describeStop(first) : null;
  // a key refused by a product that answered it before stopped that lookup alone: the other may take the same key
  const key = first.lookupOnly ? undefined : keys[first.lookup];
  const refused = LOOKUPS.filter((l) => reasons.some((r) => r.kind === "auth" && r.lookup === l) || (key !== undefined && keys[l] === key));
  return rejectedKeys(refused, first.message);
}

/** The keys of the lookups the run asks, by lookup (a key given for a lookup not asked is no run's). */
export function runKeys(config: { keys: Partial<Record<Lookup, string>>; lookups: readonly Lookup[] }): Partial<Record<Lookup, string>> {
  return Object.fromEntries(config.lookups.flatMap((l) => (config.keys[l] === undefined ? [] : [[l, config.keys[l]]])));
}

function rejectedKeys(lookups: readonly Lookup[], message: string): string {
  const which = lookups.length === 1 ? `the ${lookups[0]} key was` : `the ${inWords(lookups)} keys were`;
  return `${which} rejected (${message}); check ${lookups.map((l) => LOOKUP_SPECS[l].keyEnv).join(", ")}, COVERAGE_API_KEY or the --key-file`;
}

export function describeStop(reason: StopReason): string {
  switch (reason.kind) {
    case "auth":
      return rejectedKeys([reason.lookup], reason.message);
    case "misconfigured":
      return `${inWords(reason.lookups ?? [reason.lookup])}: ${reason.message}`;
    case "unreachable":
      return `${reason.lookup}: cannot reach the API: ${reason.message}`;
    case "outage":
      return `${reason.lookup}: stopped by an API outage: ${reason.message}`;
    case "closed":
      return `${reason.lookup}: the ${reason.lookup} product appears closed (${reason.message}); the other lookup goes on; see docs/running.md#a-product-that-closes`;
    case "quota":
      if (reason.periodTurned) return `${reason.lookup}: the quota period turned during the run, re-run resumes (${reason.message})`;
      return `${reason.lookup}: quota exhausted, re-run resumes (${reason.message})`;
    case "max_requests":
      return `stopped after --max-requests ${reason.limit} requests; re-run resumes`;
    case "signal":
      return `interrupted by ${reason.signal}; re-run resumes`;
    case "lease_lost":
      return `lost the lease: ${reason.message}; stopped at once, nothing more sent or written (the batch that took it over finishes the work)`;
  }
}
