// The export's rows from PostgreSQL: each table of src/figures/export-tables.ts read through a cursor in
// key order (text in byte order, as SQLite sorts it), limited to the postcodes in scope, typed as
// the snapshot says (numbers, 0/1 flags, ISO timestamps as stored). The postcodes table's
// coordinates come from --area-file's rows (area.ts) when they were loaded.
import type pg from "pg";
import { EXPORT_TABLES } from "../../../figures/export-tables.js";
import { CELL_SEPARATOR, ROW_SEPARATOR, type Cell, type ExportTableName, type PackedExportRows, type PackedExportTable, type ReportScope, type RowBatches } from "../../snapshot.js";
import { rowsOf } from "../connect.js";
import { bind, BYTE_ORDER, displayPostcodeSql } from "./dialect.js";
import { cursorRows } from "./cursor.js";
import { AREA_TABLE } from "./postcode-table.js";
import { exportExpression, exportSources, withinPostcode, type ExportDialect } from "../../shared/export-sql.js";

/** PostgreSQL's spellings of the export's SQL (src/store/shared/export-sql.ts). */
const DIALECT: ExportDialect = { textOrder: BYTE_ORDER, nullDouble: "NULL::double precision", areaTable: AREA_TABLE, displayPostcode: displayPostcodeSql };

const SOURCE = exportSources(DIALECT);
const WITHIN_POSTCODE = withinPostcode(DIALECT);
const expression = (name: string, areaLoaded: boolean) => exportExpression(DIALECT, name, areaLoaded);

/** The export tables this database holds: every one (the PostgreSQL schema always has the history). */
export async function exportTables(client: pg.PoolClient): Promise<ExportTableName[]> {
  const present = new Set(
    (await rowsOf<{ name: string }>(client, "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()")).map((r) => r.name),
  );
  return EXPORT_TABLES.map((t) => t.name as ExportTableName).filter((name) => present.has(SOURCE[name].table));
}

export function exportRows(client: pg.PoolClient, scope: ReportScope, name: ExportTableName, providers: readonly string[], areaLoaded: boolean): RowBatches<Cell[]> {
  const table = EXPORT_TABLES.find((t) => t.name === name)!;
  const source = SOURCE[name];
  const columns = table.columns(providers).map((c) => expression(c.name, areaLoaded));
  const scoped = source.scoped && scope.kind === "run";
  return cursorRows(client, bind(`SELECT ${columns.join(", ")} FROM ${source.table} t ${scopeWhere(scoped)} ORDER BY ${source.orderBy}`, scoped ? { runId: scope.runId } : {}), (row) => row as Cell[]);
}

/** The postcodes of a run (`@runId`), when scoped. */
const scopeWhere = (scoped: boolean) => (scoped ? "WHERE t.postcode IN (SELECT postcode FROM run_rows WHERE run_id = @runId AND postcode IS NOT NULL)" : "");

/**
 * The read of a table packed one postcode a row (PackedExportRows in src/store/snapshot.ts):
 * a row's cells as text joined by CELL_SEPARATOR (NULL empty; a double's text is its shortest exact
 * form while extra_float_digits is above 0; a text or timestamp as itself unless it holds a
 * separator, then in hex), string_agg joins a postcode's rows by ROW_SEPARATOR in key order.
 */
export function packedExportSelectSql(name: PackedExportTable, providers: readonly string[], scoped: boolean, areaLoaded = false): string {
  const [, ...columns] = EXPORT_TABLES.find((t) => t.name === name)!.columns(providers);
  const cells = columns.map((c) => {
    const sql = expression(c.name, areaLoaded);
    if (c.type !== "VARCHAR" && c.type !== "TIMESTAMP") return `COALESCE(${sql}::text, '')`;
    const plain = `strpos(${sql}, chr(${CELL_SEPARATOR})) + strpos(${sql}, chr(${ROW_SEPARATOR})) = 0`;
    return `CASE WHEN ${sql} IS NULL THEN '' WHEN ${plain} THEN 'r' || ${sql} ELSE 'x' || encode(convert_to(${sql}, 'UTF8'), 'hex') END`;
  });
  return (
    `SELECT ${expression("PostCode", false)}, string_agg(${cells.join(` || chr(${CELL_SEPARATOR}) || `)}, chr(${ROW_SEPARATOR}) ORDER BY ${WITHIN_POSTCODE[name]}), count(*)::integer ` +
    `FROM ${SOURCE[name].table} t ${scopeWhere(scoped)} GROUP BY t.postcode ORDER BY t.postcode ${BYTE_ORDER}`
  );
}

export async function* exportPackedRows(
  client: pg.PoolClient,
  scope: ReportScope,
  name: PackedExportTable,
  providers: readonly string[],
  areaLoaded: boolean,
): AsyncGenerator<PackedExportRows[]> {
  const scoped = scope.kind === "run";
  // A double's text reads back as the same double only above 0 (the default, 1, since PostgreSQL 12).
  await client.query("SET LOCAL extra_float_digits = 1");
  const sql = bind(packedExportSelectSql(name, providers, scoped, areaLoaded), scoped ? { runId: scope.runId } : {});
  yield* cursorRows(client, sql, (row) => row as unknown as PackedExportRows);
}
