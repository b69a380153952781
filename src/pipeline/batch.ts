// The batch: input → plan → fetch → store → report, as named stages over one run context.
// Resources (store and lease, signal handlers, API endpoint, HTTP client) are opened in
// openRun/connect and closed in one place, closeRun. Everything the CLI does, minus flag parsing.
import { hostname } from "node:os";
import type { Readable } from "node:stream";
import type { Lookup } from "../spec/fields.js";
import { DEFAULT_BACKOFF, type BackoffPolicy } from "../fetch/backoff.js";
import { RequestBudget } from "../fetch/budget.js";
import { systemClock, type Clock } from "../fetch/clock.js";
import { emptyStats, fetchLookup, type FetchStats } from "../fetch/fetch-lookup.js";
import { createHttpClient } from "../fetch/http-client.js";
import { Pacer, type SharedPace } from "../fetch/pacer.js";
import { StopControl, type StopReason } from "../fetch/stop.js";
import { describeReasons, planFetches } from "../plan/plan.js";
import { openStore, storeError } from "../store/open-store.js";
import { expireAnswers } from "./retention-stage.js";
import { answeredBefore } from "./product-closed.js";
import { expiringBefore } from "../plan/retention.js";
import type { Store } from "../store/store.js";
import type { CommitGrouping } from "../store/commit-group.js";
import { DatabaseError, LeaseLostError, LockedError, type Lease, type LeaseTaken, type RunCounts, type RunState } from "../store/types.js";
import { otherKindMessage } from "../store/data-kind.js";
import { keepLease, LEASE_TTL_MS, type Every, type LeaseKeeper } from "../store/lease-keeper.js";
import { processIdentity } from "../store/process-identity.js";
import { keyId } from "../store/key-id.js";
import { ClaimedPairs, claimPollMs } from "./claimed-pairs.js";
import { recordMobileScales } from "./scale-stage.js";
import { LeaseFence } from "./lease-fence.js";
import { teamClock } from "./team-clock.js";
import { headlineLines, openFirstLine, REPORT_FILES, writeReportsUnlessCurrent } from "../report/index.js";
import { dbReadPaths, readPathInReportSet, type ReadPath } from "../report/read-paths.js";
import { inputShapeProblem, reportOptionsProblem } from "../report/check-options.js";
import type { Logger } from "../log/logger.js";
import { startProgress } from "../log/progress.js";
import type { BatchConfig } from "./config.js";
import { decideExit, describeStop, EXIT, lateSignal, stopReasonCode } from "./exit-code.js";
import { openInputSource, readInputIntoRun } from "./read-stage.js";
import { startRunQuota, type RunQuota } from "./quota.js";
import { LOOKUP_SPECS, perLookup } from "../spec/lookups.js";
import { isFileSystemError, oneLine } from "../errors.js";

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
  /** the timer that renews the run's lease (tests drive it) */
  leaseTimer?: Every;
  /** the lease's time to live (default LEASE_TTL_MS): tests of a killed machine shorten it */
  leaseTtlMs?: number;
}

export interface BatchResult {
  exitCode: number;
  runId: number | null;
  counts: RunCounts | null;
  stats: Record<Lookup, FetchStats> | null;
}

export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;
/**
 * The answers (with their ledger rows) commit on the next turn, or, once a commit held 12 writes
 * or more (answers come faster than turns: only against an unlimited server), 20 ms after the last
 * commit, 500 at most: commits that small cost more CPU than fetching (docs/bench.md). A longer
 * window (100 ms) made each commit long enough to hold up the answers behind it (latency-bound
 * scenario: 0.77 against 0.87). A kill then loses at most those 20 ms of answers.
 */
export const ANSWER_GROUPING: CommitGrouping = { windowMs: 20, maxWrites: 500, busyWrites: 12 };
/** How long an answer may take from arrival to commit, on a busy machine, for planTime. */
const COMMIT_SLACK_MS = 30_000;
/** How often the request counters are written to the run's row. */
const CHECKPOINT_MS = 1_000;

type FetchPlan = Awaited<ReturnType<typeof planFetches>>;

/** Everything one run shares between its stages. */
interface RunContext {
  config: BatchConfig;
  deps: BatchDeps;
  log: Logger;
  clock: Clock;
  store: Store;
  /** the lease the run works under (one batch at a time on SQLite) */
  lease: Lease;
  /** the run's hold on it: once lost, nothing more is sent, claimed or committed */
  fence: LeaseFence;
  stop: StopControl;
  runId: number | null;
  stats: Record<Lookup, FetchStats>;
  input: { inputRows: number; rejects: number } | null;
  plan: FetchPlan | null;
  /** when the plan was made (ISO): what other runs fetch after it is reused */
  plannedAt: string | null;
  /** the month's request ledger and tonight's allowance (--monthly-quota), from the plan stage on */
  quota: RunQuota | null;
  api: ApiEndpoint | null;
  /** the run row holds its final state */
  finished: boolean;
  /** how the run ended, as its last line said: a failed cleanup after it says the same */
  ending?: { exitCode: number; stopReason: string | null };
  cleanups: (() => void | Promise<void>)[];
}

export async function runBatch(config: BatchConfig, deps: BatchDeps): Promise<BatchResult> {
  for (const key of Object.values(config.keys)) if (key) deps.logger.addSecret(key);
  // Before anything is read: a file the run reads must not be one the report set replaces.
  const clash = config.reports ? readPathInReportSet(readPaths(config), config.out, REPORT_FILES.map((f) => f.name)) : null;
  if (clash) return refuse(deps.logger, clash, "input");
  const input = await openInputSource(config, deps.stdin);
  if (!("stream" in input)) return refuse(deps.logger, input.message, "input");
  const ctx = await openRun(config, deps);
  if (!("store" in ctx)) {
    input.stream.destroy();
    return ctx;
  }
  try {
    ctx.runId = await startRun(ctx);
    const read = await readInputIntoRun(ctx.store, ctx.runId, input, config, deps, ctx.stop.stopAllSignal);
    if (!read.ok) return await failBeforeFetching(ctx, read.message, "input");
    ctx.input = read;
    // Report options that name columns, and an input the reports cannot hold, are refused now, before anything is fetched.
    const shapeProblem = config.reports ? inputShapeProblem(read.shape) : null;
    if (shapeProblem) return await failBeforeFetching(ctx, shapeProblem, "input");
    const reportProblem = config.reports ? await reportOptionsProblem(ctx.store, ctx.runId, config) : null;
    if (reportProblem) return await failBeforeFetching(ctx, reportProblem, "options");
    if (config.openData) {
      // loaded only when asked for: every other run starts without the zip reader
      const { importOpenData } = await import("./open-data-stage.js");
      const imported = await importOpenData(ctx.store, config.openData, { runId: ctx.runId, now: () => nowIso(ctx) }, ctx.log, ctx.stop.stopAllSignal);
      if (!imported.ok) return await failBeforeFetching(ctx, imported.message, "input");
    }
    ctx.plan = await planStage(ctx);
    await fetchStage(ctx);
    await recordMobileScales(ctx.store, config, ctx.stats.mobile, ctx.log);
    const result = await finishStage(ctx);
    // A run that stopped before any answer (rejected key, wrong URL) replaces no reports.
    const reportFailure = config.reports && result.state !== "failed" ? await reportStage(ctx) : null;
    let stopReason = ctx.stop.reasons[0] ? stopReasonCode(ctx.stop.reasons[0]) : null;
    const late = lateSignal(ctx.stop.reasons, result.exitCode);
    if (late) await recordExit(ctx, (result.exitCode = late.code), (result.message = late.message), late.state);
    if (reportFailure) {
      // the run row was written before the reports: it takes the exit the process really ends with
      result.exitCode = result.exitCode === EXIT.ok ? EXIT.error : result.exitCode;
      result.message = result.message ? `${result.message}; ${reportFailure}` : reportFailure;
      stopReason ??= "reports";
      await recordExit(ctx, result.exitCode, result.message);
    }
    printSummary(ctx, result.counts, result.exitCode, result.message, stopReason);
    return { exitCode: result.exitCode, runId: ctx.runId, counts: result.counts, stats: ctx.stats };
  } catch (err) {
    await failUnexpectedly(ctx, err);
    // A full disk or a damaged database is one line naming the database, not a stack trace.
    const named = storeError(err, config.db);
    if (!(named instanceof DatabaseError) && !isFileSystemError(err)) throw err;
    ctx.ending = { exitCode: EXIT.error, stopReason: "database" };
    ctx.log.error(oneLine(named), { event: "failed", runId: ctx.runId, exitCode: EXIT.error, stopReason: "database" });
    return { exitCode: EXIT.error, runId: ctx.runId, counts: null, stats: ctx.stats };
  } finally {
    await closeRun(ctx);
  }
}

/** Every file the run reads, by the flag that names it (the database with its companions). */
function readPaths(config: BatchConfig): ReadPath[] {
  return [
    ...(config.in !== "-" ? [{ flag: "--in", path: config.in }] : []),
    ...(config.areaFile ? [{ flag: "--area-file", path: config.areaFile }] : []),
    ...(config.keyFile ? [{ flag: "--key-file", path: config.keyFile }] : []),
    ...(config.openData ? [{ flag: "--open-data", path: config.openData }] : []),
    ...dbReadPaths(config.db),
  ];
}

/**
 * A run refused before it has a run number (an unreadable --in, a locked or unusable database, a
 * database of the other kind) or whose number is given back (report options the input cannot
 * meet): one error line that ends the run, with what a run's last JSON line carries.
 */
function refuse(log: Logger, message: string, stopReason: string): BatchResult {
  log.error(message, { event: "refused", exitCode: EXIT.error, stopReason });
  return { exitCode: EXIT.error, runId: null, counts: null, stats: null };
}

/** Store and lease. The lease comes before the run writes anything: a second batch must not even add columns. */
async function openRun(config: BatchConfig, deps: BatchDeps): Promise<RunContext | BatchResult> {
  const log = deps.logger;
  let clock: Clock;
  let store: Store;
  let lease: Lease;
  try {
    store = await openStore(config.db);
  } catch (err) {
    const named = storeError(err, config.db);
    if (!(named instanceof DatabaseError)) throw named;
    return refuse(log, named.message, "database");
  }
  try {
    clock = await teamClock(store, deps.clock ?? systemClock, log);
    const taken = await store.leases.take({ host: hostname(), pid: process.pid, process: processIdentity(process.pid) }, clock.now(), leaseTtl(deps));
    lease = taken.lease;
    if (taken.previous) log.warn(tookOverMessage(taken.previous));
  } catch (err) {
    await closeQuietly(store, log);
    if (!(err instanceof LockedError) && !(err instanceof DatabaseError)) throw err;
    return refuse(log, err.message, err instanceof LockedError ? "locked" : "database");
  }
  // Simulated answers and real ones never share a database: the quota ledger and the reports would mix them.
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
  if (otherKind) {
    await releaseQuietly(store, lease, log);
    await closeQuietly(store, log);
    return refuse(log, otherKindMessage(store.location, config.simulate), "mixed_data");
  }
  const stop = new StopControl((reason) => logStop(log, reason));
  const fence = new LeaseFence(leaseTtl(deps), (why) => stop.stopAll({ kind: "lease_lost", message: why }));
  const ctx: RunContext = {
    config,
    deps,
    log,
    clock,
    store,
    lease,
    fence,
    stop,
    runId: null,
    stats: perLookup(() => emptyStats()),
    input: null,
    plan: null,
    plannedAt: null,
    quota: null,
    api: null,
    finished: false,
    cleanups: [],
  };
  ctx.cleanups.push(async () => {
    try {
      // a lost lease is not released: its unspent reservations stay counted as sent
      if (!fence.knownLost) await store.leases.release(lease.id);
    } finally {
      await store.close();
    }
  });
  // The lease lapses if not renewed: a killed batch's run is abandoned by the next one.
  const keeper = keepRunLease(ctx);
  ctx.cleanups.push(() => keeper.stop());
  if (deps.handleSignals) ctx.cleanups.push(installSignals(stop, log));
  return ctx;
}

/** Whose lease a starting batch took over, and why it was free: expired, or its process on this host gone. */
function tookOverMessage(previous: NonNullable<LeaseTaken["previous"]>): string {
  const whose = `pid ${previous.pid} on ${previous.host} (run ${previous.runId ?? "?"})`;
  return previous.why === "expired" ? `took over the lease of ${whose}: it expired without renewal` : `took over the lease of ${whose}, which is no longer running`;
}

/** Renews the run's lease on a timer; a renewal refused (it expired) loses it through the fence. */
function keepRunLease({ store, lease, fence, deps, clock, log }: RunContext): LeaseKeeper {
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

function leaseTtl(deps: BatchDeps): number {
  return deps.leaseTtlMs ?? LEASE_TTL_MS;
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

/** Closes what openRun and connect opened, last opened first. A cleanup that fails is logged and the rest still run. */
async function closeRun(ctx: RunContext): Promise<void> {
  for (const cleanup of ctx.cleanups.reverse()) {
    try {
      await cleanup();
    } catch (err) {
      const ending = ctx.ending ?? { exitCode: EXIT.error, stopReason: "cleanup" };
      ctx.log.error(`cleanup failed: ${oneLine(storeError(err, ctx.config.db))}; the next batch takes over the lock of this finished process`, {
        event: "cleanup_failed",
        runId: ctx.runId,
        ...ending,
      });
    }
  }
}

function nowIso(ctx: RunContext): string {
  return new Date(ctx.clock.now()).toISOString();
}

async function startRun(ctx: RunContext): Promise<number> {
  const { store, config, log } = ctx;
  await store.answers.prepareProviders(config.providers);
  const abandoned = await store.runs.abandonOrphans(nowIso(ctx), ctx.clock.now());
  if (abandoned > 0) log.warn(`${abandoned} earlier run(s) had been killed; their finished answers are kept and this run resumes`);
  await expireAnswers(store, config.retention, ctx.clock.now(), log);
  return store.runs.create({
    startedAt: nowIso(ctx),
    simulated: config.simulate,
    inputName: config.in,
    args: config.recordedArgs,
    lookups: config.lookups,
    providers: config.providers,
    leaseId: ctx.lease.id,
  });
}

/**
 * Input or report options: nothing was fetched, so no report is written. A bad input is recorded as
 * a failed run; report options naming columns the input lacks are a configuration mistake, and
 * the run is forgotten (it keeps no run number), as if refused before it started.
 */
async function failBeforeFetching(ctx: RunContext, message: string, stopReason: "input" | "options"): Promise<BatchResult> {
  ctx.finished = true;
  if (stopReason === "options") {
    await ctx.store.runs.forget(ctx.runId!);
    return refuse(ctx.log, message, stopReason);
  }
  ctx.ending = { exitCode: EXIT.error, stopReason };
  ctx.log.error(message, { event: "failed", runId: ctx.runId, exitCode: EXIT.error, stopReason });
  await ctx.store.runs.finish(ctx.runId!, { endedAt: nowIso(ctx), state: "failed", exitCode: EXIT.error, message, counts: countsSoFar(ctx) });
  return { exitCode: EXIT.error, runId: ctx.runId, counts: null, stats: null };
}

async function planStage(ctx: RunContext): Promise<FetchPlan> {
  const { config, log, clock } = ctx;
  ctx.plannedAt = await planTime(ctx);
  ctx.quota = await startRunQuota(ctx.store, config, { runId: ctx.runId!, leaseId: ctx.lease.id, fence: ctx.fence }, () => clock.now(), ctx.stop, log);
  const plan = await planFetches(ctx.store, {
    runId: ctx.runId!,
    lookups: config.lookups,
    freshSince: new Date(clock.now() - config.maxAge).toISOString(),
    refresh: config.refresh,
    providers: config.providers,
    simulated: config.simulate,
    now: nowIso(ctx),
    probe: config.probe,
    order: config.order,
    groupBy: config.groupBy,
    expiringBefore: expiringBefore(clock.now(), config.retention),
    quota: ctx.quota.planOptions,
    openData: config.openData !== null ? config.openDataPremises : undefined,
  });
  const { inputRows, rejects } = ctx.input!;
  log.milestone(
    "info",
    `run ${ctx.runId}: ${inputRows} input rows, ${plan.postcodes} unique postcodes, ${rejects} rejected; ` +
      config.lookups
        .map((l) => {
          const probes = plan.probes.get(l);
          const why = plan.reused.get(l)! > 0 && probes && probes.probes === 0 && probes.why !== "--probe 0" ? ` (no probes: ${probes.why})` : "";
          return `${l}: ${plan.toFetch.get(l)!.length} to fetch (${describeReasons(plan.reasons.get(l)!)}), ${plan.reused.get(l)} fresh${why}`;
        })
        .join("; "),
    { event: "plan", runId: ctx.runId, inputRows, postcodes: plan.postcodes, rejects },
  );
  for (const [lookup, c] of plan.openDataNew)
    if (c.multiBand + c.singleBand + c.notListed > 0)
      log.info(
        `${lookup}: of ${c.multiBand + c.singleBand + c.notListed} new postcodes, Ofcom's open data puts ${c.multiBand} in more than one speed band (fetched first), ` +
          `${c.singleBand} wholly in one (fetched after), ${c.notListed} not listed`,
        { event: "plan_open_data", lookup, ...c },
      );
  return plan;
}

/**
 * Since when answers other runs store count as fetched meanwhile (reused, not fetched). An answer
 * is timed when it arrives and committed a moment later, so one that arrived just before this plan
 * may be missing from it: while other batches run, the mark goes back a little to cover that. Alone
 * on the store (SQLite always), it is now, and a run fetches all it planned.
 */
async function planTime(ctx: RunContext): Promise<string> {
  const now = ctx.clock.now();
  const others = (await ctx.store.leases.live(now)).some((l) => l.id !== ctx.lease.id);
  return new Date(others ? now - COMMIT_SLACK_MS : now).toISOString();
}

/** The API to use: --simulate's (started only when there is work) or the configured one. */
async function connect(ctx: RunContext): Promise<ApiEndpoint> {
  const { config, deps, log } = ctx;
  if (!config.simulate) return { baseUrl: config.baseUrl!, description: config.baseUrl!.href, close: async () => {} };
  if (!deps.api) throw new Error("--simulate needs an API to start (BatchDeps.api)");
  const api = await deps.api();
  ctx.cleanups.push(() => api.close());
  if (api.key) log.addSecret(api.key);
  log.info(`simulated run: using ${api.description}`);
  return api;
}

function spent(ctx: RunContext): Pick<RunCounts, "requests" | "retries" | "throttled"> {
  const s = Object.values(ctx.stats);
  return {
    requests: s.reduce((n, x) => n + x.requests, 0),
    retries: s.reduce((n, x) => n + x.retries, 0),
    throttled: s.reduce((n, x) => n + x.throttled, 0),
  };
}

async function fetchStage(ctx: RunContext): Promise<void> {
  const { config, deps, log, stop, store, clock } = ctx;
  const plan = ctx.plan!;
  const total = config.lookups.reduce((n, l) => n + plan.toFetch.get(l)!.length, 0);
  if (total === 0 || stop.stopped) return;
  const api = await connect(ctx);
  ctx.api = api;
  if (stop.stopped) return;
  const http = createHttpClient({
    // one socket per request in flight: both lookups share the client (and the host)
    maxSockets: config.concurrency * config.lookups.length,
    timeoutMs: deps.timeoutMs ?? config.timeout,
    maxBodyBytes: deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
  });
  // A commit that fails (a full disk) stops fetching; flush() below rethrows it.
  const writer = await store.answers.openWriter({
    providers: config.providers,
    simulated: config.simulate,
    release: config.release,
    grouping: ANSWER_GROUPING,
    lease: { id: ctx.lease.id, now: () => clock.now() },
    onError: (err) => (err instanceof LeaseLostError || ctx.fence.lost ? ctx.fence.writeRefused() : stop.halt()),
  });
  const budget = new RequestBudget(config.maxRequests);
  const pacing = { rate: config.rate, windowMs: deps.rateWindowMs ?? 60_000, ...(deps.rateMarginMs !== undefined ? { marginMs: deps.rateMarginMs } : {}) };
  // the key's pace is the store's, shared with every batch using the key (the key itself never reaches the store)
  const keyIds = new Map(config.lookups.map((l) => [l, keyId(api.key ?? config.keys[l]!)]));
  const sharedPace = (lookup: Lookup): SharedPace => ({
    nextSlot: (intervalMs, nowMs) => store.pace.nextSlot(lookup, keyIds.get(lookup)!, intervalMs, nowMs),
    slowDown: (untilMs) => store.pace.slowDown(lookup, keyIds.get(lookup)!, untilMs),
  });
  const pacers = new Map(config.lookups.map((l) => [l, new Pacer(pacing, clock, sharedPace(l))]));
  // each lookup's pairs, claimed under the run's lease as the workers ask for them
  const pairs = new Map(
    config.lookups.map((lookup) => [
      lookup,
      new ClaimedPairs(plan.toFetch.get(lookup)!, {
        store,
        writer,
        leaseId: ctx.lease.id,
        runId: ctx.runId!,
        lookup,
        plannedAt: ctx.plannedAt!,
        clock,
        pollMs: claimPollMs(leaseTtl(deps)),
        signal: stop.signalFor(lookup),
        fence: ctx.fence,
      }),
    ]),
  );
  const progress = startProgress({
    mode: progressMode(config, deps.isTTY === true),
    total,
    logger: log,
    now: () => clock.now(),
    snapshot: () => ({
      done: Object.values(ctx.stats).reduce((n, s) => n + s.ok + s.notFound + s.failed, 0),
      total,
      lookups: config.lookups.map((l) => ({ lookup: l, requests: ctx.stats[l].requests, rate: config.rate })),
    }),
  });
  // `npm run status` during a run, and the row of a run that gets killed, show what it spent.
  const runId = ctx.runId!;
  const checkpoint = setInterval(
    () => void store.runs.checkpoint(runId, spent(ctx)).catch((err: unknown) => log.warn(`cannot checkpoint run ${runId}: ${oneLine(err)}`)),
    CHECKPOINT_MS,
  );
  checkpoint.unref();
  try {
    await Promise.all(
      config.lookups.map(async (lookup) => {
        const claimed = pairs.get(lookup)!;
        await fetchLookup(claimed, {
          lookup,
          baseUrl: api.baseUrl,
          key: api.key ?? config.keys[lookup]!,
          providers: config.providers,
          concurrency: config.concurrency,
          retries: config.retries,
          backoff: deps.backoff ?? DEFAULT_BACKOFF,
          outageLimitMs: config.outageLimit,
          runId,
          http,
          pacer: pacers.get(lookup)!,
          clock,
          random: deps.random ?? Math.random,
          budget,
          stop,
          stats: ctx.stats[lookup],
          redact: (text) => log.redact(text),
          holdsSecret: (text) => log.holdsSecret(text),
          onFinal: (record) => {
            writer.write(record);
            claimed.done(record.postcode);
          },
          // the ledger's row joins the transaction of the answers queued with it
          onRequest: ctx.quota!.onRequest(lookup, writer, (untilMs) =>
            void store.pace.block(lookup, keyIds.get(lookup)!, untilMs).catch((err: unknown) => log.warn(`cannot share the quota block: ${oneLine(err)}`)),
          ),
          lookupBudget: ctx.quota!.budget(lookup),
          productKnown: answeredBefore(ctx.plan!, lookup),
          onEvent: (e) => (e.level === "warn" ? log.warn(e.message, { event: "outage", lookup }) : log.debug(e.message)),
        });
        await claimed.releaseFinished();
        if (claimed.waitedFor > 0)
          log.info(`${lookup}: ${claimed.waitedFor} postcodes were held by another run; ${claimed.takenOver} of them fetched here after its lease lapsed`, {
            event: "claims",
            lookup,
            waitedFor: claimed.waitedFor,
            takenOver: claimed.takenOver,
          });
        if (claimed.reused > 0)
          log.info(`${lookup}: ${claimed.reused} postcodes fetched by another run since this one planned, reused`, { event: "reused", lookup, reused: claimed.reused });
      }),
    );
    await ctx.fence.guard(() => writer.flush(), undefined);
    await recordReleaseChecks(ctx);
  } finally {
    // what an error left queued (answers, ledger rows) is still written, unless the store itself failed
    try {
      await writer.flush();
    } catch {
      // the error that stopped the fetch is the one to report
    }
    clearInterval(checkpoint);
    progress.stop();
    http.close();
  }
}

interface Finish {
  exitCode: number;
  state: ReturnType<typeof decideExit>["state"];
  counts: RunCounts;
  message: string | null;
}

async function finishStage(ctx: RunContext): Promise<Finish> {
  const { stop, config, store } = ctx;
  ctx.quota!.afterFetch(ctx.plan!, stop);
  await ctx.quota!.giveBack();
  // the pairs the batch that took over answered are answered, not pending
  if (ctx.fence.knownLost) for (const lookup of config.lookups) await store.plan.dropAnsweredElsewhere(ctx.runId!, lookup, ctx.plannedAt!);
  const final = await store.runs.finalCounts(ctx.runId!, config.lookups);
  // a refresh the quota spreads over nights is not finished while refreshes are deferred
  if (config.refresh) await store.plan.closeRefreshMarks(ctx.runId!, config.lookups.filter((l) => !ctx.plan!.deferred.get(l)?.refreshes));
  const counts: RunCounts = { ...ctx.input!, postcodes: ctx.plan!.postcodes, ...final, ...spent(ctx) };
  const { code, state } = decideExit(stop.reasons, final.failed, final.pending);
  const message = stop.reasons.length > 0 ? describeStop(stop.reasons[0]!) : null;
  await store.runs.finish(ctx.runId!, { endedAt: nowIso(ctx), state, exitCode: code, message, counts });
  ctx.finished = true;
  return { exitCode: code, state, counts, message };
}

/**
 * Each lookup whose release the run checked (its probe round, or answers that tell as much) and
 * whose fetching ended unstopped: the time goes to the store, so that a second run today sends no
 * probe round (plan/probe-rule.ts).
 */
async function recordReleaseChecks(ctx: RunContext): Promise<void> {
  const { store, stop, config } = ctx;
  const at = nowIso(ctx);
  for (const lookup of config.lookups) {
    const check = ctx.plan!.probes.get(lookup)?.check;
    if (!check || stop.stopped || stop.signalFor(lookup).aborted) continue;
    // a probe round the quota left for later nights checked nothing
    if (check === "probes" && ctx.plan!.reasons.get(lookup)!.probe === 0) continue;
    // a mobile check by answers needs one that names its release (not-found answers name none)
    if (check === "answers" && LOOKUP_SPECS[lookup].namesRelease && !(await store.releaseChecks.runStoredNamedRelease(ctx.runId!, lookup))) continue;
    await store.releaseChecks.record({ lookup, at, how: check, runId: ctx.runId! });
  }
}

/** The run's report set, replaced whole. Returns why it could not be written (the run then exits 1), or null. */
async function reportStage(ctx: RunContext): Promise<string | null> {
  const { log, config } = ctx;
  const options = {
    outDir: config.out,
    runId: ctx.runId,
    groupBy: config.groupBy,
    areaFile: config.areaFile,
    uprnColumn: config.uprnColumn,
    mobileScale: config.mobileScale,
    goodRating: config.goodRating,
    command: "batch",
    // the run's clock: what the reports hide as expired is what this run would delete
    now: () => new Date(ctx.clock.now()),
    attribution: config.attribution,
    workbookRows: config.workbookRows,
    onWarning: (m: string) => log.warn(m),
  };
  log.debug(`writing the reports to ${config.out}`, { event: "reports-start" });
  try {
    // A nightly run that changed nothing keeps the set it would rewrite (report/fingerprint.ts).
    const report = await writeReportsUnlessCurrent(ctx.store, options);
    if (report === "current") {
      // milestones: even a --quiet night's log says whether the reports were kept or written
      log.milestone("info", `reports are current: ${config.out} already holds this set (same input, options and answers), kept as it is`, { event: "reports" });
      log.result(openFirstLine(config.out));
      return null;
    }
    log.milestone("info", `reports written to ${config.out}: ${report.files.map((f) => f.split(/[\\/]/).pop()).join(", ")}`, { event: "reports" });
    for (const line of headlineLines(report.summary)) log.result(line);
    for (const note of report.notes) log.result(note, { event: "note" });
    log.result(openFirstLine(config.out));
    return null;
  } catch (caught) {
    // a failure of the database names it (without password) and says what ended the connection
    const err = storeError(caught, config.db);
    const message = `${oneLine(err)}; the previous reports are unchanged and the database is complete: \`npm run report\` retries`;
    log.error(message, { event: "reports" });
    return `reports not written: ${oneLine(err)}`;
  }
}

/** The exit and message the run really ends with, when the report stage changed them; a failure here is logged, not thrown. */
async function recordExit(ctx: RunContext, exitCode: number, message: string, state?: RunState): Promise<void> {
  try {
    await ctx.store.runs.setExit(ctx.runId!, exitCode, message, state);
  } catch (err) {
    ctx.log.error(`cannot record the run's exit in ${ctx.config.db}: ${oneLine(err)}`);
  }
}

/** Input counts as read and requests as spent so far: an unexpected failure keeps them. */
function countsSoFar(ctx: RunContext): RunCounts {
  return {
    inputRows: ctx.input?.inputRows ?? 0,
    postcodes: ctx.plan?.postcodes ?? 0,
    rejects: ctx.input?.rejects ?? 0,
    ok: 0,
    notFound: 0,
    failed: 0,
    pending: 0,
    ...spent(ctx),
  };
}

/** A bug or a broken disk: nothing more is sent, and the run's row says so instead of staying "running". */
async function failUnexpectedly(ctx: RunContext, err: unknown): Promise<void> {
  ctx.stop.halt();
  if (ctx.runId === null || ctx.finished) return;
  try {
    const message = `unexpected failure: ${ctx.log.redact((err as Error).message)}`;
    let counts = countsSoFar(ctx);
    try {
      counts = { ...counts, ...(await ctx.store.runs.finalCounts(ctx.runId, ctx.config.lookups)) };
    } catch {
      // the database itself failed: the counts spent so far still stand
    }
    await ctx.store.runs.finish(ctx.runId, { endedAt: nowIso(ctx), state: "failed", exitCode: EXIT.error, message, counts });
  } catch {
    // the database itself is what failed; the next batch marks the run abandoned
  }
}

/** A line on a terminal, a log line every 10 s elsewhere (cron, pipes), nothing with --no-progress or --quiet. */
export function progressMode(config: Pick<BatchConfig, "progress" | "quiet">, isTTY: boolean): "bar" | "log" | "off" {
  if (config.progress === false || config.quiet) return "off";
  return isTTY ? "bar" : "log";
}

/** Why the run stops, the moment it does (with --quiet too: the log of a run that hangs afterwards says it). */
function logStop(log: Logger, reason: StopReason): void {
  const fields = { event: "stop", stopReason: stopReasonCode(reason) };
  if (decideExit([reason], 0, 0).code === EXIT.error) log.error(describeStop(reason), fields);
  else log.milestone("warn", describeStop(reason), fields);
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

function printSummary(ctx: RunContext, c: RunCounts, exitCode: number, stopMessage: string | null, stopReason: string | null): void {
  const { log, stats } = ctx;
  const perLookup = ctx.config.lookups
    .map((l) => `${l} ${stats[l].requests} requests (${stats[l].retries} retries, ${stats[l].throttled} 429s)`)
    .join("; ");
  // refreshes --monthly-quota left for later nights: not pending, and no reason to exit non-zero
  const deferredRefreshes = Object.fromEntries(ctx.config.lookups.map((l) => [l, ctx.plan?.deferred.get(l)?.refreshes ?? 0]));
  const deferred = Object.values(deferredRefreshes).reduce((n, d) => n + d, 0);
  ctx.ending = { exitCode, stopReason };
  log.result(
    `run ${ctx.runId} finished, exit ${exitCode}${stopMessage ? ` (${stopMessage})` : ""}: ${c.postcodes} postcodes (${c.rejects} rejected rows); ` +
      `lookups ok ${c.ok}, not found ${c.notFound}, failed ${c.failed}, pending ${c.pending}` +
      `${deferred > 0 ? `, ${deferred} refreshes deferred to later nights` : ""}; ${perLookup}`,
    { event: "summary", runId: ctx.runId, exitCode, stopped: stopMessage, stopReason, deferredRefreshes, ...c },
  );
}
