// postcodes.csv (one row per postcode in scope) and enriched.csv (the user's input rows with the
// figures of their postcode appended), both read from the report's postcode table.
import type { Db } from "../store/db.js";
import { widestRow } from "../store/run-rows.js";
import { writeCsv, type CsvFileOptions } from "./csv-file.js";
import { providerColumn, SPREAD_METRICS } from "./measures.js";
import { ADDRESSES_COLUMN, countColumns, DOWNLOAD_RANGE_COLUMNS, POSTCODE_TABLE, STATUS_COLUMN } from "./postcode-table.js";
import type { ReportScope } from "./scope.js";

/** postcodes.csv after PostCode: statuses, address counts, speeds, then mobile notspots. */
export function postcodeFigureColumns(providers: readonly string[]): string[] {
  return [
    STATUS_COLUMN.broadband,
    STATUS_COLUMN.mobile,
    ADDRESSES_COLUMN.broadband,
    ADDRESSES_COLUMN.mobile,
    ...DOWNLOAD_RANGE_COLUMNS,
    ...countColumns(providers).broadband,
    ...providers.flatMap((p) => [providerColumn(p, "IndoorVoiceNotspots"), providerColumn(p, "IndoorDataNotspots")]),
    ...SPREAD_METRICS,
  ];
}

/** enriched.csv's figures: those of postcodes.csv except the per-provider ones. */
export function enrichedFigureColumns(providers: readonly string[]): string[] {
  const perProvider = new Set(providers.flatMap((p) => [providerColumn(p, "IndoorVoiceNotspots"), providerColumn(p, "IndoorDataNotspots")]));
  return postcodeFigureColumns(providers).filter((c) => !perProvider.has(c));
}

export function writePostcodesCsv(db: Db, scope: ReportScope, path: string, options: CsvFileOptions): Promise<number> {
  const columns = postcodeFigureColumns(scope.providers);
  const rows = db.prepare(`SELECT display, ${columns.join(", ")} FROM ${POSTCODE_TABLE} ORDER BY display`).raw(true).iterate() as Iterable<unknown[]>;
  return writeCsv(path, ["PostCode", ...columns], rows, options);
}

/**
 * The run's input rows in input order: the user's columns unchanged, then NormalisedPostCode, Status
 * (ok, invalid, not_found, failed, pending) and the postcode's figures. A row with more cells than
 * the header keeps them, under unnamed columns.
 */
export function writeEnrichedCsv(db: Db, scope: ReportScope, path: string, options: CsvFileOptions): Promise<number> {
  const figures = enrichedFigureColumns(scope.providers);
  const width = Math.max(scope.inputColumns.length, widestRow(db, scope.runId));
  const header = [...scope.inputColumns, ...Array<string>(width - scope.inputColumns.length).fill(""), "NormalisedPostCode", "Status", ...figures];
  const select = db
    .prepare(
      `SELECT r.cells, f.display, CASE WHEN r.postcode IS NULL THEN 'invalid' ELSE f.Status END, ${figures.map((c) => `f.${c}`).join(", ")}
         FROM run_rows r LEFT JOIN ${POSTCODE_TABLE} f ON f.postcode = r.postcode
        WHERE r.run_id = ? ORDER BY r.line`,
    )
    .raw(true);
  function* rows(): Generator<unknown[]> {
    for (const [cells, ...rest] of select.iterate(scope.runId) as Iterable<unknown[]>) {
      const input = JSON.parse(cells as string) as string[];
      while (input.length < width) input.push("");
      yield [...input, ...rest];
    }
  }
  return writeCsv(path, header, rows(), options);
}
