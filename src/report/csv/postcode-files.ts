// postcodes.csv (one row per postcode in scope) and enriched.csv (the user's input rows with the
// figures of their postcode appended), both read from the report's postcode table.
import type { ReportScope, ReportSnapshot, RowBatches } from "../../store/snapshot.js";
import { writeCsv, type CsvFileOptions } from "./csv-file.js";
import { providerColumn, SPREAD_METRICS } from "../../figures/measures.js";
import { ADDRESSES_COLUMN, countColumns, DOWNLOAD_RANGE_COLUMNS, openDataColumns, STATUS_COLUMN } from "../../figures/postcode-columns.js";
import { COORDINATE_COLUMNS } from "../../figures/coordinates.js";
import { propertyCells, propertyColumns } from "../summary/property-figures.js";
import { mapRows } from "../set/row-batches.js";

/** postcodes.csv after PostCode: statuses, address counts, speeds, mobile notspots, where it is (--area-file), then (with `openData`) Ofcom's open data. */
export function postcodeFigureColumns(providers: readonly string[], openData: Pick<ReportScope, "openData"> = {}): string[] {
  return [
    STATUS_COLUMN.broadband,
    STATUS_COLUMN.mobile,
    ADDRESSES_COLUMN.broadband,
    ADDRESSES_COLUMN.mobile,
    ...DOWNLOAD_RANGE_COLUMNS,
    ...countColumns(providers).broadband,
    ...providers.flatMap((p) => [providerColumn(p, "IndoorVoiceNotspots"), providerColumn(p, "IndoorDataNotspots")]),
    ...SPREAD_METRICS,
    ...COORDINATE_COLUMNS,
    ...openDataColumns(openData),
  ];
}

/** enriched.csv's figures: those of postcodes.csv except the per-provider ones and the coordinates. */
export function enrichedFigureColumns(providers: readonly string[]): string[] {
  const leftOut = new Set<string>([...providers.flatMap((p) => [providerColumn(p, "IndoorVoiceNotspots"), providerColumn(p, "IndoorDataNotspots")]), ...COORDINATE_COLUMNS]);
  return postcodeFigureColumns(providers).filter((c) => !leftOut.has(c));
}

/** The last column of a simulated run's row files: every row says its figures are not the real API's. */
export const SIMULATED_COLUMN = "Simulated";
const SIMULATED_CELL = "yes: from the bundled simulator, not the real API";

/** Rows with the simulated mark appended when `simulated`; as they are otherwise (a real run's files are unchanged). */
function markSimulated(header: string[], rows: RowBatches<unknown[]>, simulated: boolean): { header: string[]; rows: RowBatches<unknown[]> } {
  return simulated ? { header: [...header, SIMULATED_COLUMN], rows: mapRows(rows, (r) => [...r, SIMULATED_CELL]) } : { header, rows };
}

export function writePostcodesCsv(snapshot: ReportSnapshot, path: string, options: CsvFileOptions, simulated = false): Promise<number> {
  const columns = postcodeFigureColumns(snapshot.scope.providers, snapshot.scope);
  const marked = markSimulated(["PostCode", ...columns], snapshot.postcodeRows(columns), simulated);
  return writeCsv(path, marked.header, marked.rows, options);
}

/** enriched.csv's columns and rows, for the CSV and the workbook's Your rows. */
export interface EnrichedTable {
  header: string[];
  /** how many leading columns are the input's own (text as read) */
  inputWidth: number;
  rows: () => RowBatches<unknown[]>;
}

/**
 * The run's input rows in input order: the user's columns unchanged, then NormalisedPostCode, Status
 * (ok, invalid, not_found, failed, pending, uprn_not_found) and the postcode's figures, and with
 * --uprn-column the property's own. A row with more cells than the header keeps them, under unnamed columns.
 */
export async function enrichedTable(snapshot: ReportSnapshot, uprnColumn?: string): Promise<EnrichedTable> {
  const scope = snapshot.scope;
  const figures = enrichedFigureColumns(scope.providers);
  const property = uprnColumn === undefined ? null : propertyColumns(scope, uprnColumn);
  const width = Math.max(scope.inputColumns.length, await snapshot.widestInputRow());
  const header = [
    ...scope.inputColumns,
    ...Array<string>(width - scope.inputColumns.length).fill(""),
    "NormalisedPostCode",
    "Status",
    ...figures,
    ...(property?.header ?? []),
  ];
  const rows = () =>
    mapRows(snapshot.enrichedRows(figures, property), (r): unknown[] =>
      r.property === null ? [...r.cells, ...r.figures] : [...r.cells, ...r.figures, ...propertyCells(r.property, scope.providers)],
    );
  return { header, inputWidth: width, rows };
}

export async function writeEnrichedCsv(snapshot: ReportSnapshot, uprnColumn: string | undefined, path: string, options: CsvFileOptions, simulated = false): Promise<number> {
  const table = await enrichedTable(snapshot, uprnColumn);
  const marked = markSimulated(table.header, table.rows(), simulated);
  return writeCsv(path, marked.header, marked.rows, options);
}
