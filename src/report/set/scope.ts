// Which postcodes a report covers: the store resolves it (ReportSnapshot.scope); the reports name it.
import { UserError } from "../../errors.js";
import { ScopeError } from "../../store/snapshot.js";
import { OutputError } from "../../outputs/output-error.js";

export { ScopeError, type ReportScope } from "../../store/snapshot.js";

/** A report that cannot be made as asked (a bad --area-file, --group-by or out folder): the CLI exits 1 with it. */
export class ReportError extends UserError {}

/** Whether `err` says the report cannot be made as asked, by the report's own checks, its output folder's or the store's scope. */
export function isReportRefusal(err: unknown): err is UserError {
  return err instanceof ReportError || err instanceof ScopeError || err instanceof OutputError;
}
