// The report stage: the run's report set, replaced whole (or kept, when it is current).
import { storeError } from "../store/open-store.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { headlineLines, openFirstLine, SUMMARY_JSON, writeReportsUnlessCurrent, type ReportOptions } from "../report/index.js";
import { oneLine } from "../errors.js";
import { LeaseLostError } from "../store/types.js";
import type { BatchConfig } from "./config.js";
import { leaseTtl, type OpenedRun } from "./run.js";
import { answerPaces } from "../plan/answer-pace.js";

/**
 * What the reports read: where they go, the report options, the lookups (the quota's pace of each)
 * and the database (named when it fails).
 */
export type ReportSettings = Pick<
  BatchConfig,
  "out" | "groupBy" | "areaFile" | "uprnColumn" | "mobileScale" | "goodRating" | "attribution" | "workbookRows" | "lookups" | "db"
>;

/** Returns why the reports could not be written (the run then exits 1), or null. */
export async function reportStage(run: OpenedRun, settings: ReportSettings, runId: number): Promise<string | null> {
  const { log } = run;
  const options = await reportOptions(run, settings, { runId });
  log.debug(`writing the reports to ${settings.out}`, { event: "reports-start" });
  try {
    // A nightly run that changed nothing keeps the set it would rewrite (report/set/fingerprint.ts).
    const report = await writeReportsUnlessCurrent(run.store, options);
    if (report === "current") {
      // milestones: even a --quiet night's log says whether the reports were kept or written
      log.milestone("info", `reports are current: ${settings.out} already holds this set (same input, options and answers), kept as it is`, { event: "reports" });
      log.result(openFirstLine(settings.out));
      return null;
    }
    log.milestone("info", `reports written to ${settings.out}: ${report.files.map((f) => f.split(/[\\/]/).pop()).join(", ")}`, { event: "reports" });
    for (const line of headlineLines(report.summary)) log.result(line);
    for (const note of report.notes) log.result(note, { event: "note" });
    log.result(openFirstLine(settings.out));
    return null;
  } catch (caught) {
    // a failure of the database names it (without password) and says what ended the connection
    const err = storeError(caught, settings.db);
    const message = `${oneLine(err)}; the previous reports are unchanged and the database is complete: \`npm run report\` retries`;
    log.error(message, { event: "reports" });
    return `reports not written: ${oneLine(err)}`;
  }
}

/** The report set's options as the batch writes it: the run's clock, its lease held for the swap. */
async function reportOptions(run: OpenedRun, settings: ReportSettings, scope: { runId: number | null }): Promise<ReportOptions> {
  return {
    outDir: settings.out,
    ...(scope.runId === null ? { all: true } : { runId: scope.runId }),
    groupBy: settings.groupBy,
    areaFile: settings.areaFile,
    uprnColumn: settings.uprnColumn,
    mobileScale: settings.mobileScale,
    goodRating: settings.goodRating,
    command: "batch",
    // the run's clock: what the reports hide as expired is what this run would delete
    now: () => new Date(run.clock.now()),
    attribution: settings.attribution,
    workbookRows: settings.workbookRows,
    // when a partly answered list's rest will be answered, at the quota as the ledger stands
    answerPaces: await answerPaces(run.store, run.clock.now(), settings.lookups),
    onWarning: (m: string) => run.log.warn(m),
    beforeSwap: () => holdLeaseForSwap(run),
  };
}

/**
 * A night that deleted expired answers but writes no reports of its own (its input refused, its API
 * unreachable): the set already in --out is written again for the run (or scope) it reports, at
 * this run's clock, so that no file of it holds what the retention deleted. Kept when it holds none.
 */
export async function clearExpiredFromReports(run: OpenedRun, settings: ReportSettings): Promise<void> {
  const scope = reportedScope(settings.out);
  if (scope === undefined) return;
  const { log } = run;
  const what = scope.runId === null ? "every stored postcode" : `run ${scope.runId}`;
  try {
    const report = await writeReportsUnlessCurrent(run.store, await reportOptions(run, settings, scope));
    if (report !== "current")
      log.milestone("info", `reports in ${settings.out} (of ${what}) written again without the answers the retention deleted: this run wrote no reports of its own`, { event: "reports" });
  } catch (caught) {
    const err = storeError(caught, settings.db);
    log.error(`the reports in ${settings.out} may still hold answers the retention deleted: writing them again failed: ${oneLine(err)}; \`npm run report\` retries`, { event: "reports" });
  }
}

/** The scope of the report set in `out` as its summary.json names it; undefined when there is none. */
function reportedScope(out: string): { runId: number | null } | undefined {
  try {
    const summary = JSON.parse(readFileSync(join(out, SUMMARY_JSON), "utf8")) as { runId?: unknown };
    if (summary.runId === null || (typeof summary.runId === "number" && Number.isInteger(summary.runId))) return { runId: summary.runId };
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * A set is put in place only by a run that still holds its lease, as the database says: the lease is
 * renewed (refused once it expired) just before the swap, which then has a whole time to live.
 */
async function holdLeaseForSwap(run: OpenedRun): Promise<void> {
  const sentAt = run.fence.mark();
  if (!run.fence.lost && (await run.store.leases.renew(run.lease.id, run.clock.now(), leaseTtl(run.deps)))) {
    run.fence.renewed(sentAt);
    return;
  }
  run.fence.lose("its renewal before the reports were put in place was refused: it expired (another batch may have taken over its work)");
  throw new LeaseLostError(run.lease.id);
}
