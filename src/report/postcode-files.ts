// postcodes.csv (one row per postcode in scope) and enriched.csv (the user's input rows with the
// figures of their postcode appended), both read from the report's postcode table.
import type { Db } from "../store/sqlite/db.js";
import { widestRow } from "../store/sqlite/run-rows.js";
import { writeCsv, type CsvFileOptions } from "./csv-file.js";
import { providerColumn, SPREAD_METRICS } from "./measures.js";
import { ADDRESSES_COLUMN, countColumns, DOWNLOAD_RANGE_COLUMNS, openDataColumns, POSTCODE_TABLE, STATUS_COLUMN } from "./postcode-table.js";
import type { ReportScope } from "./scope.js";
import { COORDINATE_COLUMNS } from "./coordinates.js";
import { propertyCells, propertyColumns, propertyFoundSql, propertyJoinSql, propertySelectSql, UPRN_NOT_FOUND } from "./property-figures.js";

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

export function writePostcodesCsv(db: Db, scope: ReportScope, path: string, options: CsvFileOptions): Promise<number> {
  const columns = postcodeFigureColumns(scope.providers, scope);
  const rows = db.prepare(`SELECT display, ${columns.join(", ")} FROM ${POSTCODE_TABLE} ORDER BY display`).raw(true).iterate() as Iterable<unknown[]>;
  return writeCsv(path, ["PostCode", ...columns], rows, options);
}

/** enriched.csv's columns and rows, for the CSV and the workbook's Your rows. */
export interface EnrichedTable {
  header: string[];
  /** how many leading columns are the input's own (text as read) */
  inputWidth: number;
  rows: () => Generator<unknown[]>;
}

/**
 * The run's input rows in input order: the user's columns unchanged, then NormalisedPostCode, Status
 * (ok, invalid, not_found, failed, pending, uprn_not_found) and the postcode's figures, and with
 * --uprn-column the property's own. A row with more cells than the header keeps them, under unnamed columns.
 */
export function enrichedTable(db: Db, scope: ReportScope, goodRating: number, uprnColumn?: string): EnrichedTable {
  const figures = enrichedFigureColumns(scope.providers);
  const property = uprnColumn === undefined ? null : propertyColumns(scope, uprnColumn);
  const width = Math.max(scope.inputColumns.length, widestRow(db, scope.runId));
  const header = [
    ...scope.inputColumns,
    ...Array<string>(width - scope.inputColumns.length).fill(""),
    "NormalisedPostCode",
    "Status",
    ...figures,
    ...(property?.header ?? []),
  ];
  const found = property ? propertyFoundSql(scope, property.index) : null;
  const status = found
    ? `CASE WHEN r.postcode IS NULL THEN 'invalid' WHEN f.Status = 'ok' AND ${found.named} AND NOT ${found.found} THEN '${UPRN_NOT_FOUND}' ELSE f.Status END`
    : "CASE WHEN r.postcode IS NULL THEN 'invalid' ELSE f.Status END";
  const select = db
    .prepare(
      `SELECT r.cells, f.display, ${status}, ${figures.map((c) => `f.${c}`).join(", ")}${property ? `, ${propertySelectSql(scope)}` : ""}
         FROM run_rows r LEFT JOIN ${POSTCODE_TABLE} f ON f.postcode = r.postcode ${property ? propertyJoinSql(scope, property.index) : ""}
        WHERE r.run_id = @runId ORDER BY r.line`,
    )
    .raw(true);
  const params = property && scope.lookups.includes("mobile") ? { runId: scope.runId, good: goodRating } : { runId: scope.runId };
  const postcodeCells = 2 + figures.length;
  function* rows(): Generator<unknown[]> {
    for (const [cells, ...rest] of select.iterate(params) as Iterable<unknown[]>) {
      const input = JSON.parse(cells as string) as string[];
      while (input.length < width) input.push("");
      if (!property) yield [...input, ...rest];
      else yield [...input, ...rest.slice(0, postcodeCells), ...propertyCells(rest.slice(postcodeCells), scope.providers)];
    }
  }
  return { header, inputWidth: width, rows };
}

export function writeEnrichedCsv(db: Db, scope: ReportScope, goodRating: number, uprnColumn: string | undefined, path: string, options: CsvFileOptions): Promise<number> {
  const table = enrichedTable(db, scope, goodRating, uprnColumn);
  return writeCsv(path, table.header, table.rows(), options);
}
