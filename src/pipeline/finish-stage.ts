// The finish stage: the quota's account settled, the run's counts as stored, and its row given its
// final state and exit. Then, after the reports, the run's end: a late signal or a report failure
// changes the exit the row records, and the summary line says how the run ended.
import type { Plan } from "../plan/plan.js";
import type { RunCounts } from "../store/types.js";
import type { BatchConfig } from "./config.js";
import type { ReadResult } from "./read-stage.js";
import { decideExit, describeStops, EXIT, runKeys, lateSignal, stopReasonCode } from "./exit-code.js";
import type { Planned } from "./plan-stage.js";
import { recordExit, type RunSoFar } from "./run-record.js";
import { nowIso, spent, type BatchResult, type OpenedRun } from "./run.js";

export interface Finish {
  exitCode: number;
  state: ReturnType<typeof decideExit>["state"];
  counts: RunCounts;
  message: string | null;
}

/** What the finish reads: the lookups, whether the run was a refresh, and the keys (a rejected key names the lookups sending it). */
export type FinishSettings = Pick<BatchConfig, "lookups" | "refresh" | "keys">;

/** What the run's end reads: the lookups (the summary line) and the database (named when its row cannot be written). */
export type EndSettings = Pick<BatchConfig, "lookups" | "db">;

/** `input`: the read stage's result, as read (its counts lead the run's). */
export async function finishStage(
  run: OpenedRun,
  settings: FinishSettings,
  runId: number,
  input: Extract<ReadResult, { ok: true }>,
  { plan, plannedAt, quota }: Planned,
): Promise<Finish> {
  const { stop, store } = run;
  quota.afterFetch(plan, stop);
  await quota.giveBack();
  // the pairs the batch that took over answered are answered, not pending
  if (run.fence.knownLost) for (const lookup of settings.lookups) await store.plan.dropAnsweredElsewhere(runId, lookup, plannedAt);
  const final = await store.runs.finalCounts(runId, settings.lookups);
  // a refresh the quota spreads over nights is not finished while refreshes are deferred
  if (settings.refresh) await store.plan.closeRefreshMarks(runId, settings.lookups.filter((l) => !plan.deferred.get(l)?.refreshes));
  const counts: RunCounts = { ...input, postcodes: plan.postcodes, ...final, ...spent(run.stats) };
  const { code, state } = decideExit(stop.reasons, final.failed, final.pending);
  const message = describeStops(stop.reasons, runKeys(settings));
  await store.runs.finish(runId, { endedAt: nowIso(run), state, exitCode: code, message, counts });
  return { exitCode: code, state, counts, message };
}

/**
 * The exit the process really ends with: a signal after the row was written, or reports that could
 * not be written (`reportFailure`), change it, and the row is told; then the summary line.
 */
export async function endRun(
  run: OpenedRun,
  settings: EndSettings,
  soFar: RunSoFar,
  runId: number,
  finish: Finish,
  reportFailure: string | null,
  deferred: Plan["deferred"],
): Promise<BatchResult> {
  const { stop } = run;
  let { exitCode, message } = finish;
  let stopReason = stop.reasons[0] ? stopReasonCode(stop.reasons[0]) : null;
  const late = lateSignal(stop.reasons, exitCode);
  if (late) await recordExit(run, settings.db, runId, (exitCode = late.code), (message = late.message), late.state);
  if (reportFailure) {
    // the run row was written before the reports: it takes the exit the process really ends with
    // (a lease lost while they were written: the lost lease's)
    const lost = run.fence.knownLost;
    exitCode = lost ? EXIT.leaseLost : exitCode === EXIT.ok ? EXIT.error : exitCode;
    message = message ? `${message}; ${reportFailure}` : reportFailure;
    stopReason = lost ? "lease_lost" : (stopReason ?? "reports");
    await recordExit(run, settings.db, runId, exitCode, message);
  }
  soFar.ending = { exitCode, stopReason };
  printSummary(run, settings.lookups, runId, deferred, finish.counts, exitCode, message, stopReason);
  return { exitCode, runId, counts: finish.counts, stats: run.stats };
}

function printSummary({ log, stats }: OpenedRun, lookups: BatchConfig["lookups"], runId: number, deferred: Plan["deferred"], c: RunCounts, exitCode: number, stopMessage: string | null, stopReason: string | null): void {
  const perLookup = lookups.map((l) => `${l} ${stats[l].requests} requests (${stats[l].retries} retries, ${stats[l].throttled} 429s)`).join("; ");
  // refreshes --monthly-quota left for later nights: not pending, and no reason to exit non-zero
  const deferredRefreshes = Object.fromEntries(lookups.map((l) => [l, deferred.get(l)?.refreshes ?? 0]));
  const refreshesDeferred = Object.values(deferredRefreshes).reduce((n, d) => n + d, 0);
  log.result(
    `run ${runId} finished, exit ${exitCode}${stopMessage ? ` (${stopMessage})` : ""}: ${c.postcodes} postcodes (${c.rejects} rejected rows); ` +
      `lookups ok ${c.ok}, not found ${c.notFound}, failed ${c.failed}, pending ${c.pending}` +
      `${refreshesDeferred > 0 ? `, ${refreshesDeferred} refreshes deferred to later nights` : ""}; ${perLookup}`,
    { event: "summary", runId, exitCode, stopped: stopMessage, stopReason, deferredRefreshes, ...c },
  );
}
