// rejects.csv (input rows that held no valid postcode) and failures.csv (postcodes whose lookup
// failed after every retry): the two lists someone acts on after a run.
import type { ReportSnapshot } from "../../store/snapshot.js";
import { writeCsv, type CsvFileOptions } from "./csv-file.js";

export function writeRejectsCsv(snapshot: ReportSnapshot, path: string, options: CsvFileOptions): Promise<number> {
  return writeCsv(path, ["Line", "Value", "Reason"], snapshot.rejectedRows(), options);
}

/** LastStatus is the last HTTP status, empty when the last attempt got no answer (timeout, reset). */
export function writeFailuresCsv(snapshot: ReportSnapshot, path: string, options: CsvFileOptions): Promise<number> {
  return writeCsv(path, ["PostCode", "Lookup", "Attempts", "LastStatus", "LastError"], snapshot.failureRows(), options);
}
