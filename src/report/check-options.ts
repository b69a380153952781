// The report options that name columns (--group-by, --uprn-column, --area-file), checked against
// a run's input header as soon as it is read: a typo should stop the batch before hours of
// fetching, not after, when the reports are written.
import type { Db } from "../store/db.js";
import { readAreaHeader } from "./area-file.js";
import { DEFAULT_GROUP_BY, resolveDimensions, type GroupOptions } from "./groups.js";
import { propertyColumns } from "./property-figures.js";
import { ReportError, resolveScope } from "./scope.js";

/** Why the reports of this run could not be written as asked, or null when they can. */
export async function reportOptionsProblem(db: Db, runId: number, options: GroupOptions & { uprnColumn?: string | undefined }): Promise<string | null> {
  try {
    const scope = resolveScope(db, { runId });
    const area = options.areaFile ? await readAreaHeader(options.areaFile) : null;
    resolveDimensions(options.groupBy ?? DEFAULT_GROUP_BY, scope, area);
    if (options.uprnColumn !== undefined) propertyColumns(scope, options.uprnColumn);
    return null;
  } catch (err) {
    if (err instanceof ReportError) return err.message;
    throw err;
  }
}
