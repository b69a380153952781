// What a soak run does: its size, the faults it injects and how the batch is driven. Full runs in
// under 5 minutes on a 2-core machine, --quick in about one on a quiet one.
import type { FaultRates } from "../src/simulator/index.js";

/**
 * Time is compressed 60×: the API's limits are per minute, the soak's per second, so both the
 * simulator and the batch run with a 1,000 ms rate window.
 */
export const RATE_WINDOW_MS = 1_000;

/** Every fault at once, as issue 6 lists them. */
export const SOAK_FAULTS: Readonly<FaultRates> = {
  failRate: 0.05,
  unavailableRate: 0.02,
  resetRate: 0.02,
  stallRate: 0.01,
  malformedRate: 0.02,
  latencyMs: 10,
  jitterMs: 40,
};

export interface SoakProfile {
  name: "full" | "quick";
  /** input rows, invalid and duplicate ones included */
  rows: number;
  /** share of rows that are not valid postcodes */
  invalidShare: number;
  /** share of rows that repeat an earlier postcode in another spelling */
  duplicateShare: number;
  /** SIGKILLs of the batch, each followed by a restart */
  kills: number;
  /** runs allowed after the last kill while exit code 2 says failures remain */
  maxFinishRuns: number;
  /** the simulator's rate limit, requests per window per lookup, which the batch is not told */
  serverLimit: number;
  /** the batch's --rate per window: above serverLimit, so the server answers 429 */
  clientRate: number;
  concurrency: number;
  retries: number;
  /** --timeout, seconds: short, so stalled requests are given up quickly */
  timeoutSeconds: number;
  /** --backoff-base-ms: small, so retries do not wait real backoffs */
  backoffBaseMs: number;
  /** a batch process still running after this long is killed and the soak fails (it hung) */
  runTimeoutMs: number;
  /** the outage run: the simulator goes down once it has received this many of the run's requests */
  outageAfterRequests: number;
  /** and stays down this long (a minute and a half of real time, compressed 60×) */
  outageMs: number;
  /** --outage-limit for the run against an API that never answers */
  outageLimitSeconds: number;
  /** --max-requests for that run when the batch has no --outage-limit */
  silentMaxRequests: number;
  /** the team step's trials after its chaos and clean runs: a machine paused past its lease, clocks off */
  teamTrials: boolean;
}

const COMMON = {
  invalidShare: 0.05,
  duplicateShare: 0.1,
  kills: 3,
  maxFinishRuns: 5,
  serverLimit: 25,
  clientRate: 40,
  concurrency: 4,
  // Fewer than the default 5, so that about 1 in 600 lookups fails all its attempts (12% faults,
  // cubed): the chaos runs end with exit 2 now and then and the re-run path is exercised too.
  retries: 2,
  timeoutSeconds: 1,
  backoffBaseMs: 20,
  outageAfterRequests: 10,
  outageMs: 1_500,
  outageLimitSeconds: 3,
  silentMaxRequests: 24,
} as const;

export const PROFILES: Readonly<Record<SoakProfile["name"], SoakProfile>> = {
  full: { name: "full", rows: 2_000, runTimeoutMs: 180_000, teamTrials: true, ...COMMON },
  // what CI runs on each engine, in about a minute: faults, kills and the clean comparison
  quick: { name: "quick", rows: 300, runTimeoutMs: 45_000, teamTrials: false, ...COMMON },
};
