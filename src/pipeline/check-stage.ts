// Between reading and planning: report options that name columns, and an input the reports cannot
// hold, are refused before anything is fetched; then Ofcom's open data is imported when asked for.
import { inputShapeProblem, reportOptionsProblem, type InputShape } from "../report/check-options.js";
import type { BatchConfig } from "./config.js";
import { nowIso, type OpenedRun } from "./run.js";

/** What the input check reads: whether reports are written, and the report options that name columns. */
export type InputCheckSettings = Pick<BatchConfig, "reports" | "groupBy" | "areaFile" | "uprnColumn">;

/** Why the input read cannot be the run's (the reports cannot hold it, or options name columns it lacks); null: it can. */
export async function inputRefusal(
  run: OpenedRun,
  settings: InputCheckSettings,
  runId: number,
  shape: InputShape,
): Promise<{ message: string; stopReason: "input" | "options" } | null> {
  const shapeProblem = settings.reports ? inputShapeProblem(shape) : null;
  if (shapeProblem) return { message: shapeProblem, stopReason: "input" };
  const reportProblem = settings.reports ? await reportOptionsProblem(run.store, runId, run.clock.now(), settings) : null;
  if (reportProblem) return { message: reportProblem, stopReason: "options" };
  return null;
}

/** Why the run, its input accepted, cannot go on to fetch; null: it can. */
export async function checkBeforeFetching(run: OpenedRun, settings: Pick<BatchConfig, "openData">, runId: number): Promise<{ message: string; stopReason: "input" } | null> {
  if (settings.openData) {
    // loaded only when asked for: every other run starts without the zip reader
    const { importOpenData } = await import("./open-data-stage.js");
    const imported = await importOpenData(run.store, settings.openData, { runId, now: () => nowIso(run) }, run.log, run.stop.stopAllSignal);
    if (!imported.ok) return { message: imported.message, stopReason: "input" };
  }
  return null;
}
