// The floor of a night's work, from the database a whole job left (bench/scenarios/whole-job.ts):
// beside the bare fetch loop (measured by the scenario), SQLite's own insert of the same address
// rows into the same tables, sorted, in one transaction, and the sqlite3 shell writing
// broadband.csv, mobile.csv and their join from the same database. No version of the batch can do
// less than these; the whole job is measured against their sum.
import { join } from "node:path";
import { openDatabase } from "../../src/store/sqlite/db.js";
import { sqlite3CsvExport, sqlite3Version } from "./sqlite-shell.js";

/** The address tables, sorted by their primary key. */
const ADDRESS_TABLES = ["broadband_addresses", "mobile_addresses"] as const;
const KEY = "postcode, uprn";

export interface InsertFloor {
  seconds: number;
  rows: number;
}

/**
 * Every address row of `source` inserted into a fresh database of the store's schema (its
 * migrations, its pragmas), sorted, in one transaction (INSERT ... SELECT from the attached source:
 * SQLite's own work, no JavaScript per row), the database closed (its checkpoint) within the time.
 */
export function insertFloor(source: string, scratch: string): InsertFloor {
  const db = openDatabase(join(scratch, "floor-insert.sqlite"));
  try {
    db.prepare("ATTACH DATABASE ? AS source").run(source);
    const columns = (schema: string, table: string) => (db.prepare(`PRAGMA ${schema}.table_info(${table})`).all() as { name: string; type: string }[]);
    for (const table of ADDRESS_TABLES) {
      // the provider columns the source's answers added
      const have = new Set(columns("main", table).map((c) => c.name));
      for (const c of columns("source", table)) if (!have.has(c.name)) db.exec(`ALTER TABLE main.${table} ADD COLUMN ${c.name} ${c.type}`);
    }
    const started = performance.now();
    let rows = 0;
    db.transaction(() => {
      for (const table of ADDRESS_TABLES) {
        const names = columns("source", table).map((c) => c.name).join(", ");
        rows += db.prepare(`INSERT INTO main.${table} (${names}) SELECT ${names} FROM source.${table} ORDER BY ${KEY}`).run().changes;
      }
    })();
    db.prepare("DETACH DATABASE source").run();
    db.close();
    return { seconds: (performance.now() - started) / 1000, rows };
  } finally {
    if (db.open) db.close();
  }
}

export interface ShellFloor {
  broadband: number;
  mobile: number;
  joined: number;
}

/** The sqlite3 shell's CSVs of the address rows: each table, and both joined by address; null without the shell. */
export async function shellFloor(source: string, scratch: string): Promise<ShellFloor | null> {
  if (sqlite3Version() === null) return null;
  const one = (table: string, name: string) => sqlite3CsvExport(source, `SELECT * FROM ${table} ORDER BY ${KEY}`, join(scratch, name));
  const broadband = await one("broadband_addresses", "broadband.csv");
  const mobile = await one("mobile_addresses", "mobile.csv");
  const joined = await sqlite3CsvExport(
    source,
    `SELECT * FROM broadband_addresses b FULL OUTER JOIN mobile_addresses m ON m.postcode = b.postcode AND m.uprn = b.uprn ORDER BY coalesce(b.postcode, m.postcode), coalesce(b.uprn, m.uprn)`,
    join(scratch, "coverage.csv"),
  );
  return { broadband, mobile, joined };
}
