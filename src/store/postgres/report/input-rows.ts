// The run's input rows with their postcode's figures (enriched.csv, the workbook's Your rows) and,
// with --uprn-column, their property's own, as the SQLite engine's report/input-rows.ts joins them.
// PostgreSQL-specific: the stored cells (a JSON array of text) are read with ->>, a UPRN cell is
// tested with a regular expression, and "found" is a boolean.
import type pg from "pg";
import { enrichedRowsQuery, propertyFoundSql, propertyJoinSql, type PropertyDialect } from "../../shared/property-sql.js";
import type { Cell, EnrichedRow, ReportScope, RowBatches, UprnCandidate } from "../../snapshot.js";
import { rowOf, rowsOf } from "../connect.js";
import { asCell, bind, cellSql } from "./dialect.js";
import { cursorRows } from "./cursor.js";
import { POSTCODE_TABLE } from "./postcode-table.js";

/** PostgreSQL's reading of a stored cell (->>) and test of a UPRN cell (a regular expression). */
const DIALECT: PropertyDialect = {
  cell: cellSql,
  uprn(cells, index) {
    const cell = `trim(${cellSql(cells, index)})`;
    return `(CASE WHEN ${cell} ~ '^[0-9]{1,15}$' THEN CAST(${cell} AS bigint) END)`;
  },
  falseSql: "false",
};

/** The run's input rows in input order, each padded to `width` cells, with its postcode's figures (and its property's). */
export function enrichedRows(
  client: pg.PoolClient,
  scope: ReportScope,
  columns: readonly string[],
  goodRating: number,
  property: { index: number } | null,
  width: number,
): RowBatches<EnrichedRow> {
  const query = enrichedRowsQuery(DIALECT, scope, POSTCODE_TABLE, columns, goodRating, property, width);
  return cursorRows(client, bind(query.sql, query.params), (row) => query.toRow(row as Cell[]));
}

/** The most cells any input row of the run has (0 for none). */
export async function widestRow(client: pg.PoolClient, runId: number): Promise<number> {
  return (await rowOf<{ n: number | null }>(client, "SELECT MAX(json_array_length(cells::json)) AS n FROM run_rows WHERE run_id = $1", [runId]))?.n ?? 0;
}

/** The longest text of each of the first `width` input cells of the run. */
export async function longestInputCells(client: pg.PoolClient, runId: number, width: number): Promise<(number | null)[]> {
  if (width === 0) return [];
  const { rows } = await client.query<(number | null)[]>({
    text: `SELECT ${Array.from({ length: width }, (_, i) => `MAX(length(${cellSql("cells", i)}))`).join(", ")} FROM run_rows WHERE run_id = $1`,
    values: [runId],
    rowMode: "array",
  });
  return rows[0]!;
}

/** Rows naming a UPRN whose postcode has an ok answer, and whether an address matched it. */
export async function uprnCandidates(client: pg.PoolClient, scope: ReportScope, index: number): Promise<UprnCandidate[]> {
  const { named, found } = propertyFoundSql(DIALECT, scope, index);
  const lookups = scope.lookups.map((l) => `'${l}'`).join(", ") || "''";
  const rows = await rowsOf<{ line: number; postcode: string; cell: string | null; found: boolean }>(
    client,
    `SELECT r.line, r.postcode, MIN(${cellSql("r.cells", index)}) AS cell, bool_or(${found}) AS found
       FROM run_rows r ${propertyJoinSql(DIALECT, scope, index)}
      WHERE r.run_id = $1 AND r.postcode IS NOT NULL AND ${named}
        AND EXISTS (SELECT 1 FROM lookups l WHERE l.postcode = r.postcode AND l.status = 'ok' AND l.lookup IN (${lookups}))
      GROUP BY r.line, r.postcode ORDER BY r.line`,
    [scope.runId],
  );
  return rows.map((r) => ({ line: r.line, postcode: r.postcode, cell: String(r.cell), found: asCell(r.found) === 1 }));
}
