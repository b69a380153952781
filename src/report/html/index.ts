// report.html, part of the report set: its data from the store, rendered, written atomically.
import type { ReportSnapshot } from "../../store/snapshot.js";
import { writeAtomically } from "../set/atomic-file.js";
import type { Summary } from "../summary/summary.js";
import { anyChange, type ChangesSummary } from "../changes/changes-summary.js";
import { collectHtmlReportData } from "./data.js";
import { renderHtmlReport } from "./render.js";
import type { ChangesData, HtmlReportData } from "./types.js";

export { renderHtmlReport } from "./render.js";
export type * from "./types.js";

/**
 * Writes report.html; the snapshot's postcode figures must be prepared. The changes section comes from the
 * summary's; `extra`: the groups (and a changes section that replaces the summary's).
 */
export async function writeHtmlReport(
  snapshot: ReportSnapshot,
  summary: Summary,
  path: string,
  extra: Pick<HtmlReportData, "groups" | "changes"> = {},
): Promise<void> {
  const changes = summary.changes ? changesData(summary.changes) : undefined;
  return writeAtomically(path, [renderHtmlReport({ ...(await collectHtmlReportData(snapshot, summary)), changes, ...extra })]);
}

/** The chart's view of the summary's changes: none when nothing moved against the baseline. */
export function changesData(c: ChangesSummary): ChangesData | undefined {
  if (!anyChange(c)) return undefined;
  return {
    baseline: c.baseline,
    tierUp: c.broadband?.upATier ?? 0,
    tierDown: c.broadband?.downATier ?? 0,
    notspots: Object.entries(c.mobile?.providers ?? {}).map(([provider, f]) => ({ provider, ...f.indoorVoice })),
  };
}
