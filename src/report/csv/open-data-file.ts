// open-data-vs-api.csv: the cross-check of Ofcom's open postcode data against the API's figures
// (summary/open-data.ts counts it for the summary), row by row as the snapshot gives them.
import { OPEN_DATA_MONTH_COLUMN } from "../../contract/open-data.js";
import type { ReportSnapshot } from "../../store/snapshot.js";
import { writeCsv, type CsvFileOptions } from "./csv-file.js";

export const CROSS_CHECK_HEADER = ["PostCode", OPEN_DATA_MONTH_COLUMN, "OfcomSuperfast", "BroadbandAddresses", "ApiSuperfast", "Difference"];

/** open-data-vs-api.csv: per postcode with both, Ofcom's superfast share of premises, the API's of addresses (≥ 30 Mbit/s down), and API minus Ofcom, in points. */
export function writeOpenDataVsApiCsv(snapshot: ReportSnapshot, path: string, options: CsvFileOptions): Promise<number> {
  return writeCsv(path, CROSS_CHECK_HEADER, snapshot.openDataVsApi(), options);
}
