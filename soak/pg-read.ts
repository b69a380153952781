// Reads the team step's PostgreSQL database with plain SQL (not the batch's store code), as
// db-read.ts reads an SQLite file: every table src/store/compared-columns.ts compares, with its
// values typed as SQLite's are read (whole numbers as bigint, doubles as numbers, text as text), so
// that the two engines' rows compare cell for cell. Column names come back as both engines agree
// on them: in lower case (PostgreSQL folds unquoted names, SQLite ignores their case).
import pg from "pg";
import { COMPARED_COLUMNS } from "../src/store/compared-columns.js";
import { comparedLabel, type Row, type TableData } from "./compare.js";

const INT2 = 21;
const INT4 = 23;
const INT8 = 20;

/** Whole numbers as bigint, as better-sqlite3 reads INTEGER with safe integers on. */
const TYPES = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT2 || oid === INT4 || oid === INT8 ? (v: string) => BigInt(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** A table's columns and rows in lower case, columns sorted: how two engines' tables line up. */
export function inLowerCase(t: TableData): TableData {
  const lower = (r: Row): Row => Object.fromEntries(Object.entries(r).map(([k, v]) => [k.toLowerCase(), v]));
  return {
    ...t,
    columns: t.columns.map((c) => c.toLowerCase()).sort(),
    primaryKey: t.primaryKey.map((c) => c.toLowerCase()),
    rows: t.rows.map(lower),
  };
}

/** The compared tables of the database at `url`, by the soak's label, and every table's name. */
export async function readPostgresCompared(url: string): Promise<{ tableNames: string[]; compared: Map<string, TableData> }> {
  const client = new pg.Client({ connectionString: url, types: TYPES });
  await client.connect();
  try {
    const names = (await client.query<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1")).rows.map((r) => r.name);
    const lastRun = (await client.query<{ id: bigint | null }>("SELECT MAX(id) AS id FROM runs")).rows[0]?.id ?? null;
    const compared = new Map<string, TableData>();
    for (const [name, c] of Object.entries(COMPARED_COLUMNS)) {
      if (!c.compared || !names.includes(name)) continue;
      const columns = (await client.query<{ c: string }>("SELECT column_name AS c FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position", [name])).rows.map((r) => r.c);
      const primaryKey = (
        await client.query<{ c: string }>(
          `SELECT a.attname AS c FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
            WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)`,
          [name],
        )
      ).rows.map((r) => r.c);
      const where = c.rows === "all" ? "" : lastRun === null ? "WHERE false" : `WHERE ${c.rows.lastRunBy} = ${String(lastRun)}`;
      const rows = (await client.query<Row>(`SELECT * FROM ${name} ${where}`)).rows;
      const label = comparedLabel(name, c);
      compared.set(label, { name: label, columns, primaryKey, rows, count: rows.length, distinctKeys: rows.length, distinctRows: rows.length });
    }
    return { tableNames: names, compared };
  } finally {
    await client.end();
  }
}
