// Watching a night from outside: --ping-url tells a cron monitor the night started and how it
// ended; --metrics-file leaves its figures for Prometheus. Around the batch, never part of it: a
// monitor that is down or a metrics folder that cannot be written is a warning, and the night's
// exit code stays the batch's.
import type { BatchResult } from "../pipeline/batch.js";
import type { WatchedLogger } from "../log/watched-logger.js";
import { databaseMissing } from "../store/location.js";
import { quotaStatus } from "../plan/quota-status.js";
import { ping, pingBody, PING_TIMEOUT_MS } from "../watch/ping.js";
import { metricsText, writeMetricsFile, type NightFigures } from "../watch/metrics.js";
import { oneLine } from "../errors.js";
import { errorLine, failureStopReason } from "./run-cli.js";

export interface WatchOptions {
  pingUrl: URL | null;
  metricsFile: string | null;
  /** the database, read again (read only) for the quota's figures */
  db: string;
  pingTimeoutMs?: number;
  /** --log-format: the ping's body is written as the log is (its refusal line too) */
  logFormat?: "text" | "json";
  now?: () => number;
}

/** Runs the batch between the monitor's two pings, then writes the metrics; returns its exit code. */
export async function watchNight(o: WatchOptions, log: WatchedLogger, run: () => Promise<BatchResult>): Promise<number> {
  const now = o.now ?? Date.now;
  const started = now();
  if (o.pingUrl) await pingOrWarn(o, log, "start", "");
  let result: BatchResult | null = null;
  let failure: unknown = null;
  try {
    result = await run();
  } catch (err) {
    failure = err;
  }
  const exitCode = result?.exitCode ?? 1;
  if (o.metricsFile) await writeMetrics(o, log, await nightFigures(o, log, { result, failure }, started, now()));
  if (o.pingUrl) {
    const lines = log.lastLines();
    // an unexpected failure is printed after this returns: the monitor gets its line too
    const body = pingBody(failure === null ? lines : [...lines, failureLine(failure, o.logFormat === "json")]);
    await pingOrWarn(o, log, exitCode, body);
  }
  if (failure !== null) throw failure;
  return exitCode;
}

/** The line the CLI prints for a night that ended by throwing, in the log's format. */
function failureLine(failure: unknown, json: boolean): string {
  const reason = failureStopReason(failure);
  return errorLine(reason === "unexpected" ? `unexpected failure: ${oneLine(failure)}` : oneLine(failure), json, reason);
}

async function pingOrWarn(o: WatchOptions, log: WatchedLogger, what: "start" | number, body: string): Promise<void> {
  const type = o.logFormat === "json" ? "application/x-ndjson; charset=utf-8" : "text/plain; charset=utf-8";
  const why = await ping(o.pingUrl!, what, body, o.pingTimeoutMs ?? PING_TIMEOUT_MS, type);
  if (why !== null) log.milestone("warn", `--ping-url: the monitor did not take the ${what === "start" ? "start" : "end"} ping (${why}); the night goes on`, { event: "ping_failed" });
}

async function writeMetrics(o: WatchOptions, log: WatchedLogger, figures: NightFigures): Promise<void> {
  try {
    writeMetricsFile(o.metricsFile!, metricsText(figures));
  } catch (err) {
    log.milestone("warn", `--metrics-file ${o.metricsFile}: cannot write it (${oneLine(err)})`, { event: "metrics_failed" });
  }
}

/** The night's figures from its result, its last logged outcome and the store's quota ledger. */
async function nightFigures(
  o: WatchOptions,
  log: WatchedLogger,
  { result, failure }: { result: BatchResult | null; failure: unknown },
  started: number,
  ended: number,
): Promise<NightFigures> {
  // a night refused by a throw (a bad option, a missing key file) logged no outcome: its reason is the refusal's
  const outcome = failure === null ? log.lastOutcome() : { stopReason: failureStopReason(failure) };
  const requests: Record<string, number> = {};
  for (const [lookup, stats] of Object.entries(result?.stats ?? {})) requests[lookup] = stats.requests;
  const counts = result?.counts as (Record<string, unknown> & { pending?: number }) | null | undefined;
  return {
    endedAtMs: ended,
    durationMs: ended - started,
    exitCode: result?.exitCode ?? 1,
    stopReason: typeof outcome?.stopReason === "string" ? outcome.stopReason : null,
    requests,
    quota: await quotaFigures(o.db, ended),
    pending: counts?.pending ?? null,
    // the retention feature's count, once the run's counts carry one
    expired: typeof counts?.expired === "number" ? counts.expired : null,
  };
}

async function quotaFigures(db: string, nowMs: number): Promise<NightFigures["quota"]> {
  if (databaseMissing(db)) return [];
  try {
    // loaded here, not with this module: a refused option's metrics need no store when there is no database
    const { openStore } = await import("../store/open-store.js");
    const store = await openStore(db, { readonly: true });
    try {
      return (await quotaStatus(store, nowMs)).map((q) => ({ lookup: q.lookup, used: q.used, remaining: q.remaining }));
    } finally {
      await store.close();
    }
  } catch {
    // a database the run could not open has no ledger to show
    return [];
  }
}
