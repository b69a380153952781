// The open stage: the store, the lease (before the run writes anything: a second batch must not
// even add columns), the check that the database holds answers of this run's kind, then the
// controls every later stage obeys (stop, lease fence, the lease's keeper, signal handlers). What
// it opens goes into the run's resources, to be closed last first however the run ends.
import { hostname } from "node:os";
import { systemClock, type Clock } from "../fetch/clock.js";
import { emptyStats } from "../fetch/fetch-lookup.js";
import { StopControl, type StopReason } from "../fetch/stop.js";
import { openStore, storeError } from "../store/open-store.js";
import type { Store } from "../store/store.js";
import { DatabaseError, LockedError, type Lease, type LeaseTaken } from "../store/types.js";
import { otherKindMessage } from "../store/data-kind.js";
import { keepLease, type LeaseKeeper } from "../store/lease-keeper.js";
import { processIdentity } from "../store/process-identity.js";
import type { Logger } from "../log/logger.js";
import { perLookup } from "../contract/lookups.js";
import type { Lookup } from "../contract/fields.js";
import { oneLine } from "../errors.js";
import type { BatchConfig } from "./config.js";
import { decideExit, describeStops, EXIT, runKeys, stopReasonCode } from "./exit-code.js";
import { LeaseFence } from "./lease-fence.js";
import { teamClock } from "./team-clock.js";
import { leaseTtl, refuse, type BatchDeps, type BatchResult, type OpenedRun } from "./run.js";
import { RunResources } from "./run-resources.js";

export async function openRun(config: BatchConfig, deps: BatchDeps): Promise<{ run: OpenedRun; resources: RunResources } | BatchResult> {
  const log = deps.logger;
  const store = await openStoreOrRefuse(config, deps, log);
  if ("exitCode" in store) return store;
  const held = await takeLease(store, deps, log);
  if ("exitCode" in held) return held;
  const mixed = await otherKindRefusal(store, held.lease, config, log);
  if (mixed) return mixed;
  return startControls(config, deps, store, held);
}

async function openStoreOrRefuse(config: Pick<BatchConfig, "db">, deps: Pick<BatchDeps, "writerThreadFrom">, log: Logger): Promise<Store | BatchResult> {
  try {
    return await openStore(config.db, { writerThreadFrom: deps.writerThreadFrom });
  } catch (err) {
    const named = storeError(err, config.db);
    if (!(named instanceof DatabaseError)) throw named;
    return refuse(log, named.message, "database");
  }
}

/** The team's clock and the run's lease; a locked or failing database is refused, and closed. */
async function takeLease(store: Store, deps: BatchDeps, log: Logger): Promise<{ clock: Clock; lease: Lease } | BatchResult> {
  try {
    const clock = await teamClock(store, deps.clock ?? systemClock, log);
    const taken = await store.leases.take({ host: hostname(), pid: process.pid, process: processIdentity(process.pid) }, clock.now(), leaseTtl(deps));
    if (taken.previous) log.warn(tookOverMessage(taken.previous));
    return { clock, lease: taken.lease };
  } catch (err) {
    await closeQuietly(store, log);
    if (!(err instanceof LockedError) && !(err instanceof DatabaseError)) throw err;
    return refuse(log, err.message, err instanceof LockedError ? "locked" : "database");
  }
}

/** Simulated answers and real ones never share a database: the quota ledger and the reports would mix them. */
async function otherKindRefusal(store: Store, lease: Lease, config: Pick<BatchConfig, "simulate" | "db">, log: Logger): Promise<BatchResult | null> {
  let otherKind: boolean;
  try {
    otherKind = await store.answers.holdsOtherKind(config.simulate);
  } catch (err) {
    // a damaged database fails here first: one line naming it, and the lease given back
    await releaseQuietly(store, lease, log);
    await closeQuietly(store, log);
    const named = storeError(err, config.db);
    if (!(named instanceof DatabaseError)) throw named;
    return refuse(log, named.message, "database");
  }
  if (!otherKind) return null;
  await releaseQuietly(store, lease, log);
  await closeQuietly(store, log);
  return refuse(log, otherKindMessage(store.location, config.simulate), "mixed_data");
}

/** The run's controls, each closing with the run: the lease's release, its keeper, the signal handlers. */
function startControls(config: Pick<BatchConfig, "keys" | "lookups">, deps: BatchDeps, store: Store, { clock, lease }: { clock: Clock; lease: Lease }): { run: OpenedRun; resources: RunResources } {
  const log = deps.logger;
  const stop = new StopControl((reason) => logStop(log, reason, runKeys(config)));
  const fence = new LeaseFence(leaseTtl(deps), (why) => stop.stopAll({ kind: "lease_lost", message: why }));
  // The lease lapses if not renewed: a killed batch's run is abandoned by the next one.
  const keeper = keepRunLease({ store, lease, fence, deps, clock, log });
  const run: OpenedRun = { deps, log, clock, store, lease, fence, keeper, stop, stats: perLookup(() => emptyStats()) };
  const resources = new RunResources();
  resources.add(async () => {
    try {
      // a lost lease is not released: its unspent reservations stay counted as sent
      if (!fence.knownLost) await store.leases.release(lease.id);
    } finally {
      await store.close();
    }
  });
  resources.add(() => keeper.stop());
  if (deps.handleSignals) resources.add(installSignals(stop, log));
  return { run, resources };
}

/** Whose lease a starting batch took over, and why it was free: expired, or its process on this host gone. */
function tookOverMessage(previous: NonNullable<LeaseTaken["previous"]>): string {
  const whose = `pid ${previous.pid} on ${previous.host} (run ${previous.runId ?? "?"})`;
  return previous.why === "expired" ? `took over the lease of ${whose}: it expired without renewal` : `took over the lease of ${whose}, which is no longer running`;
}

/** Renews the run's lease on a timer; a renewal refused (it expired) loses it through the fence. */
function keepRunLease({ store, lease, fence, deps, clock, log }: Pick<OpenedRun, "store" | "lease" | "fence" | "deps" | "clock" | "log">): LeaseKeeper {
  return keepLease(store, lease.id, {
    ttlMs: leaseTtl(deps),
    now: () => clock.now(),
    ...(deps.leaseTimer ? { every: deps.leaseTimer } : {}),
    onLost: () => fence.lose(`its renewal on ${store.location} was refused: it expired (another batch may have taken over its work)`),
    onRenewing: () => {
      const sentAt = fence.mark();
      return () => fence.renewed(sentAt);
    },
    onError: (err) => log.warn(`cannot renew the lease on ${store.location}: ${oneLine(err)}`),
  });
}

async function releaseQuietly(store: Store, lease: Lease, log: Logger): Promise<void> {
  try {
    await store.leases.release(lease.id);
  } catch (err) {
    log.warn(`cannot release the lock in ${store.location}: ${oneLine(err)}`);
  }
}

async function closeQuietly(store: Store, log: Logger): Promise<void> {
  try {
    await store.close();
  } catch (err) {
    log.warn(`cannot close ${store.location}: ${oneLine(err)}`);
  }
}

/** Why the run stops, the moment it does (with --quiet too: the log of a run that hangs afterwards says it). */
function logStop(log: Logger, reason: StopReason, keys: Partial<Record<Lookup, string>>): void {
  const fields = { event: "stop", stopReason: stopReasonCode(reason) };
  const line = describeStops([reason], keys)!;
  if (decideExit([reason], 0, 0).code === EXIT.error) log.error(line, fields);
  else log.milestone("warn", line, fields);
}

function installSignals(stop: StopControl, log: Logger): () => void {
  const handler = (signal: "SIGINT" | "SIGTERM" | "SIGHUP") => {
    if (stop.stopped && stop.reasons.some((r) => r.kind === "signal")) {
      log.warn(`${signal} again: abandoning requests in flight`);
      stop.abortInFlight();
      return;
    }
    log.warn(`${signal}: finishing requests in flight, then stopping (again to stop at once)`);
    stop.stopAll({ kind: "signal", signal });
  };
  const onInt = () => handler("SIGINT");
  const onTerm = () => handler("SIGTERM");
  // The terminal or parent that started the batch went away: stop cleanly rather than run on unseen.
  const onHup = () => handler("SIGHUP");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  process.on("SIGHUP", onHup);
  return () => {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
    process.off("SIGHUP", onHup);
  };
}
