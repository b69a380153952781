// The report options that name columns (--group-by, --uprn-column, --area-file), checked against
// a run's input header as soon as it is read: a typo should stop the batch before hours of
// fetching, not after, when the reports are written.
import type { SnapshotSource } from "../store/snapshot.js";
import { readAreaHeader } from "./groups/area-file.js";
import { resolveDimensions, type GroupOptions } from "./groups/groups.js";
import { DEFAULT_GROUP_BY } from "./groups/group-by.js";
import { propertyColumns } from "./summary/property-figures.js";
import { isReportRefusal } from "./set/scope.js";
import { MAX_CELL_CHARS } from "./xlsx/limits.js";

/** Why the reports of this run could not be written as asked, or null when they can. */
export async function reportOptionsProblem(
  source: SnapshotSource,
  runId: number,
  nowMs: number,
  options: GroupOptions & { uprnColumn?: string | undefined },
): Promise<string | null> {
  try {
    // the file is read before the snapshot opens: the snapshot holds no transaction across file reads
    const area = options.areaFile ? await readAreaHeader(options.areaFile) : null;
    return await source.snapshot({ runId, nowMs }, async ({ scope }) => {
      resolveDimensions(options.groupBy ?? DEFAULT_GROUP_BY, scope, area);
      if (options.uprnColumn !== undefined) propertyColumns(scope, options.uprnColumn);
      return null;
    });
  } catch (err) {
    if (isReportRefusal(err)) return err.message;
    throw err;
  }
}

/** How wide and long the input is, as read. */
export interface InputShape {
  /** the file name, as messages name it */
  source: string;
  /** the header's columns, or the widest row's cells when wider */
  columns: number;
  /** the line of that widest row (0: the header) */
  widestLine: number;
  /** characters of the longest cell, and where it is */
  longestCell: number;
  longestAt: { line: number; column: number };
}

/** coverage.xlsx measures every input column in one SQLite query, which returns 2,000 columns at most (a sheet holds 16,384). */
const MAX_INPUT_COLUMNS = 2000;

/** Why the report set cannot hold this input (one line naming where), or null. Pure. */
export function inputShapeProblem(shape: InputShape): string | null {
  if (shape.columns > MAX_INPUT_COLUMNS)
    return (
      `${shape.source}${shape.widestLine > 0 ? ` line ${shape.widestLine}` : ""}: ${shape.columns.toLocaleString("en-GB")} columns; ` +
      `the reports hold at most ${MAX_INPUT_COLUMNS.toLocaleString("en-GB")} (keep the columns you need, or give only the postcode column)`
    );
  if (shape.longestCell > MAX_CELL_CHARS)
    return (
      `${shape.source} line ${shape.longestAt.line}, column ${shape.longestAt.column}: a cell of ${shape.longestCell.toLocaleString("en-GB")} characters; ` +
      `a worksheet cell holds at most ${MAX_CELL_CHARS.toLocaleString("en-GB")}`
    );
  return null;
}
