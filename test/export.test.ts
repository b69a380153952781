// npm run export: a database filled by a real batch against the simulator, exported and read back
// through DuckDB, every row and value equal to SQLite's; CSV too; bad arguments give one-line errors.
import { existsSync, readdirSync, readlinkSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePostcodes, simulatedAreaFile, startSimulator } from "../src/simulator/index.js";
import { exportColumnsSql } from "../src/store/sql/report/export-rows.js";
import { exportSources } from "../src/store/sql/report/export-sql.js";
import { SQLITE_DIALECT } from "../src/store/sqlite/dialect.js";
import { sqliteSnapshotSource } from "../src/store/sqlite/report/source.js";
import { openDatabase, type Db } from "../src/store/sqlite/db.js";
import { EXPORT_TABLES, postcodeArea, type ExportColumn, type ExportTable } from "../src/figures/export-tables.js";
import { writeExport, type ExportFormat } from "../src/export/write-export.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { instantSleepClock } from "./helpers/fake-clock.js";
import { spawnCli } from "./helpers/child-cli.js";

const KEY = "test-key-export-long";
const PROVIDERS = ["ProvA", "ProvB", "ProvC", "ProvD"];
let dir: string;
let dbPath: string;
let db: Db;
let duck: DuckDBInstance;
let con: DuckDBConnection;

beforeAll(async () => {
  dir = tempDir("pcc-export-");
  const sim = await startSimulator({ port: 0, seed: 11, key: KEY });
  try {
    // Two runs: the second's input is a part of the first's, so --run and --all differ.
    const postcodes = generatePostcodes(11, 40);
    // npm run export reads the database as a child, on the wall clock: the batches run on it too
    const deps = { clock: instantSleepClock };
    const first = await runIn(dir, { in: writeCsv(dir, "a.csv", ["postcode", ...postcodes, "NOT A POSTCODE"]), baseUrl: sim.url }, { COVERAGE_API_KEY: KEY }, deps);
    expect(first.exitCode).toBe(0);
    const second = await runIn(dir, { in: writeCsv(dir, "b.csv", ["postcode", ...postcodes.slice(0, 10)]), baseUrl: sim.url }, { COVERAGE_API_KEY: KEY }, deps);
    expect(second.exitCode).toBe(0);
  } finally {
    await sim.close();
  }
  dbPath = join(dir, "coverage.sqlite");
  db = openDatabase(dbPath, { readonly: true });
  duck = await DuckDBInstance.create(":memory:");
  con = await duck.connect();
}, 60_000);

const EXPORT_SOURCES = exportSources(SQLITE_DIALECT);

/** The tables this database has (the history's versions only with the history). */
function exported(format: ExportFormat): string[] {
  return EXPORT_TABLES.filter((t) => db.prepare("SELECT 1 FROM sqlite_master WHERE name = ?").get(EXPORT_SOURCES[t.name].table)).map((t) => `${t.name}.${format}`);
}

afterAll(() => {
  con?.closeSync();
  duck?.closeSync();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** SQLite's rows of one table in the export's terms: the same expressions, timestamps as ISO text. */
function sqliteRows(table: ExportTable, filter: string): unknown[][] {
  const columns = table.columns(PROVIDERS);
  // the coordinates are null without --area-file
  const where = EXPORT_SOURCES[table.name].scoped ? `WHERE ${filter}` : "";
  return db
    .prepare(`SELECT ${exportColumnsSql(SQLITE_DIALECT, table.name, PROVIDERS).join(", ")} FROM ${EXPORT_SOURCES[table.name].table} t ${where}`)
    .raw(true)
    .all()
    .map((row) => (row as unknown[]).map((v, i) => normalise(v, columns[i]!)));
}

/** A value read back from DuckDB, or from SQLite, as one comparable form. */
function normalise(v: unknown, column: ExportColumn): unknown {
  if (v === null || v === undefined) return null;
  if (column.type === "TIMESTAMP") return v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString();
  if (column.type === "BOOLEAN") return v === true || v === 1;
  if (typeof v === "bigint") return Number(v);
  return v;
}

function readSql(format: ExportFormat, out: string, table: ExportTable): string {
  const columns = table.columns(PROVIDERS);
  const path = join(out, `${table.name}.${format}`);
  const files = table.partitionedByArea ? `'${path}/*/*.${format}'` : `'${path}'`;
  const hive = table.partitionedByArea ? ", hive_partitioning = true" : "";
  const reader =
    format === "parquet"
      ? `read_parquet(${files}${hive})`
      : `read_csv(${files}${hive}, header = true, columns = {${columns.map((c) => `'${c.name}': '${c.type}'`).join(", ")}})`;
  const area = table.partitionedByArea ? ", area" : "";
  return `SELECT ${columns.map((c) => `"${c.name}"`).join(", ")}${area} FROM ${reader}`;
}

async function readBack(format: ExportFormat, out: string, table: ExportTable): Promise<{ rows: unknown[][]; areas: string[] }> {
  const columns = table.columns(PROVIDERS);
  const result = await con.runAndReadAll(readSql(format, out, table));
  const raw = result.getRowsJS() as unknown[][];
  const n = columns.length;
  return {
    rows: raw.map((row) => row.slice(0, n).map((v, i) => normalise(v, columns[i]!))),
    areas: table.partitionedByArea ? raw.map((row) => String(row[n])) : [],
  };
}

const byKey = (a: unknown[], b: unknown[]) => JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0;

async function expectRoundTrip(format: ExportFormat, out: string, filter: string) {
  for (const table of EXPORT_TABLES.filter((t) => exported(format).includes(`${t.name}.${format}`))) {
    const expected = sqliteRows(table, filter).sort(byKey);
    const { rows, areas } = await readBack(format, out, table);
    expect(rows.sort(byKey), `${table.name}.${format}`).toEqual(expected);
    // Each row sits in the partition of its own postcode's area.
    if (table.partitionedByArea) {
      const again = await con.runAndReadAll(`SELECT DISTINCT "PostCode", area FROM (${readSql(format, out, table)})`);
      for (const [postcode, area] of again.getRowsJS() as [string, string][]) expect(area).toBe(postcodeArea(postcode));
      expect(areas.length).toBe(expected.length);
    }
  }
}

describe("export", () => {
  it("writes typed, zstd-compressed Parquet, partitioned by postcode area, equal to SQLite row for row (--all)", async () => {
    const out = join(dir, "all");
    // Files of at most 25 rows: an area spreads over several files.
    const result = await writeExport(sqliteSnapshotSource(db), { outDir: out, all: true, fileRows: 25 });
    expect(result.runId).toBeNull();
    expect(result.tables.map((t) => t.path)).toEqual(exported("parquet"));
    expect(exported("parquet")).toEqual(expect.arrayContaining(["broadband.parquet", "mobile.parquet", "postcodes.parquet", "runs.parquet"]));
    const broadband = result.tables.find((t) => t.name === "broadband")!;
    expect(broadband.rows).toBe(db.prepare("SELECT COUNT(*) FROM broadband_addresses").pluck().get());
    expect(broadband.rows).toBeGreaterThan(200);
    expect(broadband.files).toBeGreaterThan(readdirSync(join(out, "broadband.parquet")).length);
    expect(readdirSync(join(out, "broadband.parquet")).every((d) => /^area=[A-Z]{1,2}$/.test(d))).toBe(true);
    // and the hidden folder of the partitioned tables' versions
    expect(readdirSync(out).sort()).toEqual([".tables", ...exported("parquet")].sort());
    await expectRoundTrip("parquet", out, "1");

    const types = async (sql: string) =>
      Object.fromEntries(((await con.runAndReadAll(`DESCRIBE ${sql}`)).getRowsJS() as string[][]).map((r) => [r[0], r[1]]));
    const bb = await types(`SELECT * FROM read_parquet('${out}/broadband.parquet/*/*.parquet', hive_partitioning = true)`);
    expect(bb).toMatchObject({ PostCode: "VARCHAR", UPRN: "BIGINT", AddressShortDescription: "VARCHAR", MaxPredictedDown: "DOUBLE", MaxUfbbPredictedUp: "DOUBLE" });
    const mob = await types(`SELECT * FROM read_parquet('${out}/mobile.parquet/*/*.parquet', hive_partitioning = false)`);
    expect(mob).toMatchObject({ UPRN: "BIGINT", ProvAVoiceIndoor: "TINYINT", ProvDDataOutdoorNo4g: "TINYINT" });
    expect(Object.keys(mob)).toHaveLength(3 + 32);
    const pc = await types(`SELECT * FROM '${out}/postcodes.parquet'`);
    expect(pc).toMatchObject({ fetched_at: "TIMESTAMP", simulated: "BOOLEAN", status: "VARCHAR" });
    const runs = await types(`SELECT * FROM '${out}/runs.parquet'`);
    expect(runs).toMatchObject({ id: "BIGINT", started_at: "TIMESTAMP", ended_at: "TIMESTAMP" });
    // each release with its stored scale: the mobile figures' meaning travels with the export
    expect(await types(`SELECT * FROM '${out}/releases.parquet'`)).toMatchObject({ lookup: "VARCHAR", name: "VARCHAR", scale: "VARCHAR", scale_legacy_ratings: "BIGINT" });
    const releases = (await con.runAndReadAll(`SELECT lookup, name, scale, scale_ratings FROM '${out}/releases.parquet' ORDER BY id`)).getRowsJS().map((r) => r.map((c) => (typeof c === "bigint" ? Number(c) : c)));
    expect(releases).toEqual(db.prepare("SELECT lookup, name, scale, scale_ratings FROM releases ORDER BY id").raw().all());
    expect(releases.some(([lookup, , scale]) => lookup === "mobile" && (scale === "current" || scale === "legacy"))).toBe(true);
    // -1 (no prediction) is kept as a value, not turned into a null.
    const minus = await con.runAndReadAll(`SELECT COUNT(*) FROM read_parquet('${out}/broadband.parquet/*/*.parquet') WHERE MaxUfbbPredictedDown = -1`);
    expect(Number(minus.getRowsJS()[0]![0])).toBe(db.prepare("SELECT COUNT(*) FROM broadband_addresses WHERE MaxUfbbPredictedDown = -1").pluck().get());
    expect(Number(minus.getRowsJS()[0]![0])).toBeGreaterThan(0);
    const codecs = await con.runAndReadAll(`SELECT DISTINCT compression FROM parquet_metadata('${out}/*/*/*.parquet')`);
    expect(codecs.getRowsJS().map((r) => r[0])).toEqual(["ZSTD"]);
  });

  it("keeps a missing rating as NULL and a 12-digit UPRN exactly", async () => {
    const copy = join(dir, "nulls.sqlite");
    await db.backup(copy);
    const edited = openDatabase(copy);
    try {
      const one = edited.prepare("SELECT postcode, uprn FROM mobile_addresses ORDER BY postcode, uprn LIMIT 1").get() as { postcode: string; uprn: number };
      edited.prepare("UPDATE mobile_addresses SET ProvBDataIndoor = NULL, ProvDVoiceOutdoorNo4g = NULL, uprn = 999999999999 WHERE postcode = ? AND uprn = ?").run(one.postcode, one.uprn);
      const out = join(dir, "nulls");
      await writeExport(sqliteSnapshotSource(edited), { outDir: out, all: true });
      const back = await con.runAndReadAll(
        `SELECT ProvBDataIndoor, ProvDVoiceOutdoorNo4g, ProvBDataOutdoor, UPRN FROM read_parquet('${out}/mobile.parquet/*/*.parquet') WHERE UPRN = 999999999999`,
      );
      const row = back.getRowsJS()[0]!;
      expect(row.slice(0, 2)).toEqual([null, null]);
      expect(row[2]).toEqual(expect.any(Number));
      expect(row[3]).toBe(999999999999n);
    } finally {
      edited.close();
    }
  });

  it("keeps texts holding the packing's separators, and doubles, exactly as stored", async () => {
    const copy = join(dir, "texts.sqlite");
    await db.backup(copy);
    const edited = openDatabase(copy);
    try {
      const rows = edited.prepare("SELECT postcode, uprn FROM broadband_addresses ORDER BY postcode, uprn LIMIT 6").all() as { postcode: string; uprn: number }[];
      // the last two hold the packing's own separators and a NUL: they cross in hex
      const addresses = ["Flat 1, Tŷ Newydd; \"Rear\"", "", "x41,;;,", "Ünit 7 — 3;4", "r1\x1f2\x1e3", "Barn\u0000 2"];
      const speeds = [0.1, 1 / 3, 1e-7, null, 0.1 + 0.2, 2 ** 0.5];
      const set = edited.prepare("UPDATE broadband_addresses SET address = ?, MaxPredictedUp = ? WHERE postcode = ? AND uprn = ?");
      rows.forEach((r, i) => set.run(addresses[i], speeds[i], r.postcode, r.uprn));
      const out = join(dir, "texts");
      await writeExport(sqliteSnapshotSource(edited), { outDir: out, all: true });
      const back = await con.runAndReadAll(
        `SELECT UPRN, AddressShortDescription, MaxPredictedUp FROM read_parquet('${out}/broadband.parquet/*/*.parquet') WHERE UPRN IN (${rows.map((r) => r.uprn).join(", ")}) ORDER BY PostCode, UPRN`,
      );
      expect(back.getRowsJS()).toEqual(rows.map((r, i) => [BigInt(r.uprn), addresses[i], speeds[i]]));
    } finally {
      edited.close();
    }
  });

  it("exports one run's postcodes by default (the last run), and a given --run", async () => {
    const last = join(dir, "last");
    const result = await writeExport(sqliteSnapshotSource(db), { outDir: last });
    expect(result.runId).toBe(2);
    const inRun = (id: number) => `t.postcode IN (SELECT postcode FROM run_rows WHERE run_id = ${id} AND postcode IS NOT NULL)`;
    await expectRoundTrip("parquet", last, inRun(2));
    const first = join(dir, "first");
    expect((await writeExport(sqliteSnapshotSource(db), { outDir: first, runId: 1 })).runId).toBe(1);
    await expectRoundTrip("parquet", first, inRun(1));
    expect(result.tables.find((t) => t.name === "mobile")!.rows).toBeLessThan(
      (await writeExport(sqliteSnapshotSource(db), { outDir: join(dir, "first-again"), runId: 1 })).tables.find((t) => t.name === "mobile")!.rows,
    );
  });

  it("--area-file: the postcodes table has each postcode's latitude and longitude as the file gives them", async () => {
    const postcodes = generatePostcodes(11, 40);
    // the file places all but the first postcode
    const areaFile = writeCsv(dir, "areas.csv", simulatedAreaFile(postcodes.slice(1)));
    const out = join(dir, "located");
    await writeExport(sqliteSnapshotSource(db), { outDir: out, all: true, areaFile });
    const back = (await con.runAndReadAll(`SELECT DISTINCT PostCode, latitude, longitude FROM '${out}/postcodes.parquet' ORDER BY PostCode`)).getRowsJS() as [string, number | null, number | null][];
    const expected = new Map(
      simulatedAreaFile(postcodes.slice(1))
        .slice(1)
        .map((line) => line.split(",").map((c) => c.replace(/"/g, "")))
        .map(([p, lat, lon]) => [p!, [Number(lat), Number(lon)]]),
    );
    expect(back).toHaveLength(40);
    for (const [postcode, lat, lon] of back) expect([lat, lon], postcode).toEqual(expected.get(postcode) ?? [null, null]);
    expect(back.filter(([, lat]) => lat === null).map(([p]) => p)).toEqual([postcodes[0]]);
  });

  it("writes CSV with --format csv, read back equal", async () => {
    const out = join(dir, "csv");
    const result = await writeExport(sqliteSnapshotSource(db), { outDir: out, all: true, format: "csv" });
    expect(result.tables.map((t) => t.path)).toEqual(exported("csv"));
    await expectRoundTrip("csv", out, "1");
  });

  it("runs from the command line and exits; bad arguments give one-line errors", async () => {
    const out = join(dir, "cli");
    const ok = await spawnCli("export", ["--db", dbPath, "--out", out, "--all"]).done;
    expect(ok.stderr).not.toMatch(/error/);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^exported every stored postcode to .*broadband\.parquet \(\d+ rows\)/);
    expect(existsSync(join(out, "runs.parquet"))).toBe(true);
    expect(readdirSync(out).filter((f) => f.startsWith(".export"))).toEqual([]);

    const cases: [string[], RegExp][] = [
      [["--db", dbPath, "--out", out, "--format", "xml"], /^error: --format: "xml" is not one of parquet, csv \(npm run export -- --help lists the options\)$/],
      [["--db", dbPath, "--out", out, "--run", "abc"], /^error: --run: "abc" is not a run id/],
      [["--db", dbPath, "--out", out, "--run", "99"], /^error: there is no run 99 in the database \(runs 1 to 2 are stored\)$/],
      [["--db", join(dir, "none.sqlite"), "--out", out], /^error: no database at .*none\.sqlite/],
      [["--db", dbPath], /^error: missing --out \(npm run export -- --help lists the options\)$/],
      [["--db", dbPath, "--out", out, "--run", "1", "--all"], /^error: Arguments run and all are mutually exclusive/],
    ];
    for (const [args, message] of cases) {
      const r = await spawnCli("export", args).done;
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr.split("\n")[0], args.join(" ")).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  }, 60_000);
});

describe("the export's swap", () => {
  it("replaces every table it names, an empty one too: a later export whose answers have all expired leaves none of the earlier export's addresses", async () => {
    for (const format of ["parquet", "csv"] as const) {
      const out = join(dir, `emptied-${format}`);
      await writeExport(sqliteSnapshotSource(db), { outDir: out, all: true, format });
      const count = async (t: string) => {
        const files = format === "parquet" ? `read_parquet('${out}/${t}.${format}/*/*.${format}', hive_partitioning = true)` : `read_csv('${out}/${t}.${format}/*/*.${format}', hive_partitioning = true, header = true)`;
        return Number((await con.runAndReadAll(`SELECT count(*) FROM ${files}`)).getRowsJS()[0]![0]);
      };
      expect(await count("broadband")).toBeGreaterThan(0);
      // 40 days on, the retention has expired every answer: the reader writes none of them
      const later = await writeExport(sqliteSnapshotSource(db), { outDir: out, all: true, format, nowMs: Date.now() + 40 * 86_400_000 });
      for (const t of ["broadband", "mobile"]) {
        expect(later.tables.find((x) => x.name === t), t).toMatchObject({ rows: 0, files: 1 });
        // on main: the empty table wrote no folder and the swap kept the earlier export's
        expect(await count(t), `${t}.${format}`).toBe(0);
      }
      // the emptied table still has its columns
      const columns = (await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${out}/broadband.parquet/*/*.parquet', hive_partitioning = true)`).catch(() => null))?.getRowsJS().map((r) => r[0]);
      if (format === "parquet") expect(columns).toEqual(expect.arrayContaining(["PostCode", "UPRN", "MaxPredictedDown", "area"]));
      expect(readdirSync(join(out, ".tables")).length).toBe(2);
    }
  });

  it("a table of one file is replaced by one rename: a reader finds the whole old table until the new one is in", async () => {
    const out = join(dir, "swap");
    await writeExport(sqliteSnapshotSource(db), { outDir: out, all: true });
    const files = readdirSync(out).filter((n) => n.endsWith(".parquet") && statSync(join(out, n)).isFile());
    expect(files.length).toBeGreaterThan(0);
    const seen: string[] = [];
    await writeExport(sqliteSnapshotSource(db), {
      outDir: out,
      all: true,
      onStep: (step) => {
        for (const f of files) if (!existsSync(join(out, f))) seen.push(`${f} missing at "${step}"`);
      },
    });
    // on main: each table was moved aside before the new one went in, missing in between
    expect(seen).toEqual([]);
    for (const f of files) expect(statSync(join(out, f)).isFile()).toBe(true);
  });

  it("a partitioned table is a symlink flipped by one rename: at every step a reader finds the whole old or new table", async () => {
    const out = join(dir, "swap-partitioned");
    const tables = ["broadband.parquet", "mobile.parquet"];
    const read = async (t: string) => {
      const r = await con.runAndReadAll(`SELECT count(*) AS n, count(DISTINCT area) AS areas FROM read_parquet('${out}/${t}/*/*.parquet', hive_partitioning = true)`);
      return r.getRowObjectsJson()[0];
    };
    await writeExport(sqliteSnapshotSource(db), { outDir: out, all: true, fileRows: 50 });
    const whole = new Map<string, unknown>();
    for (const t of tables) whole.set(t, await read(t));
    expect(whole.get("broadband.parquet")).toMatchObject({ areas: expect.stringMatching(/^[1-9]/) });
    const seen: string[] = [];
    const steps: string[] = [];
    await writeExport(sqliteSnapshotSource(db), {
      outDir: out,
      all: true,
      fileRows: 50,
      onStep: async (step) => {
        steps.push(step);
        for (const t of tables) {
          const found = await read(t).catch((err: Error) => err.message.split("\n")[0]);
          if (JSON.stringify(found) !== JSON.stringify(whole.get(t))) seen.push(`${t} at "${step}": ${JSON.stringify(found)}`);
        }
      },
    });
    // on main: each was moved aside before the new one went in, missing in between
    expect(seen).toEqual([]);
    expect(steps).toEqual(expect.arrayContaining(["link broadband.parquet", "in broadband.parquet", "delete broadband.parquet"]));
    // each name a link to its one version in the hidden .tables folder; the old versions deleted
    const versions = readdirSync(join(out, ".tables")).sort();
    expect(versions).toEqual([expect.stringMatching(/^broadband\.parquet-\w{6}$/), expect.stringMatching(/^mobile\.parquet-\w{6}$/)]);
    for (const t of tables) expect(versions.map((v) => `.tables/${v}`)).toContain(readlinkSync(join(out, t)));
  });
});
