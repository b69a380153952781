// The batch: input → plan → fetch → store → report. Everything the CLI does, minus flag parsing.
import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import { randomBytes } from "node:crypto";
import type { Lookup } from "../spec/fields.js";
import { openInput, InputError } from "../input/read-input.js";
import { planFetches } from "../plan/plan.js";
import { DEFAULT_BACKOFF, type BackoffPolicy } from "../fetch/backoff.js";
import { RequestBudget } from "../fetch/budget.js";
import { systemClock, type Clock } from "../fetch/clock.js";
import { emptyStats, fetchLookup, type FetchStats } from "../fetch/fetch-lookup.js";
import { createHttpClient } from "../fetch/http-client.js";
import { Pacer } from "../fetch/pacer.js";
import { StopControl } from "../fetch/stop.js";
import { answerWriter } from "../store/answers.js";
import { ensureProviderColumns, openDatabase, type Db } from "../store/db.js";
import { acquireLock, releaseLock, setLockRun, LockedError } from "../store/lock.js";
import { rowWriter, storedRow } from "../store/run-rows.js";
import { abandonStaleRuns, checkpointRun, createRun, finishRun, setRunInput, type RunCounts } from "../store/runs.js";
import { finalCounts } from "../store/counts.js";
import { writeReports, headlineLines, reportsAreCurrent } from "../report/index.js";
import { startSimulator, type SimulatorOptions } from "../simulator/index.js";
import type { Logger } from "../log/logger.js";
import { startProgress } from "../log/progress.js";
import type { BatchConfig } from "./config.js";
import { decideExit, describeStop, EXIT } from "./exit-code.js";

export interface BatchDeps {
  logger: Logger;
  clock?: Clock;
  random?: () => number;
  backoff?: BackoffPolicy;
  /** the API's limits are per minute; tests shorten the window */
  rateWindowMs?: number;
  stdin?: Readable;
  /** install SIGINT/SIGTERM handlers for the run's duration */
  handleSignals?: boolean;
  /** options for the in-process simulator of --simulate */
  simulator?: Partial<SimulatorOptions>;
  isTTY?: boolean;
  maxBodyBytes?: number;
}

export interface BatchResult {
  exitCode: number;
  runId: number | null;
  counts: RunCounts | null;
  stats: Record<Lookup, FetchStats> | null;
}

export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

export async function runBatch(config: BatchConfig, deps: BatchDeps): Promise<BatchResult> {
  const log = deps.logger;
  const clock = deps.clock ?? systemClock;
  const nowIso = () => new Date(clock.now()).toISOString();
  for (const key of Object.values(config.keys)) if (key) log.addSecret(key);

  let db: Db;
  try {
    db = openDatabase(config.dbPath);
  } catch (err) {
    log.error((err as Error).message);
    return { exitCode: EXIT.error, runId: null, counts: null, stats: null };
  }
  // The lock comes before the run writes anything (opening the database may only migrate its schema):
  // a second batch must not even add columns.
  try {
    const lock = acquireLock(db, nowIso());
    if (lock.previous)
      log.warn(`took over the lock of pid ${lock.previous.pid} (run ${lock.previous.runId ?? "?"}), which is no longer running`);
  } catch (err) {
    db.close();
    if (err instanceof LockedError) {
      log.error(err.message);
      return { exitCode: EXIT.error, runId: null, counts: null, stats: null };
    }
    throw err;
  }

  const stop = new StopControl();
  const removeSignals = deps.handleSignals ? installSignals(stop, log) : () => {};
  let simulator: Awaited<ReturnType<typeof startSimulator>> | null = null;
  let runId: number | null = null;
  let finished = false;
  try {
    ensureProviderColumns(db, config.providers);
    const abandoned = abandonStaleRuns(db, null, nowIso());
    if (abandoned > 0) log.warn(`${abandoned} earlier run(s) had been killed; their finished answers are kept and this run resumes`);
    runId = createRun(db, {
      startedAt: nowIso(),
      simulated: config.simulate,
      inputName: config.input,
      args: config.recordedArgs,
      lookups: config.lookups,
      providers: config.providers,
    });
    setLockRun(db, runId);

    // 1. input (a signal while reading keeps the rows read so far; nothing is fetched)
    const read = await readInputIntoRun(db, runId, config, deps, stop.stopAllSignal);
    if (!read.ok) {
      log.error(read.message);
      finishRun(db, runId, { endedAt: nowIso(), state: "failed", exitCode: EXIT.error, message: read.message, counts: zeroCounts() });
      finished = true;
      return { exitCode: EXIT.error, runId, counts: null, stats: null };
    }
    const { inputRows, rejects } = read;

    // 2. plan
    const freshSince = new Date(clock.now() - config.maxAgeMs).toISOString();
    const plan = planFetches(db, {
      runId,
      lookups: config.lookups,
      freshSince,
      refresh: config.refresh,
      providers: config.providers,
      simulated: config.simulate,
    });
    log.info(
      `run ${runId}: ${inputRows} input rows, ${plan.postcodes} unique postcodes, ${rejects} rejected; ` +
        config.lookups.map((l) => `${l}: ${plan.toFetch.get(l)!.length} to fetch, ${plan.reused.get(l)} fresh`).join("; "),
      { event: "plan", runId, inputRows, postcodes: plan.postcodes, rejects },
    );

    // 3. fetch and store
    let baseUrl = config.baseUrl;
    const keys = { ...config.keys };
    const total = config.lookups.reduce((n, l) => n + plan.toFetch.get(l)!.length, 0);
    if (config.simulate && total > 0 && !stop.stopped) {
      const key = randomBytes(16).toString("hex");
      log.addSecret(key);
      simulator = await startSimulator({ port: 0, providers: config.providers, ...deps.simulator, key, mobileKey: undefined });
      baseUrl = new URL(simulator.url);
      for (const l of config.lookups) keys[l] = key;
      log.info(`simulated run: using the bundled simulator at ${simulator.url}`);
    }
    const stats = { broadband: emptyStats(), mobile: emptyStats() } satisfies Record<Lookup, FetchStats>;
    const spent = () => ({
      requests: stats.broadband.requests + stats.mobile.requests,
      retries: stats.broadband.retries + stats.mobile.retries,
      throttled: stats.broadband.throttled + stats.mobile.throttled,
    });
    if (total > 0 && baseUrl && !stop.stopped) {
      const http = createHttpClient({
        // one socket per request in flight: both lookups share the client (and the host)
        maxSockets: config.concurrency * config.lookups.length,
        timeoutMs: config.timeoutMs,
        maxBodyBytes: deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      });
      // A commit that fails (a full disk) stops fetching; flush() below rethrows it.
      const writer = answerWriter(db, config.providers, { simulated: config.simulate, onError: () => stop.halt() });
      const budget = new RequestBudget(config.maxRequests);
      const progress = startProgress({
        mode: progressMode(config, deps.isTTY === true),
        total,
        logger: log,
        snapshot: () => {
          let done = 0;
          for (const s of Object.values(stats)) done += s.ok + s.notFound + s.failed;
          return { done, total, requests: spent().requests };
        },
      });
      // `npm run status` during a run, and the row of a run that gets killed, show what it spent.
      const currentRun = runId;
      const checkpoint = setInterval(() => checkpointRun(db, currentRun, spent()), CHECKPOINT_MS);
      checkpoint.unref();
      try {
        await Promise.all(
          config.lookups.map((lookup) =>
            fetchLookup(plan.toFetch.get(lookup)!, {
              lookup,
              baseUrl: baseUrl!,
              key: keys[lookup]!,
              providers: config.providers,
              concurrency: config.concurrency,
              retries: config.retries,
              backoff: deps.backoff ?? DEFAULT_BACKOFF,
              runId: currentRun,
              http,
              pacer: new Pacer({ rate: config.rate, windowMs: deps.rateWindowMs ?? 60_000 }, clock),
              clock,
              random: deps.random ?? Math.random,
              budget,
              stop,
              stats: stats[lookup],
              onFinal: (record) => writer.write(record),
              onEvent: (e) => log.debug(e.message),
            }),
          ),
        );
        writer.flush();
      } finally {
        clearInterval(checkpoint);
        progress.stop();
        http.close();
      }
    }
    for (const reason of stop.reasons) {
      const text = describeStop(reason);
      if (reason.kind === "auth" || reason.kind === "misconfigured") log.error(text);
      else log.warn(text);
    }

    // 4. final state of this run's postcodes
    const final = finalCounts(db, runId, config.lookups);
    const counts: RunCounts = { inputRows, postcodes: plan.postcodes, rejects, ...final, ...spent() };
    const { code, state } = decideExit(stop.reasons, final.failed, final.pending);
    const message = stop.reasons.length > 0 ? describeStop(stop.reasons[0]!) : null;
    finishRun(db, runId, { endedAt: nowIso(), state, exitCode: code, message, counts });
    finished = true;

    // 5. reports, for this run's input
    if (config.reports) {
      try {
        // A nightly run that changed nothing keeps the set it would rewrite (report/fingerprint.ts).
        if (await reportsAreCurrent(db, { outDir: config.outDir, runId }))
          log.info(`reports are current: ${config.outDir} already holds this set, kept as it is`);
        else {
          const report = await writeReports(db, { outDir: config.outDir, runId, onWarning: (m) => log.warn(m) });
          log.info(`reports written to ${config.outDir}: ${report.files.map((f) => f.split(/[\\/]/).pop()).join(", ")}`);
          for (const line of headlineLines(report.summary)) log.result(line);
        }
      } catch (err) {
        log.error(`writing reports failed: ${(err as Error).message}; the database is complete, run \`npm run report\` to retry`);
      }
    }
    printSummary(log, runId, counts, code, message, config.lookups, stats);
    return { exitCode: code, runId, counts, stats };
  } catch (err) {
    // A bug or a broken disk: nothing more is sent, and the run's row says so instead of staying
    // "running" until the next batch.
    stop.halt();
    if (runId !== null && !finished)
      try {
        const message = `unexpected failure: ${(err as Error).message}`;
        finishRun(db, runId, { endedAt: nowIso(), state: "failed", exitCode: EXIT.error, message, counts: zeroCounts() });
      } catch {
        // the database itself is what failed; the next batch marks the run abandoned
      }
    throw err;
  } finally {
    removeSignals();
    if (simulator) await simulator.close();
    releaseLock(db);
    db.close();
  }
}

/** How often the request counters are written to the run's row. */
const CHECKPOINT_MS = 1_000;

/** A bar on a terminal, a log line every 10 s elsewhere (cron, pipes), nothing with --no-progress or --quiet. */
export function progressMode(config: Pick<BatchConfig, "progress" | "quiet">, isTTY: boolean): "bar" | "log" | "off" {
  if (config.progress === false || config.quiet) return "off";
  return isTTY ? "bar" : "log";
}

type ReadResult = { ok: true; inputRows: number; rejects: number } | { ok: false; message: string };

async function readInputIntoRun(db: Db, runId: number, config: BatchConfig, deps: BatchDeps, stopped: AbortSignal): Promise<ReadResult> {
  const source = config.input === "-" ? "standard input" : config.input;
  let stream: Readable;
  if (config.input === "-") stream = deps.stdin ?? process.stdin;
  else {
    stream = createReadStream(config.input);
    // Surface "no such file" as an input error instead of an unhandled stream error.
    const opened = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      stream.once("open", () => resolve(null));
      stream.once("error", (err) => resolve(err as NodeJS.ErrnoException));
    });
    if (opened) return { ok: false, message: `cannot read ${source}: ${opened.code === "ENOENT" ? "no such file" : opened.message}` };
  }
  const rows = rowWriter(db, runId);
  let inputRows = 0;
  let rejects = 0;
  // Ctrl-C while waiting on standard input (or reading a huge file) must not wait for its end.
  const onStop = () => stream.destroy(new Error("interrupted"));
  if (stopped.aborted) onStop();
  else stopped.addEventListener("abort", onStop, { once: true });
  try {
    const input = await openInput(stream, { source, column: config.column });
    for (const w of input.warnings) deps.logger.warn(w);
    setRunInput(db, runId, input.header.columns, input.header.postcodeColumn);
    for await (const row of input.rows) {
      inputRows++;
      if (!row.postcode.ok) rejects++;
      rows.add(storedRow(row));
    }
    rows.flush();
  } catch (err) {
    if (stopped.aborted) {
      rows.flush();
      return { ok: true, inputRows, rejects };
    }
    if (err instanceof InputError) return { ok: false, message: err.message };
    throw err;
  } finally {
    stopped.removeEventListener("abort", onStop);
    stream.destroy();
  }
  return { ok: true, inputRows, rejects };
}

function installSignals(stop: StopControl, log: Logger): () => void {
  const handler = (signal: "SIGINT" | "SIGTERM") => {
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
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  return () => {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  };
}

function zeroCounts(): RunCounts {
  return { inputRows: 0, postcodes: 0, rejects: 0, ok: 0, notFound: 0, failed: 0, pending: 0, requests: 0, retries: 0, throttled: 0 };
}

function printSummary(
  log: Logger,
  runId: number,
  c: RunCounts,
  exitCode: number,
  stopMessage: string | null,
  lookups: readonly Lookup[],
  stats: Record<Lookup, FetchStats>,
): void {
  const perLookup = lookups
    .map((l) => `${l} ${stats[l].requests} requests (${stats[l].retries} retries, ${stats[l].throttled} 429s)`)
    .join("; ");
  log.result(
    `run ${runId} finished, exit ${exitCode}${stopMessage ? ` (${stopMessage})` : ""}: ${c.postcodes} postcodes (${c.rejects} rejected rows); ` +
      `lookups ok ${c.ok}, not found ${c.notFound}, failed ${c.failed}, pending ${c.pending}; ${perLookup}`,
    { event: "summary", runId, exitCode, stopped: stopMessage, ...c },
  );
}
