// rejects.csv (input rows that held no valid postcode) and failures.csv (postcodes whose lookup
// failed after every retry): the two lists someone acts on after a run.
import type { ReportSnapshot } from "../../store/snapshot.js";
import { mapRows } from "../set/row-batches.js";
import { writeCsv, type CsvFileOptions } from "./csv-file.js";

export const REJECT_COLUMNS = ["Line", "Value", "Reason"] as const;

/** Line, Value and Reason, then the row's own cells under the input's header (a longer row's extra cells under unnamed columns), so a reject can be found and fixed by its Ref. */
export async function writeRejectsCsv(snapshot: ReportSnapshot, path: string, options: CsvFileOptions): Promise<number> {
  const inputColumns = snapshot.scope.kind === "run" ? snapshot.scope.inputColumns : [];
  const width = Math.max(inputColumns.length, await snapshot.widestInputRow());
  const header = [...REJECT_COLUMNS, ...inputColumns, ...Array<string>(width - inputColumns.length).fill("")];
  const rows = mapRows(snapshot.rejectedRows(), ([line, value, reason, cells]) => [line, value, reason, ...cells, ...Array<string>(width - cells.length).fill("")]);
  return writeCsv(path, header, rows, options);
}

/** LastStatus is the last HTTP status, empty when the last attempt got no answer (timeout, reset). */
export function writeFailuresCsv(snapshot: ReportSnapshot, path: string, options: CsvFileOptions): Promise<number> {
  return writeCsv(path, ["PostCode", "Lookup", "Attempts", "LastStatus", "LastError"], snapshot.failureRows(), options);
}
