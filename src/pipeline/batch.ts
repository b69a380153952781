// The batch: open → read → check → plan → fetch → finish → report, each stage taking what it needs
// and returning what it made. What the run has opened is in its resources, closed last first
// however it ends; what it has reached is in RunSoFar, for the paths that end it early. Everything
// the CLI does, minus flag parsing.
import { storeError } from "../store/open-store.js";
import { DatabaseError } from "../store/types.js";
import { REPORT_FILES } from "../report/index.js";
import { dbReadPaths, readPathInReportSet, type ReadPath } from "../report/set/read-paths.js";
import { isFileSystemError, oneLine } from "../errors.js";
import type { Plan } from "../plan/plan.js";
import type { BatchConfig } from "./config.js";
import { checkBeforeFetching, inputRefusal } from "./check-stage.js";
import { EXIT } from "./exit-code.js";
import { fetchStage } from "./fetch-stage.js";
import { endRun, finishStage, type Finish } from "./finish-stage.js";
import { openRun } from "./open-stage.js";
import { planStage, type Planned } from "./plan-stage.js";
import { acceptInput, openInputSource, readInputIntoRun, type InputSource, type ReadResult } from "./read-stage.js";
import { clearExpiredFromReports, reportStage } from "./report-stage.js";
import { endLeaseLostWhileReading, failBeforeFetching, failUnexpectedly, logCleanupFailure, RunSoFar, startRun } from "./run-record.js";
import type { RunResources } from "./run-resources.js";
import { refuse, type BatchDeps, type BatchResult, type OpenedRun } from "./run.js";
import { recordMobileScales } from "./scale-stage.js";

export type { ApiEndpoint, BatchDeps, BatchResult } from "./run.js";
export { ANSWER_GROUPING, DEFAULT_MAX_BODY_BYTES, progressMode } from "./fetch-stage.js";

export async function runBatch(config: BatchConfig, deps: BatchDeps): Promise<BatchResult> {
  for (const key of Object.values(config.keys)) if (key) deps.logger.addSecret(key);
  // Before anything is read: a file the run reads must not be one the report set replaces.
  const clash = config.reports ? readPathInReportSet(readPaths(config), config.out, REPORT_FILES.map((f) => f.name)) : null;
  if (clash) return refuse(deps.logger, clash, "input");
  const input = await openInputSource(config, deps.stdin);
  if (!("stream" in input)) return refuse(deps.logger, input.message, "input");
  const opened = await openRun(config, deps);
  if (!("run" in opened)) {
    input.stream.destroy();
    return opened;
  }
  const { run, resources } = opened;
  const soFar = new RunSoFar();
  try {
    const result = await runStages(run, config, resources, soFar, input);
    // a night that wrote no reports leaves none of what its retention deleted in --out
    if (config.reports && soFar.expired > 0 && !soFar.reported && !run.fence.knownLost) await clearExpiredFromReports(run, config);
    return result;
  } catch (err) {
    return await endOnFailure(run, config, soFar, err);
  } finally {
    await resources.closeAll((err) => logCleanupFailure(run, config.db, soFar, err));
  }
}

/**
 * The stages in order, each handed its slice of the settings and what the ones before it made; each
 * noted in `soFar` as it returns.
 */
async function runStages(run: OpenedRun, config: BatchConfig, resources: RunResources, soFar: RunSoFar, input: InputSource): Promise<BatchResult> {
  const runId = await startRun(run, config, soFar);
  soFar.runId = runId;
  const staged = await readInputIntoRun(run.store, runId, input, config, run.deps, run.stop.stopAllSignal);
  if (!staged.ok) return await failBeforeFetching(run, soFar, runId, staged.message, "input");
  const { rows, ...read } = staged;
  // the input's rows become the run's only once nothing refuses them, and only under its lease
  const refusal = await inputRefusal(run, config, runId, read.shape).catch(async (err: unknown) => {
    await rows.discard().catch(() => {});
    throw err;
  });
  if (refusal) {
    await rows.discard();
    return await failBeforeFetching(run, soFar, runId, refusal.message, refusal.stopReason);
  }
  if (!(await acceptInput(run, rows))) return await endLeaseLostWhileReading(run, config.db, soFar, runId);
  soFar.read(read);
  const problem = await checkBeforeFetching(run, config, runId);
  if (problem) return await failBeforeFetching(run, soFar, runId, problem.message, problem.stopReason);
  const { finish, deferred } = await fetchAndFinish(run, config, resources, soFar, runId, read);
  soFar.finished = true;
  // A run that stopped before any answer (rejected key, wrong URL), or lost its lease, replaces no reports.
  soFar.reported = config.reports && finish.state !== "failed" && !run.fence.knownLost;
  const reportFailure = soFar.reported ? await reportStage(run, config, runId) : null;
  return await endRun(run, config, soFar, runId, finish, reportFailure, deferred);
}

/**
 * The plan, the fetch and the run's final row. The plan is let go here, before the reports: its
 * lists of postcodes to fetch (about 6 MB at 100,000 postcodes) would stay in the heap the reports
 * grow from, and the run's end needs only what it deferred. A run whose quota period turned while
 * it fetched plans once more, under the new period's quota, what the old one's left for later.
 */
async function fetchAndFinish(run: OpenedRun, config: BatchConfig, resources: RunResources, soFar: RunSoFar, runId: number, read: Extract<ReadResult, { ok: true }>): Promise<{ finish: Finish; deferred: Plan["deferred"] }> {
  let planned = await planAndFetch(run, config, resources, soFar, runId, read);
  const turned = planned.quota.turnedWithWorkLeft(planned.plan, run.clock.now());
  // --max-requests bounds one fetch: a second would start a fresh count
  if (turned.length > 0 && !run.stop.stopped && config.maxRequests === null) {
    run.log.info(`${turned.join(", ")}: the quota period turned during the run; planning again under the new period's quota`, { event: "quota-period-turned", lookups: turned });
    await planned.quota.giveBack();
    planned = await planAndFetch(run, config, resources, soFar, runId, read);
  }
  await recordMobileScales(run.store, config, run.stats.mobile, run.log);
  return { finish: await finishStage(run, config, runId, read, planned), deferred: planned.plan.deferred };
}

async function planAndFetch(run: OpenedRun, config: BatchConfig, resources: RunResources, soFar: RunSoFar, runId: number, read: Extract<ReadResult, { ok: true }>): Promise<Planned> {
  const planned = await planStage(run, config, runId, read);
  soFar.planned(planned.plan.postcodes);
  await fetchStage(run, config, resources, runId, planned).catch(async (err: unknown) => {
    // a failed write loses ledger rows, never what was not sent: that goes back if the database lets it
    await planned.quota.giveBack().catch(() => {});
    throw err;
  });
  return planned;
}

/** A bug or a broken disk; a full disk or a damaged database is one line naming the database, not a stack trace. */
async function endOnFailure(run: OpenedRun, config: Pick<BatchConfig, "lookups" | "db">, soFar: RunSoFar, err: unknown): Promise<BatchResult> {
  const named = storeError(err, config.db);
  const bug = !(named instanceof DatabaseError) && !isFileSystemError(err);
  // a full disk or a damaged database is said as it is, not as a bug
  await failUnexpectedly(run, config.lookups, soFar, bug ? err : named, bug ? "unexpected failure: " : "");
  if (bug) throw err;
  soFar.ending = { exitCode: EXIT.error, stopReason: "database" };
  run.log.error(oneLine(named), { event: "failed", runId: soFar.runId, exitCode: EXIT.error, stopReason: "database" });
  return { exitCode: EXIT.error, runId: soFar.runId, counts: null, stats: run.stats };
}

/** Every file the run reads, by the flag that names it (the database with its companions). */
function readPaths(config: Pick<BatchConfig, "in" | "areaFile" | "keyFile" | "openData" | "db">): ReadPath[] {
  return [
    ...(config.in !== "-" ? [{ flag: "--in", path: config.in }] : []),
    ...(config.areaFile ? [{ flag: "--area-file", path: config.areaFile }] : []),
    ...(config.keyFile ? [{ flag: "--key-file", path: config.keyFile }] : []),
    ...(config.openData ? [{ flag: "--open-data", path: config.openData }] : []),
    ...dbReadPaths(config.db),
  ];
}
