// The run's input rows with their postcode's figures (enriched.csv, the workbook's Your rows) and,
// with --uprn-column, their property's own: SQL joins the row to the stored address by postcode and
// UPRN. SQLite-specific: json_extract over the stored cells (a JSON array of text) and GLOB.
import type { Db } from "../db.js";
import type { EnrichedRow, ReportScope, UprnCandidate, Cell } from "../../snapshot.js";
import { enrichedRowsQuery, propertyFoundSql, propertyJoinSql, type PropertyDialect } from "../../shared/property-sql.js";
import { POSTCODE_TABLE } from "./postcode-table.js";

/** SQLite's reading of a stored cell (json_extract) and test of a UPRN cell (GLOB). */
const DIALECT: PropertyDialect = {
  cell: (cells, index) => `json_extract(${cells}, '$[${index}]')`,
  uprn(cells, index) {
    const cell = `trim(json_extract(${cells}, '$[${index}]'))`;
    return `(CASE WHEN ${cell} GLOB '[0-9]*' AND ${cell} NOT GLOB '*[^0-9]*' AND length(${cell}) <= 15 THEN CAST(${cell} AS INTEGER) END)`;
  },
  falseSql: "0",
};

/** The run's input rows in input order, each padded to `width` cells, with its postcode's figures (and its property's). */
export function* enrichedRows(
  db: Db,
  scope: ReportScope,
  columns: readonly string[],
  goodRating: number,
  property: { index: number } | null,
  width: number,
): Generator<EnrichedRow> {
  const query = enrichedRowsQuery(DIALECT, scope, POSTCODE_TABLE, columns, goodRating, property, width);
  for (const row of db.prepare(query.sql).raw(true).iterate(query.params) as Iterable<Cell[]>) yield query.toRow(row);
}

/** The longest text of each of the first `width` input cells of the run. */
export function longestInputCells(db: Db, runId: number, width: number): (number | null)[] {
  if (width === 0) return [];
  return db
    .prepare(`SELECT ${Array.from({ length: width }, (_, i) => `MAX(length(json_extract(cells, '$[${i}]')))`).join(", ")} FROM run_rows WHERE run_id = ?`)
    .raw(true)
    .get(runId) as (number | null)[];
}

/** Rows naming a UPRN whose postcode has an ok answer, and whether an address matched it. */
export function uprnCandidates(db: Db, scope: ReportScope, index: number): UprnCandidate[] {
  const { named, found } = propertyFoundSql(DIALECT, scope, index);
  const lookups = scope.lookups.map((l) => `'${l}'`).join(", ");
  const rows = db
    .prepare(
      `SELECT r.line, r.postcode, ${DIALECT.cell("r.cells", index)} AS cell, MAX(${found}) AS found
         FROM run_rows r ${propertyJoinSql(DIALECT, scope, index)}
        WHERE r.run_id = ? AND r.postcode IS NOT NULL AND ${named}
          AND EXISTS (SELECT 1 FROM lookups l WHERE l.postcode = r.postcode AND l.status = 'ok' AND l.lookup IN (${lookups}))
        GROUP BY r.line ORDER BY r.line`,
    )
    .all(scope.runId) as { line: number; postcode: string; cell: unknown; found: number }[];
  return rows.map((r) => ({ line: r.line, postcode: r.postcode, cell: String(r.cell), found: Boolean(r.found) }));
}
