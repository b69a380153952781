// The export's rows from SQLite: each table of src/figures/export-tables.ts read in key order, limited to
// the postcodes in scope, typed as the snapshot says (numbers, 0/1 flags, ISO timestamps as
// stored). The postcodes table's coordinates come from --area-file's rows (area.ts), when loaded.
import { displayPostcodeSql } from "../../../spec/postcode.js";
import { CELL_SEPARATOR, ROW_SEPARATOR, type Cell, type ExportTableName, type PackedExportRows, type PackedExportTable, type ReportScope, type RowBatches } from "../../snapshot.js";
import { EXPORT_TABLES } from "../../../figures/export-tables.js";
import { tableExists, type Db } from "../db.js";
import { batchesOf } from "../../snapshot.js";
import { AREA_TABLE, areaLoaded } from "./area.js";
import { exportExpression, exportSources, withinPostcode, type ExportDialect } from "../../shared/export-sql.js";

/** SQLite's spellings of the export's SQL (src/store/shared/export-sql.ts). */
const DIALECT: ExportDialect = { textOrder: "", nullDouble: "NULL", areaTable: AREA_TABLE, displayPostcode: displayPostcodeSql };

export const EXPORT_SOURCES = exportSources(DIALECT);
const WITHIN_POSTCODE = withinPostcode(DIALECT);
const expression = (name: string, areaLoaded: boolean) => exportExpression(DIALECT, name, areaLoaded);

/** The export tables this database holds (one without the history has no answer_versions). */
export function exportTables(db: Db): ExportTableName[] {
  return EXPORT_TABLES.map((t) => t.name).filter((name) => tableExists(db, EXPORT_SOURCES[name].table));
}

/** The SQLite expressions of a table's columns over its alias `t`. */
export function exportColumnsSql(name: ExportTableName, providers: readonly string[], areaLoaded = false): string[] {
  return EXPORT_TABLES.find((t) => t.name === name)!.columns(providers).map((c) => expression(c.name, areaLoaded));
}

/** The postcodes of a run, when the table is scoped and the scope is a run (`@runId`). */
function scopeWhere(name: ExportTableName, run: boolean): string {
  return EXPORT_SOURCES[name].scoped && run ? "WHERE t.postcode IN (SELECT postcode FROM run_rows WHERE run_id = @runId AND postcode IS NOT NULL)" : "";
}

/** The read of one table: its columns, limited to the postcodes of a run (`@runId`) or not, in key order. */
export function exportSelectSql(name: ExportTableName, providers: readonly string[], options: { run: boolean; areaLoaded?: boolean } = { run: false }): string {
  const source = EXPORT_SOURCES[name];
  return `SELECT ${exportColumnsSql(name, providers, options.areaLoaded).join(", ")} FROM ${source.table} t ${scopeWhere(name, options.run)} ORDER BY ${source.orderBy}`;
}

/** printf's arguments a call at most (SQLite functions take up to 1,000 arguments). */
const PRINTF_LIMIT = 500;

/**
 * The read of a table packed one postcode a row (PackedExportRows in src/store/snapshot.ts):
 * printf joins a row's cells (NULL prints as an empty cell; a number as SQLite's own text of it,
 * which for a double has the digits to read back the same double: about a fifth less CPU for the
 * broadband read than printf('%!.17g') of each; a text or timestamp as itself unless it holds a
 * separator or a NUL, then in hex), group_concat joins a postcode's rows in key order.
 */
export function packedExportSelectSql(name: PackedExportTable, providers: readonly string[], options: { run: boolean; areaLoaded?: boolean }): string {
  const [, ...columns] = EXPORT_TABLES.find((t) => t.name === name)!.columns(providers);
  const cells = columns.map((c) => {
    const sql = expression(c.name, options.areaLoaded ?? false);
    if (c.type !== "VARCHAR" && c.type !== "TIMESTAMP") return sql;
    // printf's %s would also end a text at a NUL
    const plain = `instr(${sql}, char(${CELL_SEPARATOR})) + instr(${sql}, char(${ROW_SEPARATOR})) + instr(${sql}, char(0)) = 0`;
    return `iif(${sql} IS NULL, '', iif(${plain}, 'r' || ${sql}, 'x' || hex(${sql})))`;
  });
  const calls: string[] = [];
  for (let i = 0; i < cells.length; i += PRINTF_LIMIT) {
    const part = cells.slice(i, i + PRINTF_LIMIT);
    calls.push(`printf('${part.map(() => "%s").join(String.fromCharCode(CELL_SEPARATOR))}', ${part.join(", ")})`);
  }
  const source = EXPORT_SOURCES[name];
  return (
    `SELECT ${expression("PostCode", false)}, group_concat(${calls.join(` || char(${CELL_SEPARATOR}) || `)}, char(${ROW_SEPARATOR}) ORDER BY ${WITHIN_POSTCODE[name]}), count(*) ` +
    `FROM ${source.table} t ${scopeWhere(name, options.run)} GROUP BY t.postcode ORDER BY t.postcode`
  );
}

export function exportPackedRows(db: Db, scope: ReportScope, name: PackedExportTable, providers: readonly string[]): RowBatches<PackedExportRows> {
  const run = scope.kind === "run";
  const sql = packedExportSelectSql(name, providers, { run, areaLoaded: areaLoaded(db) });
  return batchesOf(
    (function* () {
      yield* db.prepare(sql).raw(true).iterate(run ? { runId: scope.runId } : {}) as Iterable<PackedExportRows>;
    })(),
  );
}

export function exportRows(db: Db, scope: ReportScope, name: ExportTableName, providers: readonly string[]): RowBatches<Cell[]> {
  const run = scope.kind === "run" && EXPORT_SOURCES[name].scoped;
  const sql = exportSelectSql(name, providers, { run, areaLoaded: areaLoaded(db) });
  return batchesOf(
    (function* () {
      yield* db.prepare(sql).raw(true).iterate(run ? { runId: scope.runId } : {}) as Iterable<Cell[]>;
    })(),
  );
}
