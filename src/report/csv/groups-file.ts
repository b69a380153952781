// groups.csv: each group's figures (groups/groups.ts), then its estimates (estimates/group-estimates.ts)
// and, when the mobile figures combine two scales, how they read the answers.
import type { ReportSnapshot } from "../../store/snapshot.js";
import { groupCells, groupScaleCells, groupScaleHeader, groupsHeader } from "../groups/groups.js";
import type { EstimatedGroupSet } from "../estimates/group-estimates.js";
import { groupEstimateCells, groupEstimateHeader } from "../estimates/group-estimates.js";
import { writeCsv, type CsvFileOptions } from "./csv-file.js";

export function writeGroupsCsv(snapshot: ReportSnapshot, groups: EstimatedGroupSet, path: string, options: CsvFileOptions): Promise<number> {
  const header = [...groupsHeader(groups.figures), ...groupEstimateHeader(groups), ...groupScaleHeader(groups)];
  const estimateCells = groupEstimateCells(groups);
  return writeCsv(path, header, groups.rows.map((row) => [...groupCells(row, groups.figures), ...estimateCells(row), ...groupScaleCells(groups, row)]), options);
}
