// What every stage of a batch shares: the run as openRun opened it (all of it there from the start;
// what a stage makes it returns), the batch's dependencies, and the small helpers over them. The
// settings are not among them: each stage takes the slice it reads.
import type { Readable } from "node:stream";
import type { LookupFunction } from "node:net";
import type { Lookup } from "../contract/fields.js";
import type { BackoffPolicy } from "../fetch/backoff.js";
import type { Clock } from "../fetch/clock.js";
import type { FetchStats } from "../fetch/fetch-lookup.js";
import type { StopControl } from "../fetch/stop.js";
import type { Store } from "../store/store.js";
import type { Lease, RunCounts } from "../store/types.js";
import { LEASE_TTL_MS, type Every, type LeaseKeeper } from "../store/lease-keeper.js";
import type { Logger } from "../log/logger.js";
import type { LeaseFence } from "./lease-fence.js";
import { EXIT } from "./exit-code.js";

/** Where the requests go: the configured API, or what the CLI started for --simulate. */
export interface ApiEndpoint {
  baseUrl: URL;
  /** the key for every lookup (a simulator's own); undefined: the configured keys */
  key?: string;
  /** for the log */
  description: string;
  close(): Promise<void>;
}

export interface BatchDeps {
  logger: Logger;
  clock?: Clock;
  random?: () => number;
  backoff?: BackoffPolicy;
  /** the API's limits are per minute; tests shorten the window */
  rateWindowMs?: number;
  /** overrides --timeout: tests of stalled servers use less than its 1 s minimum */
  timeoutMs?: number;
  /** time the pacer adds to the window (default 1% of it, at least 20 ms); tests on a busy machine widen it */
  rateMarginMs?: number;
  stdin?: Readable;
  /** install SIGINT/SIGTERM handlers for the run's duration */
  handleSignals?: boolean;
  /** --simulate: starts the API to use (the CLI passes the bundled simulator); called only if there is work */
  api?: () => Promise<ApiEndpoint>;
  isTTY?: boolean;
  maxBodyBytes?: number;
  /** the host name resolver of the API's requests (node's by default): tests of a name that does not resolve need no network */
  resolveHost?: LookupFunction;
  /** the timer that renews the run's lease (tests drive it) */
  leaseTimer?: Every;
  /** the lease's time to live (default LEASE_TTL_MS): tests of a killed machine shorten it */
  leaseTtlMs?: number;
  /** SQLite: pairs to fetch from which answers are stored on a thread of their own (default WRITER_THREAD_FROM): tests lower it */
  writerThreadFrom?: number;
  /** how long the retention waits for another reader before saying the deleted text is still in the database's files (default ERASE_WAIT_MS) */
  retentionEraseWaitMs?: number;
}

export interface BatchResult {
  exitCode: number;
  runId: number | null;
  counts: RunCounts | null;
  stats: Record<Lookup, FetchStats> | null;
}

/**
 * The run as openRun hands it on: the store under the run's lease, and the controls every stage
 * obeys. It carries no settings: each stage takes its own slice of them, named in its signature.
 */
export interface OpenedRun {
  deps: BatchDeps;
  log: Logger;
  clock: Clock;
  store: Store;
  /** the lease the run works under (one batch at a time on SQLite) */
  lease: Lease;
  /** the run's hold on it: once lost, nothing more is sent, claimed or committed */
  fence: LeaseFence;
  /** renews the lease on a timer; a long stage also asks it between its steps (renewIfDue) */
  keeper: LeaseKeeper;
  stop: StopControl;
  /** each lookup's counters, added to as the fetch goes: a run that fails keeps what it spent */
  stats: Record<Lookup, FetchStats>;
}

/**
 * A run refused before it has a run number (an unreadable --in, a locked or unusable database, a
 * database of the other kind) or whose number is given back (report options the input cannot
 * meet): one error line that ends the run, with what a run's last JSON line carries.
 */
export function refuse(log: Logger, message: string, stopReason: string): BatchResult {
  log.error(message, { event: "refused", exitCode: EXIT.error, stopReason });
  return { exitCode: EXIT.error, runId: null, counts: null, stats: null };
}

export function nowIso(run: { clock: Clock }): string {
  return new Date(run.clock.now()).toISOString();
}

export function leaseTtl(deps: BatchDeps): number {
  return deps.leaseTtlMs ?? LEASE_TTL_MS;
}

/** The requests the run has spent so far, over its lookups. */
export function spent(stats: Record<Lookup, FetchStats>): Pick<RunCounts, "requests" | "retries" | "throttled"> {
  const s = Object.values(stats);
  return {
    requests: s.reduce((n, x) => n + x.requests, 0),
    retries: s.reduce((n, x) => n + x.retries, 0),
    throttled: s.reduce((n, x) => n + x.throttled, 0),
  };
}
