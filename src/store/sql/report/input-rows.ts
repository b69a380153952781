// A run's input rows as the reports read them: the rejected ones, the rows as stored
// (the fingerprint), the rows with their postcode's figures (enriched.csv, the workbook's Your
// rows) and, with --uprn-column, their property's own: SQL joins the row to the stored address by
// postcode and UPRN.
import type { Cell, EnrichedRow, InputRow, RejectedRow, ReportScope, RowBatches, UprnCandidate } from "../../snapshot.js";
import type { SqlSession } from "../session.js";
import { POSTCODE_TABLE } from "./postcode-table.js";
import { enrichedRowsQuery, propertyFoundSql, propertyJoinSql } from "./property.js";

/** The most cells any row of a run's input had (0 for none). */
export async function widestRow(q: SqlSession, runId: number): Promise<number> {
  return (await q.get<{ n: number | null }>(`SELECT MAX(${q.dialect.cellCount("cells")}) AS n FROM run_rows WHERE run_id = @runId`, { runId }))?.n ?? 0;
}

/** A run's rejected rows in line order, as [line, value, reason, the row's cells]. */
export async function* rejectedRows(q: SqlSession, runId: number): RowBatches<RejectedRow> {
  const rows = q.stream("SELECT line, value, reason, cells FROM run_rows WHERE run_id = @runId AND postcode IS NULL ORDER BY line", { runId }) as unknown as RowBatches<[number, string, string, string]>;
  for await (const batch of rows) yield batch.map(([line, value, reason, cells]): RejectedRow => [line, value, reason, JSON.parse(cells) as string[]]);
}

/** A run's input rows as stored, in line order. */
export function inputRows(q: SqlSession, runId: number): RowBatches<InputRow> {
  return q.stream("SELECT line, value, postcode, reason, cells FROM run_rows WHERE run_id = @runId ORDER BY line", { runId }) as unknown as RowBatches<InputRow>;
}

/** The run's input rows in input order, each padded to the widest row's cells, with its postcode's figures (and its property's). */
export async function* enrichedRows(q: SqlSession, scope: ReportScope, columns: readonly string[], property: { index: number } | null): RowBatches<EnrichedRow> {
  const width = Math.max(scope.inputColumns.length, await widestRow(q, scope.runId));
  const query = enrichedRowsQuery(q.dialect, scope, POSTCODE_TABLE, columns, property, width);
  for await (const batch of q.stream(query.sql, query.params)) yield batch.map((row: Cell[]) => query.toRow(row));
}

/** The longest text of each of the first `width` input cells of the run. */
export async function longestInputCells(q: SqlSession, runId: number, width: number): Promise<(number | null)[]> {
  if (width === 0) return [];
  const cells = Array.from({ length: width }, (_, i) => `MAX(length(${q.dialect.cell("cells", i)})) AS c${i}`);
  const row = (await q.get<Record<string, number | null>>(`SELECT ${cells.join(", ")} FROM run_rows WHERE run_id = @runId`, { runId }))!;
  return Array.from({ length: width }, (_, i) => row[`c${i}`] ?? null);
}

/** Rows naming a UPRN whose postcode has an ok answer, and whether an address matched it. */
export async function uprnCandidates(q: SqlSession, scope: ReportScope, index: number): Promise<UprnCandidate[]> {
  const d = q.dialect;
  const { named, found } = propertyFoundSql(d, scope, index);
  const lookups = scope.lookups.map((l) => `'${l}'`).join(", ") || "''";
  const rows = await q.all<{ line: number; postcode: string; cell: string | null; found: number }>(
    `SELECT r.line, r.postcode, MIN(${d.cell("r.cells", index)}) AS cell, MAX(${d.asInt(found)}) AS found
       FROM run_rows r ${propertyJoinSql(d, scope, index)}
      WHERE r.run_id = @runId AND r.postcode IS NOT NULL AND ${named}
        AND EXISTS (SELECT 1 FROM lookups l WHERE l.postcode = r.postcode AND l.status = 'ok' AND l.lookup IN (${lookups}))
      GROUP BY r.line, r.postcode ORDER BY r.line`,
    { runId: scope.runId },
  );
  return rows.map((r) => ({ line: r.line, postcode: r.postcode, cell: String(r.cell), found: r.found === 1 }));
}
