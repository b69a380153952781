// The export's rows: each table of src/figures/export-tables.ts read in key order (text in byte
// order), limited to the postcodes in scope, typed as the snapshot says (numbers, 0/1 flags, ISO
// timestamps as stored). The postcodes table's coordinates come from --area-file's rows, when loaded.
import { EXPORT_TABLES } from "../../../figures/export-tables.js";
import type { Cell, ExportTableName, PackedExportRows, PackedExportTable, ReportScope, RowBatches } from "../../snapshot.js";
import { inByteOrder, type Dialect } from "../dialect.js";
import type { SqlSession } from "../session.js";
import { exportExpression, exportSources, withinPostcode } from "./export-sql.js";

/** The export tables this database holds (an SQLite database without the history has no answer_versions). */
export async function exportTables(q: SqlSession): Promise<ExportTableName[]> {
  const present = new Set((await q.all<{ name: string }>(q.dialect.tableNamesSql)).map((r) => r.name));
  const sources = exportSources(q.dialect);
  return EXPORT_TABLES.map((t) => t.name).filter((name) => present.has(sources[name].table));
}

/** The expressions of a table's columns over its alias `t`. */
export function exportColumnsSql(d: Dialect, name: ExportTableName, providers: readonly string[], areaLoaded = false): string[] {
  return EXPORT_TABLES.find((t) => t.name === name)!.columns(providers).map((c) => exportExpression(d, c.name, areaLoaded));
}

/** The postcodes of a run (`@runId`), when scoped. */
const scopeWhere = (scoped: boolean) => (scoped ? "WHERE t.postcode IN (SELECT postcode FROM run_rows WHERE run_id = @runId AND postcode IS NOT NULL)" : "");

/** The read of one table: its columns, limited to the postcodes of a run (`@runId`) when scoped, in key order. */
export function exportSelectSql(d: Dialect, name: ExportTableName, providers: readonly string[], scoped = false, areaLoaded = false): string {
  const source = exportSources(d)[name];
  return `SELECT ${exportColumnsSql(d, name, providers, areaLoaded).join(", ")} FROM ${source.table} t ${scopeWhere(scoped)} ORDER BY ${source.orderBy}`;
}

export function exportRows(q: SqlSession, scope: ReportScope, name: ExportTableName, providers: readonly string[], areaLoaded: boolean): RowBatches<Cell[]> {
  const scoped = exportSources(q.dialect)[name].scoped && scope.kind === "run";
  return q.stream(exportSelectSql(q.dialect, name, providers, scoped, areaLoaded), scoped ? { runId: scope.runId } : {});
}

/**
 * The read of a table packed one postcode a row (PackedExportRows in src/store/snapshot.ts): a
 * row's cells as text joined by the cell separator (the dialect's packedCell and packCells: NULL
 * empty, a number as its exact text, a text or timestamp as itself unless it holds a separator,
 * then in hex), a postcode's rows joined by the row separator in key order (packRows).
 */
export function packedExportSelectSql(d: Dialect, name: PackedExportTable, providers: readonly string[], scoped: boolean, areaLoaded = false): string {
  const [, ...columns] = EXPORT_TABLES.find((t) => t.name === name)!.columns(providers);
  const cells = columns.map((c) => d.packedCell(exportExpression(d, c.name, areaLoaded), c.type === "VARCHAR" || c.type === "TIMESTAMP"));
  return (
    `SELECT ${exportExpression(d, "PostCode", false)}, ${d.packRows(d.packCells(cells), withinPostcode(d)[name])} ` +
    `FROM ${exportSources(d)[name].table} t ${scopeWhere(scoped)} GROUP BY t.postcode ORDER BY ${inByteOrder(d, "t.postcode")}`
  );
}

export async function* exportPackedRows(q: SqlSession, scope: ReportScope, name: PackedExportTable, providers: readonly string[], areaLoaded: boolean): RowBatches<PackedExportRows> {
  const scoped = scope.kind === "run";
  for (const statement of q.dialect.packedSetup) await q.exec(statement);
  yield* q.stream(packedExportSelectSql(q.dialect, name, providers, scoped, areaLoaded), scoped ? { runId: scope.runId } : {}) as unknown as RowBatches<PackedExportRows>;
}
