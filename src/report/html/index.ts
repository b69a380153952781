// report.html, part of the report set: its data from the store, rendered, written atomically.
import type { Db } from "../../store/db.js";
import { writeAtomically } from "../atomic-file.js";
import type { ReportScope } from "../scope.js";
import type { Summary } from "../summary.js";
import { collectHtmlReportData } from "./data.js";
import { renderHtmlReport } from "./render.js";
import type { HtmlReportData } from "./types.js";

export { renderHtmlReport } from "./render.js";
export type * from "./types.js";

/** Writes report.html; the report's postcode table must be built. `extra`: the optional sections. */
export function writeHtmlReport(
  db: Db,
  scope: ReportScope,
  summary: Summary,
  path: string,
  extra: Pick<HtmlReportData, "groups" | "changes"> = {},
): Promise<void> {
  return writeAtomically(path, [renderHtmlReport({ ...collectHtmlReportData(db, scope, summary), ...extra })]);
}
