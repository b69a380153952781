// The run's input rows with their postcode's figures (enriched.csv, the workbook's Your rows) and,
// with --uprn-column, their property's own, as the SQLite engine's report/input-rows.ts joins them.
// PostgreSQL-specific: the stored cells (a JSON array of text) are read with ->>, a UPRN cell is
// tested with a regular expression, and "found" is a boolean.
import type pg from "pg";
import { mobileField } from "../../../spec/fields.js";
import { goodColumns } from "../../../report/measures.js";
import { goodSql, tierSql } from "../../shared/measures.js";
import { UPRN_NOT_FOUND } from "../../../report/property-figures.js";
import type { Cell, EnrichedRow, ReportScope, RowBatches, UprnCandidate } from "../../snapshot.js";
import { rowOf, rowsOf } from "../connect.js";
import { asCell, bind, cellSql } from "./dialect.js";
import { cursorRows } from "./cursor.js";
import { POSTCODE_TABLE } from "./postcode-table.js";

/** The UPRN of the row as an integer: digits only (spaces around allowed, at most 15), else NULL. */
function uprnSql(cells: string, index: number): string {
  const cell = `trim(${cellSql(cells, index)})`;
  return `(CASE WHEN ${cell} ~ '^[0-9]{1,15}$' THEN CAST(${cell} AS bigint) END)`;
}

/** The joins that find the row's property (aliases pb, pm), for a query over run_rows r. */
function propertyJoinSql(scope: ReportScope, index: number): string {
  const uprn = uprnSql("r.cells", index);
  return [
    scope.lookups.includes("broadband") ? `LEFT JOIN broadband_addresses pb ON pb.postcode = r.postcode AND pb.uprn = ${uprn}` : "",
    scope.lookups.includes("mobile") ? `LEFT JOIN mobile_addresses pm ON pm.postcode = r.postcode AND pm.uprn = ${uprn}` : "",
  ].join(" ");
}

/** Whether the row names a UPRN (non-blank) and whether any answer holds it: decides uprn_not_found. */
function propertyFoundSql(scope: ReportScope, index: number): { named: string; found: string } {
  const found = [scope.lookups.includes("broadband") ? "pb.uprn IS NOT NULL" : "", scope.lookups.includes("mobile") ? "pm.uprn IS NOT NULL" : ""].filter(Boolean);
  return { named: `trim(COALESCE(${cellSql("r.cells", index)}, '')) <> ''`, found: found.length > 0 ? `(${found.join(" OR ")})` : "false" };
}

/** The property's cells: down, up, tier, the good yes/no cells, then each provider's indoor data and voice ratings. */
function propertySelectSql(scope: ReportScope): string {
  const bb = scope.lookups.includes("broadband");
  const mb = scope.lookups.includes("mobile");
  const ratings = scope.providers.flatMap((p) => [mobileField(p, "Data", "Indoor"), mobileField(p, "Voice", "Indoor")]);
  return [
    bb ? "pb.MaxPredictedDown" : "NULL",
    bb ? "pb.MaxPredictedUp" : "NULL",
    bb ? `CASE WHEN pb.uprn IS NULL THEN NULL ELSE ${tierSql("pb")} END` : "NULL",
    ...goodColumns(scope.providers).map((g) => (mb ? `CASE WHEN pm.uprn IS NULL THEN NULL ELSE ${goodSql(`pm.${g.rating}`)} END` : "NULL")),
    ...ratings.map((r) => (mb ? `pm.${r}` : "NULL")),
  ].join(", ");
}

/** The run's input rows in input order, each padded to `width` cells, with its postcode's figures (and its property's). */
export function enrichedRows(
  client: pg.PoolClient,
  scope: ReportScope,
  columns: readonly string[],
  goodRating: number,
  property: { index: number } | null,
  width: number,
): RowBatches<EnrichedRow> {
  const found = property ? propertyFoundSql(scope, property.index) : null;
  const status = found
    ? `CASE WHEN r.postcode IS NULL THEN 'invalid' WHEN f.Status = 'ok' AND ${found.named} AND NOT ${found.found} THEN '${UPRN_NOT_FOUND}' ELSE f.Status END`
    : "CASE WHEN r.postcode IS NULL THEN 'invalid' ELSE f.Status END";
  const sql = `SELECT r.cells, f.display, ${status}${columns.map((c) => `, f.${c}`).join("")}${property ? `, ${propertySelectSql(scope)}` : ""}
                 FROM run_rows r LEFT JOIN ${POSTCODE_TABLE} f ON f.postcode = r.postcode ${property ? propertyJoinSql(scope, property.index) : ""}
                WHERE r.run_id = @runId ORDER BY r.line`;
  const params = property && scope.lookups.includes("mobile") ? { runId: scope.runId, good: goodRating } : { runId: scope.runId };
  const figureCells = 2 + columns.length;
  return cursorRows(client, bind(sql, params), ([cells, ...rest]) => {
    const input = JSON.parse(cells as string) as string[];
    while (input.length < width) input.push("");
    const values = rest as Cell[];
    return { cells: input, figures: property ? values.slice(0, figureCells) : values, property: property ? values.slice(figureCells) : null };
  });
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
  const { named, found } = propertyFoundSql(scope, index);
  const lookups = scope.lookups.map((l) => `'${l}'`).join(", ") || "''";
  const rows = await rowsOf<{ line: number; postcode: string; cell: string | null; found: boolean }>(
    client,
    `SELECT r.line, r.postcode, MIN(${cellSql("r.cells", index)}) AS cell, bool_or(${found}) AS found
       FROM run_rows r ${propertyJoinSql(scope, index)}
      WHERE r.run_id = $1 AND r.postcode IS NOT NULL AND ${named}
        AND EXISTS (SELECT 1 FROM lookups l WHERE l.postcode = r.postcode AND l.status = 'ok' AND l.lookup IN (${lookups}))
      GROUP BY r.line, r.postcode ORDER BY r.line`,
    [scope.runId],
  );
  return rows.map((r) => ({ line: r.line, postcode: r.postcode, cell: String(r.cell), found: asCell(r.found) === 1 }));
}
