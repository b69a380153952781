// The run's row in the runs table: created when the run starts, finished by the finish stage, and
// written here when the run ends otherwise (a bad input, a failure). RunSoFar is what the run has
// reached at any moment, noted as each stage returns, for the paths that end it early and for the
// cleanup after it: nothing else reads it.
import type { Lookup } from "../contract/fields.js";
import type { FetchStats } from "../fetch/fetch-lookup.js";
import { storeError } from "../store/open-store.js";
import type { RunCounts, RunState } from "../store/types.js";
import { oneLine } from "../errors.js";
import type { BatchConfig } from "./config.js";
import { decideExit, describeStop, EXIT } from "./exit-code.js";
import { expireAnswers } from "./retention-stage.js";
import { nowIso, refuse, spent, type BatchResult, type OpenedRun } from "./run.js";

/** How the run ended, as its last line said: a failed cleanup after it says the same. */
export interface RunEnding {
  exitCode: number;
  stopReason: string | null;
}

export class RunSoFar {
  /** the run's number, once its row is created */
  runId: number | null = null;
  /** the run's row holds its final state */
  finished = false;
  /** answers and versions the run's retention pass deleted */
  expired = 0;
  /** the run's own report stage ran (it wrote, kept or failed to write a set) */
  reported = false;
  ending: RunEnding | undefined;
  private input = { inputRows: 0, rejects: 0 };
  private postcodes = 0;

  read(input: { inputRows: number; rejects: number }): void {
    this.input = { inputRows: input.inputRows, rejects: input.rejects };
  }

  planned(postcodes: number): void {
    this.postcodes = postcodes;
  }

  /** Input counts as read and requests as spent so far: an unexpected failure keeps them. */
  counts(stats: Record<Lookup, FetchStats>): RunCounts {
    return { inputRows: this.input.inputRows, postcodes: this.postcodes, rejects: this.input.rejects, ok: 0, notFound: 0, failed: 0, pending: 0, ...spent(stats) };
  }
}

/** What starting the run reads: what its row records (the input's name, the options, lookups, providers, simulated or not) and the retention. */
export type StartSettings = Pick<BatchConfig, "providers" | "retention" | "simulate" | "in" | "recordedArgs" | "lookups">;

/** The run's row, after what every run does first: providers known, killed runs abandoned, expired answers deleted (counted in `soFar`). */
export async function startRun(run: OpenedRun, settings: StartSettings, soFar: RunSoFar): Promise<number> {
  const { store, log } = run;
  await store.answers.prepareProviders(settings.providers);
  // a run a stopped server left running is judged on the server's own clock, read now (a test's replayed time stays)
  const nowMs = run.clock.replayed ? run.clock.now() : ((await store.leases.serverNow()) ?? run.clock.now());
  const abandoned = await store.runs.abandonOrphans(new Date(nowMs).toISOString(), nowMs);
  if (abandoned > 0) log.warn(`${abandoned} earlier run(s) had been killed; their finished answers are kept and this run resumes`);
  soFar.expired = await expireAnswers(store, settings.retention, run.clock.now(), log, { clock: run.clock, boundMs: run.deps.retentionEraseWaitMs });
  return store.runs.create({
    startedAt: nowIso(run),
    simulated: settings.simulate,
    inputName: settings.in,
    args: settings.recordedArgs,
    lookups: settings.lookups,
    providers: settings.providers,
    leaseId: run.lease.id,
  });
}

/**
 * Input or report options: nothing was fetched, so no report is written. A bad input is recorded as
 * a failed run; report options naming columns the input lacks are a configuration mistake, and
 * the run is forgotten (it keeps no run number), as if refused before it started.
 */
export async function failBeforeFetching(run: OpenedRun, soFar: RunSoFar, runId: number, message: string, stopReason: "input" | "options"): Promise<BatchResult> {
  soFar.finished = true;
  if (stopReason === "options") {
    await run.store.runs.forget(runId);
    return refuse(run.log, message, stopReason);
  }
  soFar.ending = { exitCode: EXIT.error, stopReason };
  run.log.error(message, { event: "failed", runId, exitCode: EXIT.error, stopReason });
  await run.store.runs.finish(runId, { endedAt: nowIso(run), state: "failed", exitCode: EXIT.error, message, counts: soFar.counts(run.stats) });
  return { exitCode: EXIT.error, runId, counts: null, stats: null };
}

/**
 * The lease was lost while the input was read (a machine paused, another took over): nothing of the
 * input was kept, nothing is fetched or reported, and the run's row says why.
 */
/** `db`: the database, named when the run's end cannot be recorded in it. */
export async function endLeaseLostWhileReading(run: OpenedRun, db: BatchConfig["db"], soFar: RunSoFar, runId: number): Promise<BatchResult> {
  soFar.finished = true;
  const reason = run.stop.reasons.find((r) => r.kind === "lease_lost") ?? { kind: "lease_lost" as const, message: "the database refused its input under it" };
  const { code, state } = decideExit([reason], 0, 0);
  const message = `${describeStop(reason)}; its input was not kept and no reports were written`;
  soFar.ending = { exitCode: code, stopReason: "lease_lost" };
  run.log.result(`run ${runId} ended, exit ${code}: ${message}`, { event: "summary", runId, exitCode: code, stopped: message, stopReason: "lease_lost" });
  try {
    await run.store.runs.finish(runId, { endedAt: nowIso(run), state, exitCode: code, message, counts: soFar.counts(run.stats) });
  } catch (err) {
    run.log.warn(`cannot record the run's end in ${db}: ${oneLine(err)}`);
  }
  return { exitCode: code, runId, counts: null, stats: run.stats };
}

/** A bug or a broken disk: nothing more is sent, and the run's row says so instead of staying "running". */
export async function failUnexpectedly(run: OpenedRun, lookups: BatchConfig["lookups"], soFar: RunSoFar, err: unknown, prefix = "unexpected failure: "): Promise<void> {
  run.stop.halt();
  if (soFar.runId === null || soFar.finished) return;
  try {
    const message = `${prefix}${run.log.redact(oneLine(err))}`;
    let counts = soFar.counts(run.stats);
    try {
      counts = { ...counts, ...(await run.store.runs.finalCounts(soFar.runId, lookups)) };
    } catch {
      // the database itself failed: the counts spent so far still stand
    }
    await run.store.runs.finish(soFar.runId, { endedAt: nowIso(run), state: "failed", exitCode: EXIT.error, message, counts });
  } catch {
    // the database itself is what failed; the next batch marks the run abandoned
  }
}

/** The exit and message the run really ends with, when the report stage changed them; a failure here is logged, not thrown. */
export async function recordExit(run: OpenedRun, db: BatchConfig["db"], runId: number, exitCode: number, message: string, state?: RunState): Promise<void> {
  try {
    await run.store.runs.setExit(runId, exitCode, message, state);
  } catch (err) {
    run.log.error(`cannot record the run's exit in ${db}: ${oneLine(err)}`);
  }
}

/** A close after the run's end that failed: one line, with the run's own exit and stop reason. */
export function logCleanupFailure(run: OpenedRun, db: BatchConfig["db"], soFar: RunSoFar, err: unknown): void {
  const ending = soFar.ending ?? { exitCode: EXIT.error, stopReason: "cleanup" };
  run.log.error(`cleanup failed: ${oneLine(storeError(err, db))}; the next batch takes over the lock of this finished process`, {
    event: "cleanup_failed",
    runId: soFar.runId,
    ...ending,
  });
}
