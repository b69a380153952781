// Writing the export: rows stream from SQLite (one read snapshot for every table) into DuckDB
// through its appender, a data chunk of 2,048 rows at a time, and DuckDB writes them as typed,
// zstd-compressed Parquet (or CSV). Address tables arrive in postcode order, so each postcode area
// is one stretch of rows: it is staged and written as area=XX/data_N.parquet, at most FILE_ROWS
// rows a file, which bounds memory by FILE_ROWS rather than by the table. DuckDB is loaded only
// here, and only its built-in writers are used (its SQLite extension would be downloaded).
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { DuckDBConnection, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import type { Db } from "../store/db.js";
import { resolveScope } from "../report/scope.js";
import { EXPORT_TABLES, postcodeArea, selectSql, type ExportColumn, type ExportTable, type ExportType } from "./tables.js";

export type ExportFormat = "parquet" | "csv";
export const EXPORT_FORMATS: readonly ExportFormat[] = ["parquet", "csv"];

export interface ExportOptions {
  outDir: string;
  format?: ExportFormat | undefined;
  /** the run whose postcodes to export; default the last run */
  runId?: number | undefined;
  /** every stored postcode instead */
  all?: boolean | undefined;
  /** rows of one output file at most (tests make it small) */
  fileRows?: number | undefined;
  onProgress?: ((message: string) => void) | undefined;
}

export interface ExportedTable {
  name: string;
  /** the file or directory written, inside outDir */
  path: string;
  rows: number;
  files: number;
  bytes: number;
}

export interface ExportResult {
  runId: number | null;
  tables: ExportedTable[];
}

/** Staged rows per output file: about 100 MB of DuckDB memory for the widest table. */
export const FILE_ROWS = 1_000_000;
const CHUNK_ROWS = 2048;

// Values are staged in the types JavaScript hands over cheaply and cast by the COPY: a UPRN as a
// double (exact up to 2^53), a timestamp as its ISO text, a flag as an integer.
const STAGE_TYPE: Record<ExportType, "VARCHAR" | "DOUBLE" | "INTEGER" | "TINYINT"> = {
  VARCHAR: "VARCHAR",
  BIGINT: "DOUBLE",
  INTEGER: "INTEGER",
  TINYINT: "TINYINT",
  DOUBLE: "DOUBLE",
  BOOLEAN: "INTEGER",
  TIMESTAMP: "VARCHAR",
};

export async function writeExport(db: Db, options: ExportOptions): Promise<ExportResult> {
  const format = options.format ?? "parquet";
  const fileRows = options.fileRows ?? FILE_ROWS;
  const progress = options.onProgress ?? (() => {});
  const staging = join(options.outDir, `.export-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const duckdb = await import("@duckdb/node-api");
  const instance = await duckdb.DuckDBInstance.create(":memory:", {
    // Staged rows beyond this spill to disk instead of growing the process.
    memory_limit: "512MB",
    temp_directory: join(staging, ".duckdb-tmp"),
    preserve_insertion_order: "true",
    autoinstall_known_extensions: "false",
    autoload_known_extensions: "false",
  });
  const connection = await instance.connect();
  const ownTransaction = !db.inTransaction;
  if (ownTransaction) db.exec("BEGIN");
  try {
    const scope = resolveScope(db, { runId: options.runId, all: options.all });
    const postcodeFilter = options.all
      ? "1"
      : `t.postcode IN (SELECT postcode FROM run_rows WHERE run_id = ${scope.runId} AND postcode IS NOT NULL)`;
    const tables: ExportedTable[] = [];
    for (const table of EXPORT_TABLES) {
      if (!tableExists(db, table.source)) continue;
      const started = performance.now();
      const written = await exportTable(db, connection, duckdb, table, scope.providers, { postcodeFilter }, staging, format, fileRows);
      tables.push(written);
      progress(`${written.path}: ${written.rows} rows, ${written.files} file(s), ${written.bytes} bytes in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    rmSync(join(staging, ".duckdb-tmp"), { recursive: true, force: true });
    // Everything is written: only now does each table replace its previous export.
    for (const t of tables) {
      const target = join(options.outDir, t.path);
      rmSync(target, { recursive: true, force: true });
      if (existsSync(join(staging, t.path))) renameSync(join(staging, t.path), target);
    }
    return { runId: options.all ? null : scope.runId, tables };
  } finally {
    if (ownTransaction) db.exec("COMMIT");
    connection.closeSync();
    instance.closeSync();
    rmSync(staging, { recursive: true, force: true });
  }
}

function tableExists(db: Db, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

type DuckDb = typeof import("@duckdb/node-api");

async function exportTable(
  db: Db,
  connection: DuckDBConnection,
  duckdb: DuckDb,
  table: ExportTable,
  providers: readonly string[],
  scope: { postcodeFilter: string },
  staging: string,
  format: ExportFormat,
  fileRows: number,
): Promise<ExportedTable> {
  const columns = table.columns(providers);
  const path = `${table.name}.${format}`;
  const target = join(staging, path);
  const stageTypes: DuckDBType[] = columns.map((c) => duckdb[STAGE_TYPE[c.type]]);
  await connection.run(`CREATE OR REPLACE TEMP TABLE stage (${columns.map((c) => `${quote(c.name)} ${STAGE_TYPE[c.type]}`).join(", ")})`);
  const copyOptions = format === "parquet" ? "FORMAT parquet, COMPRESSION zstd" : "FORMAT csv, HEADER true";
  const select = `SELECT ${columns.map(castSql).join(", ")} FROM stage`;

  let appender = await connection.createAppender("stage");
  let buffer: DuckDBValue[][] = columns.map(() => []);
  let buffered = 0;
  let staged = 0;
  let rows = 0;
  let files = 0;
  const perArea = new Map<string, number>();
  const appendBuffer = () => {
    if (buffered === 0) return;
    const chunk = duckdb.DuckDBDataChunk.create(stageTypes, buffered);
    chunk.setColumns(buffer);
    appender.appendDataChunk(chunk);
    buffer = columns.map(() => []);
    buffered = 0;
  };
  // Writes what is staged to its file, and empties the stage.
  const writeStaged = async (area: string | null) => {
    appendBuffer();
    appender.closeSync();
    if (staged > 0 || (area === null && files === 0)) {
      let file = target;
      if (area !== null) {
        const n = perArea.get(area) ?? 0;
        perArea.set(area, n + 1);
        const dir = join(target, `area=${area}`);
        mkdirSync(dir, { recursive: true });
        file = join(dir, `data_${n}.${format}`);
      }
      await connection.run(`COPY (${select}) TO ${literal(file)} (${copyOptions})`);
      await connection.run("DELETE FROM stage");
      files++;
    }
    staged = 0;
    appender = await connection.createAppender("stage");
  };

  const areaIndex = table.partitionedByArea ? 0 : -1;
  let area: string | null = null;
  const iterator = db.prepare(selectSql(table, columns, scope)).raw(true).iterate() as IterableIterator<DuckDBValue[]>;
  for (const row of iterator) {
    if (areaIndex >= 0) {
      const rowArea = postcodeArea(row[areaIndex] as string);
      if (rowArea !== area) {
        if (area !== null) await writeStaged(area);
        area = rowArea;
      }
    }
    for (let i = 0; i < row.length; i++) buffer[i]!.push(row[i]!);
    buffered++;
    staged++;
    rows++;
    if (buffered === CHUNK_ROWS) appendBuffer();
    if (staged >= fileRows && areaIndex >= 0) await writeStaged(area);
  }
  // A single-file table is written even when empty, so that readers find its columns.
  if (areaIndex < 0) await writeStaged(null);
  else if (staged > 0) await writeStaged(area);
  appender.closeSync();
  await connection.run("DROP TABLE stage");
  return { name: table.name, path, rows, files, bytes: sizeOf(target) };
}

function castSql(c: ExportColumn): string {
  const name = quote(c.name);
  return STAGE_TYPE[c.type] === c.type ? name : `CAST(${name} AS ${c.type}) AS ${name}`;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

function sizeOf(path: string): number {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.size;
  return readdirSync(path).reduce((n, entry) => n + sizeOf(join(path, entry)), 0);
}
