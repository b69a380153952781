// Writing the export: rows stream from the store (one snapshot for every table, src/store/snapshot.ts)
// into DuckDB through its appender, a data chunk of 2,048 rows at a time, and DuckDB writes them as
// typed, zstd-compressed Parquet (or CSV). Tables keyed by postcode come packed one postcode a row,
// in postcode order (DuckDB unpacks them, stage-plan.ts), so each postcode area of an address table
// is one stretch of rows, staged and written as area=XX/data_N.parquet with at most `fileRows`
// addresses a file: memory is bounded by that and by DuckDB's memory limit (beyond which it spills
// to disk), not by the table. Two stages take turns, so that DuckDB writes one file on its own
// thread while JavaScript reads the next rows from the store (a table's last file, while the next
// table is read). DuckDB is loaded only here, and only its built-in writers are used (its SQLite
// and PostgreSQL extensions would be downloaded at run time).
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, symlinkSync } from "node:fs";
import { basename, join } from "node:path";
import type { DuckDBAppender, DuckDBConnection, DuckDBInstance, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import type { Cell, PackedExportRows, PackedExportTable, ReportSnapshot, RowBatches, SnapshotSource } from "../store/snapshot.js";
import { acquireOutLock } from "../outputs/out-lock.js";
import { clearDebris, debrisPrefix, EXPORT_ASIDE, removeUnlinkedVersions, restoreExportTables, TABLE_VERSIONS } from "../outputs/out-debris.js";
import { loadAreaFile, readAreaHeader } from "../report/groups/area-file.js";
import { CLEAR_STAGE_SQL, copyStageSql, createStageSql, packedPlan, stagePlan, type StagePlan } from "./stage-plan.js";
import { EXPORT_TABLES, postcodeArea, type ExportTable } from "../figures/export-tables.js";
import { cleanupAfter } from "../errors.js";

export type ExportFormat = "parquet" | "csv";
export const EXPORT_FORMATS: readonly ExportFormat[] = ["parquet", "csv"];

export interface ExportOptions {
  outDir: string;
  format?: ExportFormat | undefined;
  /** the run whose postcodes to export; default the last run */
  runId?: number | undefined;
  /** every stored postcode instead */
  all?: boolean | undefined;
  /** the reader's clock (epoch ms, default now): what the retention expires by then is not written */
  nowMs?: number | undefined;
  /** --area-file: the latitude and longitude of the postcodes table (empty without) */
  areaFile?: string | undefined;
  /** rows of one output file at most (tests make it small) */
  fileRows?: number | undefined;
  onProgress?: ((message: string) => void) | undefined;
  /** test and soak hook: called before each table is written and at each step of its replacement */
  onStep?: ((step: string) => void | Promise<void>) | undefined;
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

/** Rows of one output file at most: about 100 MB of staged rows for the widest table. */
export const FILE_ROWS = 1_000_000;
/** The area of the one file of a partitioned table with no rows (`area=/data_0.parquet`). */
const NO_AREA = "";
/** DuckDB's vector size: one data chunk. */
const CHUNK_ROWS = 2048;

type DuckDb = typeof import("@duckdb/node-api");

export async function writeExport(source: SnapshotSource, options: ExportOptions): Promise<ExportResult> {
  const format = options.format ?? "parquet";
  const progress = options.onProgress ?? (() => {});
  const step = options.onStep ?? (() => {});
  // One writer of the folder at a time; what dead writers left is cleared first (outputs/out-debris.ts).
  const lock = acquireOutLock(options.outDir, { command: "export" });
  let staging: string | null = null;
  let instance: DuckDBInstance | null = null;
  let failed = false;
  try {
    for (const line of clearDebris(options.outDir)) progress(line);
    staging = mkdtempSync(join(options.outDir, debrisPrefix("export")));
    const stagingDir = staging;
    const header = options.areaFile === undefined ? null : await readAreaHeader(options.areaFile);
    const { scope, tables } = await source.snapshot({ runId: options.runId, all: options.all, nowMs: options.nowMs ?? Date.now() }, async (snapshot) => {
      if (header) {
        // the postcodes table's coordinates: the area file's rows of the postcodes in scope
        await snapshot.preparePostcodes(null);
        const located = (await loadAreaFile(snapshot, header, [])).located;
        progress(`${options.areaFile}: coordinates for ${located} postcodes`);
      }
      const duckdb = await import("@duckdb/node-api");
      instance = await openDuckDb(duckdb, stagingDir);
      const tables = await writeTables(snapshot, { duckdb, instance, stagingDir, format, fileRows: options.fileRows ?? FILE_ROWS, step, progress });
      return { scope: snapshot.scope, tables };
    }, { onWarning: progress });
    rmSync(join(staging, ".duckdb-tmp"), { recursive: true, force: true });
    lock.assertHeld();
    await swapTables(tables, options.outDir, staging, step);
    return { runId: options.all ? null : scope.runId, tables };
  } catch (err) {
    failed = true;
    // a table moved aside whose new one did not get in goes back
    if (staging) cleanupAfter(() => restoreExportTables(options.outDir, basename(staging!)), progress);
    // and a new version whose link did not get in is deleted
    cleanupAfter(() => removeUnlinkedVersions(options.outDir), progress);
    throw err;
  } finally {
    // Cleanup after a failure never masks it: its own errors are logged (the next writer clears what is left).
    const cleanup = (work: () => unknown) => (failed ? cleanupAfter(work, progress) : work());
    // Closed, or the process would not exit.
    cleanup(() => (instance as DuckDBInstance | null)?.closeSync());
    if (staging) cleanup(() => rmSync(staging!, { recursive: true, force: true }));
    lock.release();
  }
}

/** An in-memory DuckDB that writes the files: bounded memory, one thread, no extension downloads. */
function openDuckDb(duckdb: DuckDb, stagingDir: string): Promise<DuckDBInstance> {
  return duckdb.DuckDBInstance.create(":memory:", {
    // Staged rows beyond this spill to disk instead of growing the process.
    memory_limit: "256MB",
    // One thread: a file's staged rows are one row group, which DuckDB reads on one thread anyway;
    // more only compete with the store's reader for this machine's cores (measured: less CPU).
    threads: "1",
    temp_directory: join(stagingDir, ".duckdb-tmp"),
    autoinstall_known_extensions: "false",
    autoload_known_extensions: "false",
  });
}

interface TablesTarget {
  duckdb: DuckDb;
  instance: DuckDBInstance;
  stagingDir: string;
  format: ExportFormat;
  fileRows: number;
  step: (step: string) => void | Promise<void>;
  progress: (message: string) => void;
}

/** Writes every export table the snapshot holds into `stagingDir`, in order; each is reported once its files are all written. */
async function writeTables(snapshot: ReportSnapshot, { duckdb, instance, stagingDir, format, fileRows, step, progress }: TablesTarget): Promise<ExportedTable[]> {
  const held = await snapshot.exportTables();
  const tables: ExportedTable[] = [];
  // A table's last file is still being written while the next table's rows are read.
  const writers: TableWriter[] = [];
  let reported = Promise.resolve();
  try {
    for (const table of EXPORT_TABLES) {
      if (!held.includes(table.name)) continue;
      await step(`write ${table.name}`);
      const writer = new TableWriter(duckdb, instance, table, snapshot.scope.providers, join(stagingDir, `${table.name}.${format}`), format);
      writers.push(writer);
      await writer.stage(tableRows(snapshot, table), fileRows);
      reported = reported.then(async () => {
        const { written, seconds } = await writer.finish();
        tables.push(written);
        progress(`${written.path}: ${written.rows} rows, ${written.files} file(s), ${written.bytes} bytes in ${seconds.toFixed(1)} s`);
      });
      // awaited below; a failure meanwhile must not count as unhandled
      reported.catch(() => {});
    }
    await reported;
  } finally {
    for (const writer of writers) await writer.close();
  }
  return tables;
}

/** Moves each written table from `staging` into `outDir` over its previous export. */
async function swapTables(tables: readonly ExportedTable[], outDir: string, staging: string, step: (name: string) => unknown): Promise<void> {
  // Everything is written: only now does each table replace its previous export, by one rename, so
  // that a reader always finds a whole table, old or new. A table of one file is renamed over the
  // old one. A partitioned one (a folder, which no rename can replace) moves to a version folder of
  // its own (.tables/NAME-XXXXXX), and a symlink to it is renamed over NAME; the old version is
  // then deleted (a kill leaves it, or a new one not yet linked, for the next writer to delete).
  // NAME as a real folder (a partitioned table exported before versions) goes aside first, then the
  // new one in (two renames, once; the next writer puts back an old one whose place is empty).
  mkdirSync(join(staging, EXPORT_ASIDE));
  for (const t of tables) {
    const target = join(outDir, t.path);
    const incoming = join(staging, t.path);
    const folderBefore = isFolder(target);
    const partitioned = !isFile(incoming);
    if (partitioned) {
      await step(`link ${t.path}`);
      linkNewVersion(outDir, incoming);
    }
    // the incoming file or symlink replaces anything but a folder by one rename
    if (folderBefore) {
      await step(`aside ${t.path}`);
      renameSync(target, join(staging, EXPORT_ASIDE, t.path));
    }
    await step(`in ${t.path}`);
    renameSync(incoming, target);
    if (!folderBefore && !partitioned) continue;
    await step(`delete ${t.path}`);
    rmSync(join(staging, EXPORT_ASIDE, t.path), { recursive: true, force: true });
    removeUnlinkedVersions(outDir);
  }
}

/** Moves the table folder `staged` to a new version in `outDir`/.tables, and puts a symlink to it in its place. */
function linkNewVersion(outDir: string, staged: string): void {
  mkdirSync(join(outDir, TABLE_VERSIONS), { recursive: true });
  const version = mkdtempSync(join(outDir, TABLE_VERSIONS, `${basename(staged)}-`));
  // over the empty folder mkdtemp made (rename replaces an empty directory)
  renameSync(staged, version);
  // relative, so that the export folder can be moved or copied whole
  symlinkSync(`${TABLE_VERSIONS}/${basename(version)}`, staged);
}

/** True for a real folder (not a symlink to one). */
function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A table's rows from the snapshot: a table keyed by postcode packed one postcode a row. */
function tableRows(snapshot: ReportSnapshot, table: ExportTable): RowBatches<Cell[] | PackedExportRows> {
  const providers = snapshot.scope.providers;
  return table.packed ? snapshot.exportPackedRows(table.name as PackedExportTable, providers) : snapshot.exportRows(table.name, providers);
}

/** A staging table on a connection of its own, and the COPY of it in flight, if any. */
interface Stage {
  connection: DuckDBConnection;
  /** null while its rows are being copied out */
  appender: DuckDBAppender | null;
  copying: Promise<void> | null;
}

class TableWriter {
  private readonly started = performance.now();
  private readonly plan: StagePlan;
  private readonly types: DuckDBType[];
  private readonly stages: Stage[] = [];
  private current = 0;
  private buffer: DuckDBValue[][];
  private buffered = 0;
  private staged = 0;
  private rows = 0;
  private files = 0;
  private readonly perArea = new Map<string, number>();

  constructor(
    private readonly duckdb: DuckDb,
    private readonly instance: DuckDBInstance,
    private readonly table: ExportTable,
    providers: readonly string[],
    private readonly target: string,
    private readonly format: ExportFormat,
  ) {
    this.plan = table.packed ? packedPlan(table.columns(providers)) : stagePlan(table.columns(providers));
    this.types = this.plan.stage.map((c) => duckdb[c.type]);
    this.buffer = this.plan.stage.map(() => []);
  }

  /** Stages every row and starts writing the last file (finish waits for it). */
  async stage(rows: RowBatches<Cell[] | PackedExportRows>, fileRows: number): Promise<void> {
    for (let i = 0; i < 2; i++) {
      const connection = await this.instance.connect();
      this.stages.push({ connection, appender: null, copying: null });
      await connection.run(createStageSql(this.plan));
      this.stages[i]!.appender = await connection.createAppender("stage");
    }
    const partitioned = this.table.partitionedByArea;
    const packed = this.table.packed;
    let area: string | null = null;
    const values = this.plan.stage.length;
    for await (const batch of rows)
      for (const row of batch) {
        // The postcode is the first column of every partitioned table.
        if (partitioned) {
          const rowArea = postcodeArea(row[0] as string);
          if (rowArea !== area) {
            if (area !== null) await this.writeStaged(area);
            area = rowArea;
          }
        }
        for (let i = 0; i < values; i++) this.buffer[i]!.push(row[i] as DuckDBValue);
        // A packed row carries its row count after the staged values.
        const n = packed ? (row[values] as number) : 1;
        this.buffered++;
        this.staged += n;
        this.rows += n;
        if (this.buffered === CHUNK_ROWS) this.appendBuffer();
        if (partitioned && this.staged >= fileRows) await this.writeStaged(area);
      }
    // A table is written even when empty, so that it replaces the previous export's rows and readers
    // find its columns: a partitioned one as one file of no rows in an area folder of no name.
    if (!partitioned) await this.writeStaged(null);
    else if (this.staged > 0) await this.writeStaged(area);
    else if (this.files === 0) await this.writeStaged(NO_AREA, { empty: true });
  }

  /** Waits for every file: the table as written, and the seconds from its start. */
  async finish(): Promise<{ written: ExportedTable; seconds: number }> {
    for (const s of this.stages) await s.copying;
    const seconds = (performance.now() - this.started) / 1000;
    const written = { name: this.table.name, path: `${this.table.name}.${this.format}`, rows: this.rows, files: this.files, bytes: sizeOf(this.target) };
    return { written, seconds };
  }

  /** Closes its connections once no file is being written (after a failure too). */
  async close(): Promise<void> {
    for (const s of this.stages) {
      await s.copying?.catch(() => {});
      s.appender?.closeSync();
      s.appender = null;
      s.connection.closeSync();
    }
    this.stages.length = 0;
  }

  private appendBuffer(): void {
    if (this.buffered === 0) return;
    const chunk = this.duckdb.DuckDBDataChunk.create(this.types, this.buffered);
    chunk.setColumns(this.buffer);
    this.stages[this.current]!.appender!.appendDataChunk(chunk);
    this.buffer = this.plan.stage.map(() => []);
    this.buffered = 0;
  }

  /** Starts writing the staged rows to their file, and turns to the other stage. */
  private async writeStaged(area: string | null, { empty = false } = {}): Promise<void> {
    this.appendBuffer();
    if (this.staged === 0 && area !== null && !empty) return;
    const stage = this.stages[this.current]!;
    stage.appender!.closeSync();
    stage.appender = null;
    const file = area === null ? this.target : this.areaFile(area);
    stage.copying = (async () => {
      await stage.connection.run(copyStageSql(this.plan, file, this.format));
      await stage.connection.run(CLEAR_STAGE_SQL);
    })();
    this.files++;
    this.staged = 0;
    this.current = 1 - this.current;
    const next = this.stages[this.current]!;
    // The other stage's file must be written before it takes rows again.
    await next.copying;
    next.copying = null;
    next.appender ??= await next.connection.createAppender("stage");
  }

  private areaFile(area: string): string {
    const n = this.perArea.get(area) ?? 0;
    this.perArea.set(area, n + 1);
    const dir = join(this.target, `area=${area}`);
    mkdirSync(dir, { recursive: true });
    return join(dir, `data_${n}.${this.format}`);
  }
}


const isFile = (path: string): boolean => statSync(path).isFile();

function sizeOf(path: string): number {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.size;
  return readdirSync(path).reduce((n, entry) => n + sizeOf(join(path, entry)), 0);
}
