// Reads a batch database with plain SQL (not the batch's store code), so that the soak checks the
// stored data independently. Integers are read as bigint: UPRNs must compare exactly.
import Database from "better-sqlite3";
import type { Row, TableData } from "./compare.js";

/** The tables holding answers; each lookup's addresses live in `<lookup>_addresses`. */
export const ANSWER_TABLES = ["lookups", "broadband_addresses", "mobile_addresses"] as const;

export interface DbContents {
  userVersion: number;
  /** every table name in the file */
  tableNames: string[];
  tables: Record<(typeof ANSWER_TABLES)[number], TableData>;
  /** all runs, oldest first */
  runs: Row[];
  /** the input rows recorded by the last run */
  lastRunRows: Row[];
  /** leases left (0 once the last batch has ended) */
  lockRows: number;
  /** final answers whose address_count disagrees with the address rows stored */
  countDisagreements: Row[];
}

export function readDb(path: string): DbContents {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  db.defaultSafeIntegers(true);
  try {
    const all = (sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as Row[];
    const count = (sql: string) => Number(db.prepare(sql).pluck().get());
    const tableNames = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[]);
    const tables = Object.fromEntries(ANSWER_TABLES.map((name) => [name, readTable(db, name, all, count)])) as DbContents["tables"];
    const runs = all("SELECT * FROM runs ORDER BY id");
    const lastRun = runs.at(-1)?.id ?? null;
    const countDisagreements = ["broadband", "mobile"].flatMap((lookup) =>
      all(
        `SELECT l.postcode, l.lookup, l.address_count,
                (SELECT COUNT(*) FROM ${lookup}_addresses a WHERE a.postcode = l.postcode) AS actual
           FROM lookups l
          WHERE l.lookup = ? AND l.status IN ('ok', 'not_found')
            AND l.address_count != (SELECT COUNT(*) FROM ${lookup}_addresses a WHERE a.postcode = l.postcode)`,
        lookup,
      ),
    );
    return {
      userVersion: Number(db.pragma("user_version", { simple: true })),
      tableNames,
      tables,
      runs,
      lastRunRows: lastRun === null ? [] : all("SELECT line, value, postcode, reason, cells FROM run_rows WHERE run_id = ? ORDER BY line", lastRun),
      lockRows: count("SELECT COUNT(*) FROM leases"),
      countDisagreements,
    };
  } finally {
    db.close();
  }
}

function readTable(
  db: Database.Database,
  name: string,
  all: (sql: string) => Row[],
  count: (sql: string) => number,
): TableData {
  const info = db.prepare(`SELECT name, pk FROM pragma_table_info('${name}')`).all() as { name: string; pk: bigint }[];
  if (info.length === 0) throw new Error(`table ${name} not found`);
  const columns = info.map((c) => c.name);
  const primaryKey = info
    .filter((c) => c.pk > 0n)
    .sort((a, b) => Number(a.pk - b.pk))
    .map((c) => c.name);
  const keyList = (primaryKey.length > 0 ? primaryKey : columns).join(", ");
  return {
    name,
    columns,
    primaryKey,
    rows: all(`SELECT * FROM ${name} ORDER BY ${keyList}`),
    count: count(`SELECT COUNT(*) FROM ${name}`),
    distinctKeys: count(`SELECT COUNT(*) FROM (SELECT DISTINCT ${keyList} FROM ${name})`),
    distinctRows: count(`SELECT COUNT(*) FROM (SELECT DISTINCT * FROM ${name})`),
  };
}
