// The soak's verdict: pure comparisons of what the chaos run stored and wrote against the clean
// run's, and of both against what the input and the simulator's dataset say they must hold.
// Nothing here touches the batch's code: the data comes from plain SQL and file reads. Which
// columns are compared, and which legitimately differ, is the store's declaration
// (src/store/compared-columns.ts), not a list of the soak's.
import { COMPARED_COLUMNS, columnClass, type ColumnClass, type ComparedTable } from "../src/store/compared-columns.js";

/** One SQLite value as better-sqlite3 returns it with safeIntegers on (INTEGER → bigint). */
export type Cell = string | number | bigint | null | Uint8Array;
export type Row = Record<string, Cell>;

export interface TableData {
  name: string;
  /** in declaration order */
  columns: string[];
  /** declared primary key, in key order */
  primaryKey: string[];
  rows: Row[];
  /** SELECT COUNT(*) */
  count: number;
  /** COUNT(*) of SELECT DISTINCT <primary key> */
  distinctKeys: number;
  /** COUNT(*) of SELECT DISTINCT * */
  distinctRows: number;
}

export interface Mismatch {
  /** which check: "lookups", "broadband_addresses", "report summary.json", ... */
  check: string;
  detail: string;
}

/** Typed text of a cell, so 1 (INTEGER), 1.0 (REAL) and "1" (TEXT) never compare equal by accident. */
export function cellText(v: Cell): string {
  if (v === null) return "null";
  if (typeof v === "bigint") return `int ${v}`;
  if (typeof v === "number") return `real ${Object.is(v, -0) ? "-0" : String(v)}`;
  if (typeof v === "string") return `text ${JSON.stringify(v)}`;
  return `blob ${Buffer.from(v).toString("hex")}`;
}

export function rowKey(row: Row, key: readonly string[]): string {
  return key.map((k) => cellText(row[k] ?? null)).join(" | ");
}

/**
 * Every row of `got` against `want`, matched on `key` (by default the primary key): rows missing,
 * rows extra, and each column that differs (except `ignore`, columns that legitimately differ
 * between runs). An empty key matches the one row each holds.
 */
export function compareTables(got: TableData, want: TableData, ignore: readonly string[] = [], matchOn?: readonly string[]): Mismatch[] {
  const check = got.name;
  const out: Mismatch[] = [];
  if (got.columns.join(",") !== want.columns.join(","))
    out.push({ check, detail: `columns differ: [${got.columns.join(", ")}] vs clean [${want.columns.join(", ")}]` });
  if (got.primaryKey.join(",") !== want.primaryKey.join(","))
    out.push({ check, detail: `primary key differs: (${got.primaryKey.join(", ")}) vs clean (${want.primaryKey.join(", ")})` });
  const key = matchOn ?? (want.primaryKey.length > 0 ? want.primaryKey : want.columns);
  const compared = want.columns.filter((c) => !ignore.includes(c));

  const wanted = new Map<string, Row>();
  for (const r of want.rows) wanted.set(rowKey(r, key), r);
  const seen = new Set<string>();
  for (const r of got.rows) {
    const k = rowKey(r, key);
    const w = wanted.get(k);
    if (!w) {
      out.push({ check, detail: `extra row (${k}): not in the clean run` });
      continue;
    }
    seen.add(k);
    for (const c of compared) {
      const a = cellText(r[c] ?? null);
      const b = cellText(w[c] ?? null);
      if (a !== b) out.push({ check, detail: `(${k}) ${c}: ${a} vs clean ${b}` });
    }
  }
  for (const [k] of wanted) if (!seen.has(k)) out.push({ check, detail: `missing row (${k}): in the clean run only` });
  return out;
}

/** No row stored twice: by the database's own counts, and by the rows themselves. */
export function checkNoDuplicates(t: TableData, label: string): Mismatch[] {
  const check = `${label} ${t.name}`;
  const out: Mismatch[] = [];
  if (t.primaryKey.length === 0) out.push({ check, detail: "no primary key declared" });
  if (t.distinctKeys !== t.count) out.push({ check, detail: `${t.count} rows but ${t.distinctKeys} distinct primary keys` });
  if (t.distinctRows !== t.count) out.push({ check, detail: `${t.count} rows but ${t.distinctRows} distinct rows` });
  if (t.rows.length !== t.count) out.push({ check, detail: `read ${t.rows.length} rows, COUNT(*) says ${t.count}` });
  const key = t.primaryKey.length > 0 ? t.primaryKey : t.columns;
  const keys = new Set<string>();
  let dupes = 0;
  for (const r of t.rows) {
    const k = rowKey(r, key);
    if (keys.has(k)) dupes++;
    keys.add(k);
  }
  if (dupes > 0) out.push({ check, detail: `${dupes} rows repeat a primary key` });
  return out;
}

/** A compared table's name in the soak's findings: "(last run)" added when only its last run's rows are. */
export function comparedLabel(table: string, c: ComparedTable): string {
  return c.rows === "all" ? table : `${table} (last run)`;
}

/** The columns the store's declaration says may differ, per compared table: what the comparison skips. */
export function differingColumns(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [table, c] of Object.entries(COMPARED_COLUMNS))
    if (c.compared) out[comparedLabel(table, c)] = Object.entries(c.columns).filter(([, k]) => k !== "same").map(([col]) => col);
  return out;
}

/**
 * Each table the store's declaration compares, as both databases hold it: every column it calls
 * "same" must match row for row, matched on its declared key. A table or column the declaration
 * does not class is a mismatch of its own (it is compared all the same): class it there.
 */
export function compareDeclared(got: ReadonlyMap<string, TableData>, want: ReadonlyMap<string, TableData>, tableNames: readonly string[]): Mismatch[] {
  const out: Mismatch[] = [];
  const where = "src/store/compared-columns.ts";
  for (const name of tableNames) if (!COMPARED_COLUMNS[name]) out.push({ check: "schema", detail: `table ${name} has no class in ${where}` });
  for (const [table, c] of Object.entries(COMPARED_COLUMNS)) {
    if (!c.compared) continue;
    const label = comparedLabel(table, c);
    const a = got.get(label);
    const b = want.get(label);
    if (!a || !b) {
      if (a || b) out.push({ check: label, detail: `in the ${a ? "soak" : "clean"} database only` });
      continue;
    }
    const columns = [...new Set([...a.columns, ...b.columns])];
    const classes = new Map<string, ColumnClass | null>(columns.map((col) => [col, columnClass(table, col)]));
    for (const [col, k] of classes) if (k === null) out.push({ check: label, detail: `column ${col} has no class in ${where}: compared, but say whether it may differ` });
    const ignore = columns.filter((col) => { const k = classes.get(col); return k !== null && k !== "same"; }); // prettier-ignore
    out.push(...compareTables(a, b, ignore, c.key));
  }
  return out;
}

/** Both databases' last run ended completed, with exit 0. */
export function compareFinalRuns(got: Row | undefined, want: Row | undefined): Mismatch[] {
  const check = "runs (last run)";
  if (!got || !want) return [{ check, detail: `no run recorded (${got ? "clean" : "soak"} database)` }];
  const out: Mismatch[] = [];
  for (const [label, run] of [
    ["soak", got],
    ["clean", want],
  ] as const)
    if (run.state !== "completed" || Number(run.exit_code) !== 0)
      out.push({ check, detail: `${label} run ended ${String(run.state)} with exit ${cellText(run.exit_code ?? null)}, not completed with 0` });
  return out;
}

export interface Expectation {
  /** every valid postcode of the input, compact upper case */
  postcodes: readonly string[];
  /** those the simulator's dataset does not know (answered 404) */
  unknown: ReadonlySet<string>;
  lookups: readonly string[];
  /** input rows, and how many are invalid */
  inputRows: number;
  invalidRows: number;
}

/**
 * What the input and the dataset say must be stored, whatever the run: each valid postcode once
 * per lookup, found or not found as the dataset has it, and each invalid row rejected.
 */
export function checkAgainstInput(label: string, lookups: readonly Row[], runRows: readonly Row[], e: Expectation): Mismatch[] {
  const check = `${label} vs input`;
  const out: Mismatch[] = [];
  const stored = new Map<string, string>();
  for (const r of lookups) stored.set(`${String(r.postcode)} ${String(r.lookup)}`, String(r.status));
  for (const p of e.postcodes)
    for (const l of e.lookups) {
      const status = stored.get(`${p} ${l}`);
      const expected = e.unknown.has(p) ? "not_found" : "ok";
      if (status !== expected) out.push({ check, detail: `${p} ${l}: ${status ?? "absent"}, expected ${expected}` });
      stored.delete(`${p} ${l}`);
    }
  for (const k of stored.keys()) out.push({ check, detail: `${k}: stored but not in the input` });
  if (runRows.length !== e.inputRows) out.push({ check, detail: `${runRows.length} input rows recorded, the file has ${e.inputRows}` });
  const rejected = runRows.filter((r) => r.postcode === null).length;
  if (rejected !== e.invalidRows) out.push({ check, detail: `${rejected} rows rejected, the file has ${e.invalidRows} invalid` });
  return out;
}

/**
 * A report file with what legitimately differs between two runs blanked out: the time it was
 * generated, the id of the run it reports and when the answers were fetched (summary.json
 * `generatedAt`, `runId`, `fetchedFrom` and `fetchedTo`, and the same in summary.csv). Everything
 * else, `simulated` included, must match byte for byte.
 */
export function normaliseReport(name: string, bytes: Uint8Array): Buffer {
  const buffer = Buffer.from(bytes);
  if (name.endsWith(".json"))
    return Buffer.from(
      buffer
        .toString("utf8")
        .replace(/("generatedAt"\s*:\s*)"[^"]*"/g, '$1"<generated>"')
        .replace(/("runId"\s*:\s*)(-?\d+|null)/g, '$1"<run>"')
        .replace(/("fetched(?:From|To)"\s*:\s*)"[^"]*"/g, '$1"<fetched>"'),
      "utf8",
    );
  if (name === "summary.csv")
    return Buffer.from(
      buffer
        .toString("utf8")
        .replace(/^(About,(?:Report generated \(UTC\)|Run),)[^,\r\n]*/gm, "$1<blanked>")
        .replace(/^(Releases,"?[^\r\n]*\()fetched [^)]*\)/gm, "$1fetched <blanked>)"),
      "utf8",
    );
  return buffer;
}

/** First line where two texts differ (1-based), with both lines cut to `width` characters. */
export function firstDifference(a: string, b: string, width = 160): { line: number; got: string; want: string } | null {
  if (a === b) return null;
  const la = a.split("\n");
  const lb = b.split("\n");
  for (let i = 0; i < Math.max(la.length, lb.length); i++)
    if (la[i] !== lb[i])
      return { line: i + 1, got: (la[i] ?? "<end of file>").slice(0, width), want: (lb[i] ?? "<end of file>").slice(0, width) };
  return { line: la.length, got: "<same lines, different bytes>", want: "" };
}

/**
 * Renderings of the compared files' figures that also show the run's own facts (its id, times,
 * requests and retries, which a chaos run and a clean run do not share): present in both sets,
 * their figures checked through the files they render.
 */
export const RENDERED_REPORTS: readonly string[] = ["report.html", "coverage.xlsx"];

/** The report files of both runs, by name: the same set, and the same bytes after normaliseReport. */
export function compareReports(got: ReadonlyMap<string, Uint8Array>, want: ReadonlyMap<string, Uint8Array>): Mismatch[] {
  const out: Mismatch[] = [];
  for (const name of want.keys()) if (!got.has(name)) out.push({ check: `report ${name}`, detail: "missing: written by the clean run only" });
  for (const [name, bytes] of got) {
    const check = `report ${name}`;
    const other = want.get(name);
    if (!other) {
      out.push({ check, detail: "extra: not written by the clean run" });
      continue;
    }
    if (RENDERED_REPORTS.includes(name)) continue;
    const a = normaliseReport(name, bytes);
    const b = normaliseReport(name, other);
    if (a.equals(b)) continue;
    const d = firstDifference(a.toString("utf8"), b.toString("utf8"));
    out.push({
      check,
      detail: d
        ? `differs from line ${d.line}: ${JSON.stringify(d.got)} vs clean ${JSON.stringify(d.want)}`
        : `differs (${a.length} vs ${b.length} bytes)`,
    });
  }
  return out;
}

/** Rows of `SELECT postcode, lookup, address_count, actual` where a final answer's count disagrees with its rows. */
export function checkAddressCounts(label: string, disagreeing: readonly Row[]): Mismatch[] {
  return disagreeing.map((r) => ({
    check: `${label} address counts`,
    detail: `${String(r.postcode)} ${String(r.lookup)}: status row says ${String(r.address_count)} addresses, ${String(r.actual)} stored`,
  }));
}

/** The database files' shape: schema version and table names. */
export function compareSchemas(
  got: { userVersion: number; tableNames: readonly string[] },
  want: { userVersion: number; tableNames: readonly string[] },
): Mismatch[] {
  const out: Mismatch[] = [];
  if (got.userVersion !== want.userVersion) out.push({ check: "schema", detail: `user_version ${got.userVersion} vs clean ${want.userVersion}` });
  if (got.tableNames.join(",") !== want.tableNames.join(","))
    out.push({ check: "schema", detail: `tables [${got.tableNames.join(", ")}] vs clean [${want.tableNames.join(", ")}]` });
  return out;
}

/** Rows read with a query, as a table keyed on `key` (which the query made unique). */
export function rowsAsTable(name: string, rows: Row[], key: string[]): TableData {
  const columns = rows[0] ? Object.keys(rows[0]) : [];
  return { name, columns, primaryKey: key, rows, count: rows.length, distinctKeys: rows.length, distinctRows: rows.length };
}

/** Mismatch counts per check, for the summary. */
export function countByCheck(mismatches: readonly Mismatch[]): Record<string, number> {
  const by: Record<string, number> = {};
  for (const m of mismatches) by[m.check] = (by[m.check] ?? 0) + 1;
  return by;
}
