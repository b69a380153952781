// The exit code says what happened, for cron (documented in the README).
import type { StopReason } from "../fetch/stop.js";
import type { RunState } from "../store/runs.js";

export const EXIT = {
  ok: 0,
  /** configuration, input or authentication error */
  error: 1,
  /** finished, but some postcodes failed after retries */
  failures: 2,
  /** stopped early by quota or --max-requests; a re-run resumes */
  stoppedEarly: 3,
  SIGINT: 130,
  SIGTERM: 143,
} as const;

export function decideExit(reasons: readonly StopReason[], failed: number, pending: number): { code: number; state: RunState } {
  const first = (kinds: StopReason["kind"][]) => reasons.find((r) => kinds.includes(r.kind));
  if (first(["auth", "misconfigured"])) return { code: EXIT.error, state: "failed" };
  const signal = first(["signal"]);
  if (signal?.kind === "signal") return { code: EXIT[signal.signal], state: "interrupted" };
  if (first(["quota", "max_requests"])) return { code: EXIT.stoppedEarly, state: "stopped" };
  if (failed > 0 || pending > 0) return { code: EXIT.failures, state: "completed" };
  return { code: EXIT.ok, state: "completed" };
}

export function describeStop(reason: StopReason): string {
  switch (reason.kind) {
    case "auth":
      return `the ${reason.lookup} key was rejected (${reason.message}); check COVERAGE_${reason.lookup.toUpperCase()}_KEY, COVERAGE_API_KEY or the --key-file`;
    case "misconfigured":
      return `${reason.lookup}: ${reason.message}`;
    case "quota":
      return `${reason.lookup}: quota exhausted, re-run resumes (${reason.message})`;
    case "max_requests":
      return `stopped after --max-requests ${reason.limit} requests; re-run resumes`;
    case "signal":
      return `interrupted by ${reason.signal}; re-run resumes`;
  }
}
