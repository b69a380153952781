// The same database content on both engines gives the same report set. Each engine's store is
// filled by its own writers, through the same two simulator-backed batch runs (a second run on a
// newer dataset release, so changes.csv has versions to compare, and Ofcom's open data imported),
// then every report file is written from each store: the CSVs, groups.csv, changes.csv,
// summary.json and postcodes.geojson byte for byte (generatedAt and the database location aside),
// and coverage.xlsx cell for cell. The export's Parquet tables hold the same rows from either.
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { generatePostcode, generatePostcodes, simulatedAreaFile, simulatedOpenDataArchive, startSimulator } from "../src/simulator/index.js";
import { openStore } from "../src/store/open-store.js";
import type { Store } from "../src/store/store.js";
import { writeReports } from "../src/report/index.js";
import { writeExport } from "../src/export/write-export.js";
import { FakeClock } from "./helpers/fake-clock.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";
import { checkedSummary } from "./helpers/summary-json.js";

const { skip } = requiresPostgres();
const SEED = 31;
const KEY = "engines-key-7c1d";
const env = { COVERAGE_API_KEY: KEY };
const T0 = Date.parse("2026-11-02T01:30:00.000Z");
const DAY = 24 * 3600 * 1000;
const FIXED_NOW = new Date("2026-11-20T08:00:00.000Z");

const d = tempDir("pcc-engines-");
afterAll(() => rmSync(d, { recursive: true, force: true }));

/** A UPRN of the postcode's answer (every fourth row), one of no answer (the next), or none. */
function uprnCell(postcode: string, i: number): string {
  const first = generatePostcode(SEED, postcode)?.addresses[0]?.UPRN;
  return i % 4 === 0 && first !== undefined ? String(first) : i % 4 === 1 ? String(9_000_000 + i) : "";
}

/** The input: postcodes in two regions, a repeated one, a UPRN column, rows without a valid postcode. */
function inputLines(postcodes: readonly string[]): string[] {
  const rows = postcodes.map((p, i) => `${p},${i % 3 === 0 ? "North" : i % 3 === 1 ? "South" : ""},${uprnCell(p, i)}`);
  return ["postcode,region,uprn", ...rows, `${postcodes[0]},North,`, "not a postcode,North,", ",South,12"];
}

/** Fills the store at `db` through two nights of batches on one simulator each, as a nightly job would. */
async function twoNights(db: string, input: string, archive: string): Promise<number[]> {
  // each night's run id and exit code
  const runs: number[] = [];
  // Virtual time, moved only by the pacer's sleeps and a day per night, and a pace window so short
  // that it never sleeps: every answer of a night is stored at the same instant on either engine.
  const clock = new FakeClock(T0);
  for (const [night, release] of [
    [0, 1],
    [1, 2],
  ] as const) {
    // a few answers fail (500s, each a pure function of the postcode and attempt) and, without retries, stay failed
    const sim = await startSimulator({ port: 0, seed: SEED, key: KEY, release, failRate: 0.04 });
    try {
      const flags = { in: input, db, baseUrl: sim.url, concurrency: 1, reports: false, retries: 0, ...(night === 0 ? { openData: archive } : { refresh: true }) };
      clock.t = T0 + night * DAY;
      const pace = { clock, rateWindowMs: 1e-6, rateMarginMs: 0 };
      const r = await runIn(d, flags as Parameters<typeof runIn>[1], env, pace);
      runs.push(r.runId!, r.exitCode);
    } finally {
      await sim.close();
    }
  }
  return runs;
}

/** The text of every file of a report set but coverage.xlsx and report.html, with what may differ between engines blanked. */
function comparable(out: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(out).sort()) {
    if (name === "coverage.xlsx" || name === "report.html" || name.startsWith(".")) continue;
    let text = readFileSync(join(out, name), "utf8");
    if (name === "summary.json") {
      const summary = checkedSummary<Record<string, unknown>>(JSON.parse(text), join(out, name));
      // where the data is (a path or a URL) and which engine holds it
      for (const key of ["generatedAt", "database", "db", "engine"]) if (key in summary) summary[key] = "(differs)";
      text = JSON.stringify(summary, null, 2);
    }
    files[name] = text;
  }
  return files;
}

/** Every cell of every sheet of a workbook, by sheet and address. */
async function workbookCells(path: string): Promise<Record<string, unknown>> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  const cells: Record<string, unknown> = {};
  workbook.eachSheet((sheet) =>
    sheet.eachRow({ includeEmpty: false }, (row) => row.eachCell({ includeEmpty: false }, (cell) => void (cells[`${sheet.name}!${cell.address}`] = cell.value))),
  );
  return cells;
}

/** Every row of an exported table's Parquet files, in a stable order (bigints as numbers). */
async function parquetRows(out: string, table: string): Promise<string[]> {
  const { DuckDBInstance } = await import("@duckdb/node-api");
  const duck = await DuckDBInstance.create(":memory:");
  const con = await duck.connect();
  try {
    const path = join(out, `${table}.parquet`);
    const files = statSync(path).isDirectory() ? `'${path}/*/*.parquet'` : `'${path}'`;
    const rows = (await con.runAndReadAll(`SELECT * FROM read_parquet(${files})`)).getRowsJS() as unknown[][];
    return rows.map((row) => JSON.stringify(row, (_, v: unknown) => (typeof v === "bigint" ? Number(v) : v instanceof Date ? v.toISOString() : v))).sort();
  } finally {
    con.closeSync();
    duck.closeSync();
  }
}

describe.skipIf(skip)("SQLite and PostgreSQL holding the same data", () => {
  const stores: Record<string, Store> = {};
  let runs: number[] = [];
  beforeAll(async () => {
    const postcodes = generatePostcodes(SEED, 50);
    const input = writeCsv(d, "in.csv", inputLines(postcodes));
    const archive = simulatedOpenDataArchive(SEED, postcodes.slice(0, 35));
    writeFileSync(join(d, archive.name), archive.bytes);
    // the simulated coordinates, with a ward for --group-by (the first rows' postcodes left out: unmatched)
    const areas = simulatedAreaFile(postcodes.slice(5)).map((line, i) => `${line},${i === 0 ? '"ward"' : `"Ward ${i % 4}"`}`);
    writeFileSync(join(d, "areas.csv"), areas.join("\r\n") + "\r\n");
    const engines = { sqlite: join(d, "coverage.sqlite"), postgres: await freshPostgresDatabase() };
    const filled: Record<string, number[]> = {};
    for (const [engine, db] of Object.entries(engines)) {
      filled[engine] = await twoNights(db, input, join(d, archive.name));
      stores[engine] = await openStore(db, { readonly: true });
      expect(stores[engine].engine).toBe(engine);
    }
    expect(filled.postgres).toEqual(filled.sqlite);
    runs = filled.sqlite!.filter((_, i) => i % 2 === 0);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(Object.values(stores).map((s) => s.close()));
  });

  test("write the same report set, file for file", { timeout: 60_000 }, async () => {
    const sets: Record<string, { files: Record<string, string>; cells: Record<string, unknown> }> = {};
    for (const [engine, store] of Object.entries(stores)) {
      const out = join(d, `out-${engine}`);
      await writeReports(store, { outDir: out, now: () => FIXED_NOW, groupBy: ["region", "district", "ward"], uprnColumn: "uprn", areaFile: join(d, "areas.csv"), since: String(runs[0]) });
      sets[engine] = { files: comparable(out), cells: await workbookCells(join(out, "coverage.xlsx")) };
    }
    const [sqlite, postgres] = [sets.sqlite!, sets.postgres!];
    // the set is the full one, and holds what the comparison is about
    expect(Object.keys(sqlite.files)).toEqual(
      expect.arrayContaining(["broadband.csv", "changes.csv", "coverage.csv", "enriched.csv", "groups.csv", "mobile.csv", "postcodes.csv", "postcodes.geojson", "rejects.csv", "summary.csv", "summary.json"]),
    );
    expect(sqlite.files["changes.csv"]!.split("\n").length).toBeGreaterThan(5);
    expect(sqlite.files["postcodes.geojson"]!).toContain("Feature");
    expect(sqlite.files["groups.csv"]!).toContain("Ward 3");
    expect(sqlite.files["groups.csv"]!).toContain("(unmatched)");
    expect(sqlite.files["rejects.csv"]!).toContain("not a postcode");
    expect(sqlite.files["failures.csv"]!).toContain("HTTP 500");
    // the property's own figures, and a UPRN that no answer holds
    expect(sqlite.files["enriched.csv"]!).toMatch(/,ok,ok,ok,.*,[\d.]+,[\d.]+,(Gigabit|Ultrafast|Superfast|Decent|Below decent|No data),(yes|no),(yes|no),/);
    expect(sqlite.files["enriched.csv"]!).toContain("uprn_not_found");
    expect(Object.keys(postgres.files)).toEqual(Object.keys(sqlite.files));
    for (const name of Object.keys(sqlite.files)) expect(postgres.files[name], name).toBe(sqlite.files[name]);
    expect(Object.keys(sqlite.cells).length).toBeGreaterThan(500);
    expect(postgres.cells).toEqual(sqlite.cells);
  });

  test("export the same Parquet tables (rows the snapshot streams into DuckDB, no DuckDB extension)", { timeout: 60_000 }, async () => {
    const tables: Record<string, Record<string, string[]>> = {};
    for (const [engine, store] of Object.entries(stores)) {
      const out = join(d, `export-${engine}`);
      const result = await writeExport(store, { outDir: out, all: true, areaFile: join(d, "areas.csv"), fileRows: 100, nowMs: FIXED_NOW.getTime() });
      tables[engine] = {};
      for (const t of result.tables) tables[engine][t.name] = await parquetRows(out, t.name);
    }
    const [sqlite, postgres] = [tables.sqlite!, tables.postgres!];
    expect(Object.keys(sqlite).sort()).toEqual(["broadband", "mobile", "postcodes", "releases", "runs", "versions"]);
    expect(sqlite.broadband!.length).toBeGreaterThan(100);
    expect(Object.keys(postgres).sort()).toEqual(Object.keys(sqlite).sort());
    // What may differ: a run's arguments name its database (a path or a URL) and its simulator's
    // port; the two lookups are fetched side by side, so the order they stored their answers in
    // (a version's or a release's id) depends on timing.
    const comparableRows = (name: string, rows: string[]) =>
      rows
        .map((r) => (name === "runs" ? r.replace(/\\"(db|baseUrl)\\":\\"[^\\]*\\"/g, '\\"$1\\":"(differs)"') : name === "versions" ? r.replace(/^(\["[^"]*",)\d+,/, "$1null,") : name === "releases" ? r.replace(/^\[\d+,/, "[null,") : r))
        .sort();
    for (const name of Object.keys(sqlite)) expect(comparableRows(name, postgres[name]!), name).toEqual(comparableRows(name, sqlite[name]!));
    expect(comparableRows("versions", sqlite.versions!)[0]).toMatch(/^\["[A-Z0-9 ]+",null,"/);
  });
});
