// The fetch stage: the API to use (started only when there is work), one HTTP client, the answers'
// writer, and per lookup a pacer (the key's pace is the store's, shared by every batch using the
// key) and the pairs claimed under the run's lease; then every lookup fetched at once, with
// progress and checkpoints of what was spent. What an error left queued is still written.
import type { Lookup } from "../contract/fields.js";
import { RequestBudget } from "../fetch/budget.js";
import { fetchLookup, type LookupFetchOptions } from "../fetch/fetch-lookup.js";
import { createHttpClient, type HttpClient } from "../fetch/http-client.js";
import { Pacer } from "../fetch/pacer.js";
import type { CommitGrouping } from "../store/commit-group.js";
import type { AnswerWriter } from "../store/store.js";
import { LeaseLostError } from "../store/types.js";
import { keyId } from "../store/key-id.js";
import { startProgress, type Progress } from "../log/progress.js";
import { LOOKUP_SPECS } from "../contract/lookups.js";
import { oneLine } from "../errors.js";
import type { BatchConfig } from "./config.js";
import { ClaimedPairs, claimPollMs } from "./claimed-pairs.js";
import { fetchOptionsFor, keyFor, type FetchSettings, type LookupFetchParts } from "./fetch-options.js";
import type { Planned } from "./plan-stage.js";
import { leaseTtl, nowIso, spent, type ApiEndpoint, type OpenedRun } from "./run.js";
import type { RunResources } from "./run-resources.js";

export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;
/**
 * The answers (with their ledger rows) commit on the next turn, or, once a commit held 12 writes
 * or more (answers come faster than turns: only against an unlimited server), 20 ms after the last
 * commit, 500 at most: commits that small cost more CPU than fetching (docs/bench.md). A longer
 * window (100 ms) made each commit long enough to hold up the answers behind it (latency-bound
 * scenario: 0.77 against 0.87). A kill then loses at most those 20 ms of answers.
 */
export const ANSWER_GROUPING: CommitGrouping = { windowMs: 20, maxWrites: 500, busyWrites: 12 };
/** How often the request counters are written to the run's row. */
const CHECKPOINT_MS = 1_000;

/**
 * What the fetch reads: each lookup's options (FetchSettings), the API and the lookups, the pace
 * and the run's limits, what the answers are stored as, and the progress line.
 */
export type FetchStageSettings = FetchSettings &
  Pick<BatchConfig, "lookups" | "simulate" | "baseUrl" | "rate" | "timeout" | "maxRequests" | "release" | "progress" | "quiet">;

/** One lookup's part of the fetch: its pacer and its claimed pairs. */
interface Lane {
  lookup: Lookup;
  /** the name the lookup's key goes by in the store's shared pace (the key itself never reaches the store) */
  keyId: string;
  pacer: Pacer;
  claimed: ClaimedPairs;
}

/** The run's fetch, shared by its lookups. */
interface Fetching {
  runId: number;
  api: ApiEndpoint;
  http: HttpClient;
  writer: AnswerWriter;
  budget: RequestBudget;
}

export async function fetchStage(run: OpenedRun, settings: FetchStageSettings, resources: RunResources, runId: number, planned: Planned): Promise<void> {
  const { deps, stop } = run;
  const total = settings.lookups.reduce((n, l) => n + planned.plan.toFetch.get(l)!.length, 0);
  if (total === 0 || stop.stopped) return;
  const api = await connect(run, settings, resources);
  if (stop.stopped) return;
  const http = createHttpClient({
    // one socket per request in flight: both lookups share the client (and the host)
    maxSockets: settings.concurrency * settings.lookups.length,
    timeoutMs: deps.timeoutMs ?? settings.timeout,
    maxBodyBytes: deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    ...(deps.resolveHost ? { lookup: deps.resolveHost } : {}),
  });
  const writer = await openAnswerWriter(run, settings, total);
  if (writer.ownThread) run.log.debug(`storing the answers on a thread of their own (${total.toLocaleString("en-GB")} pairs to fetch)`, { event: "writer-thread" });
  const budget = new RequestBudget(settings.maxRequests);
  const fetching: Fetching = { runId, api, http, writer, budget };
  const lanes = settings.lookups.map((lookup) => laneFor(run, settings, fetching, planned, lookup));
  const progress = startProgressOf(run, settings, total);
  const checkpoint = startCheckpoints(run, runId);
  try {
    await Promise.all(lanes.map((lane) => fetchLane(run, lane, fetchOptionsFor(lane.lookup, settings, deps, partsFor(run, fetching, planned, lane)))));
    await run.fence.guard(() => writer.flush(), undefined);
    await recordReleaseChecks(run, settings.lookups, runId, planned);
  } finally {
    // what an error left queued (answers, ledger rows) is still written, unless the store itself
    // failed; a writer's thread ends here, not idle through the reports
    try {
      await writer.close();
    } catch {
      // the error that stopped the fetch is the one to report
    }
    clearInterval(checkpoint);
    progress.stop();
    http.close();
  }
}

/** The API to use: --simulate's (started only when there is work, and closed with the run) or the configured one. */
async function connect({ deps, log }: OpenedRun, settings: Pick<BatchConfig, "simulate" | "baseUrl">, resources: RunResources): Promise<ApiEndpoint> {
  if (!settings.simulate) return { baseUrl: settings.baseUrl!, description: settings.baseUrl!.href, close: async () => {} };
  if (!deps.api) throw new Error("--simulate needs an API to start (BatchDeps.api)");
  const api = await deps.api();
  resources.add(() => api.close());
  if (api.key) log.addSecret(api.key);
  log.info(`simulated run: using ${api.description}`);
  return api;
}

/** A commit that fails (a full disk) stops fetching; flush() rethrows it. A write the lease no longer covers loses the lease. */
function openAnswerWriter({ store, clock, fence, stop, lease }: OpenedRun, settings: Pick<BatchConfig, "providers" | "simulate" | "release">, expected: number): Promise<AnswerWriter> {
  return store.answers.openWriter({
    expected,
    providers: settings.providers,
    simulated: settings.simulate,
    release: settings.release,
    grouping: ANSWER_GROUPING,
    lease: { id: lease.id, now: () => clock.now() },
    onError: (err) => (err instanceof LeaseLostError || fence.lost ? fence.writeRefused() : stop.halt()),
  });
}

/**
 * The lookup's pacer and its pairs, claimed under the run's lease as the workers ask for them. The
 * key's pace is the store's, shared with every batch using the key.
 */
function laneFor(run: OpenedRun, settings: Pick<BatchConfig, "rate" | "keys">, { runId, api, writer }: Fetching, { plan, plannedAt }: Planned, lookup: Lookup): Lane {
  const { deps, store, clock } = run;
  const pacing = { rate: settings.rate, windowMs: deps.rateWindowMs ?? 60_000, ...(deps.rateMarginMs !== undefined ? { marginMs: deps.rateMarginMs } : {}) };
  const id = keyId(keyFor(api, settings.keys, lookup));
  const pacer = new Pacer(pacing, clock, {
    nextSlot: (intervalMs, nowMs) => store.pace.nextSlot(lookup, id, intervalMs, nowMs),
    slowDown: (untilMs) => store.pace.slowDown(lookup, id, untilMs),
  });
  const claimed = new ClaimedPairs(plan.toFetch.get(lookup)!, {
    store,
    writer,
    leaseId: run.lease.id,
    runId,
    lookup,
    plannedAt,
    clock,
    pollMs: claimPollMs(leaseTtl(deps)),
    signal: run.stop.signalFor(lookup),
    fence: run.fence,
  });
  return { lookup, keyId: id, pacer, claimed };
}

/** The hooks of the lane's fetch: answers to the writer and the claims, requests to the ledger (in the answers' transaction). */
function partsFor(run: OpenedRun, { runId, api, http, writer, budget }: Fetching, { answered, quota }: Planned, { lookup, keyId, pacer, claimed }: Lane): LookupFetchParts {
  const { store, log } = run;
  return {
    runId,
    api,
    http,
    clock: run.clock,
    budget,
    stop: run.stop,
    log,
    answered,
    pacer,
    stats: run.stats[lookup],
    onFinal: (record) => {
      writer.write(record);
      claimed.done(record.postcode);
    },
    // the ledger's row joins the transaction of the answers queued with it
    onRequest: quota.onRequest(lookup, writer, (untilMs) =>
      void store.pace.block(lookup, keyId, untilMs).catch((err: unknown) => log.warn(`cannot share the quota block: ${oneLine(err)}`)),
    ),
    lookupBudget: quota.budget(lookup),
  };
}

/** One lookup fetched to its end, its finished claims given back, and what other runs did meanwhile said. */
async function fetchLane({ log }: OpenedRun, { lookup, claimed }: Lane, options: LookupFetchOptions): Promise<void> {
  await fetchLookup(claimed, options);
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
}

function startProgressOf({ deps, log, clock, stats }: OpenedRun, settings: Pick<BatchConfig, "progress" | "quiet" | "lookups" | "rate">, total: number): Progress {
  return startProgress({
    mode: progressMode(settings, deps.isTTY === true),
    total,
    logger: log,
    now: () => clock.now(),
    snapshot: () => ({
      done: Object.values(stats).reduce((n, s) => n + s.ok + s.notFound + s.failed, 0),
      total,
      lookups: settings.lookups.map((l) => ({ lookup: l, requests: stats[l].requests, rate: settings.rate })),
    }),
  });
}

/** `npm run status` during a run, and the row of a run that gets killed, show what it spent. */
function startCheckpoints({ store, stats, log }: OpenedRun, runId: number): NodeJS.Timeout {
  const checkpoint = setInterval(
    () => void store.runs.checkpoint(runId, spent(stats)).catch((err: unknown) => log.warn(`cannot checkpoint run ${runId}: ${oneLine(err)}`)),
    CHECKPOINT_MS,
  );
  checkpoint.unref();
  return checkpoint;
}

/**
 * Each lookup whose release the run checked (its probe round, or answers that tell as much) and
 * whose fetching ended unstopped: the time goes to the store, so that a second run today sends no
 * probe round (plan/probe-rule.ts).
 */
async function recordReleaseChecks(run: OpenedRun, lookups: BatchConfig["lookups"], runId: number, { plan }: Planned): Promise<void> {
  const { store, stop } = run;
  const at = nowIso(run);
  for (const lookup of lookups) {
    const check = plan.probes.get(lookup)?.check;
    if (!check || stop.stopped || stop.signalFor(lookup).aborted) continue;
    // a probe round the quota left for later nights checked nothing
    if (check === "probes" && plan.reasons.get(lookup)!.probe === 0) continue;
    // a mobile check by answers needs one that names its release (not-found answers name none)
    if (check === "answers" && LOOKUP_SPECS[lookup].namesRelease && !(await store.releaseChecks.runStoredNamedRelease(runId, lookup))) continue;
    await store.releaseChecks.record({ lookup, at, how: check, runId });
  }
}

/** A line on a terminal, a log line every 10 s elsewhere (cron, pipes), nothing with --no-progress or --quiet. */
export function progressMode(config: Pick<BatchConfig, "progress" | "quiet">, isTTY: boolean): "bar" | "log" | "off" {
  if (config.progress === false || config.quiet) return "off";
  return isTTY ? "bar" : "log";
}
