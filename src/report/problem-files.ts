// rejects.csv (input rows that held no valid postcode) and failures.csv (postcodes whose lookup
// failed after every retry): the two lists someone acts on after a run.
import type { Db } from "../store/sqlite/db.js";
import { rejectedRows } from "../store/sqlite/run-rows.js";
import { writeCsv, type CsvFileOptions } from "./csv-file.js";
import { POSTCODE_TABLE } from "./postcode-table.js";
import type { ReportScope } from "./scope.js";

export function writeRejectsCsv(db: Db, scope: ReportScope, path: string, options: CsvFileOptions): Promise<number> {
  return writeCsv(path, ["Line", "Value", "Reason"], rejectedRows(db, scope.runId), options);
}

/** LastStatus is the last HTTP status, empty when the last attempt got no answer (timeout, reset). */
export function writeFailuresCsv(db: Db, scope: ReportScope, path: string, options: CsvFileOptions): Promise<number> {
  const requested = scope.lookups.map((l) => `'${l}'`).join(", ");
  const rows = db
    .prepare(
      `SELECT s.display, l.lookup, l.attempts, l.http_status, l.last_error
         FROM ${POSTCODE_TABLE} s JOIN lookups l ON l.postcode = s.postcode
        WHERE l.status = 'failed' AND l.lookup IN (${requested})
        ORDER BY s.display, l.lookup`,
    )
    .raw(true)
    .iterate() as Iterable<unknown[]>;
  return writeCsv(path, ["PostCode", "Lookup", "Attempts", "LastStatus", "LastError"], rows, options);
}
