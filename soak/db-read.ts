// Reads a batch database with plain SQL (not the batch's store code), so that the soak checks the
// stored data independently. Integers are read as bigint: UPRNs must compare exactly.
import Database from "better-sqlite3";
import { COMPARED_COLUMNS } from "../src/store/compared-columns.js";
import { comparedLabel, type Cell, type Row, type TableData } from "./compare.js";

/** The tables holding answers; each lookup's addresses live in `<lookup>_addresses`. */
export const ANSWER_TABLES = ["lookups", "broadband_addresses", "mobile_addresses"] as const;

export interface DbContents {
  userVersion: number;
  /** every table name in the file */
  tableNames: string[];
  tables: Record<(typeof ANSWER_TABLES)[number], TableData>;
  /**
   * Every table src/store/compared-columns.ts compares that the file holds, by name: all its rows,
   * or its last run's (then named "<table> (last run)").
   */
  compared: Map<string, TableData>;
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
    const compared = new Map<string, TableData>();
    for (const [name, c] of Object.entries(COMPARED_COLUMNS)) {
      if (!c.compared || !tableNames.includes(name)) continue;
      const t = readTable(db, name, all, count, c.rows === "all" ? undefined : { column: c.rows.lastRunBy, id: lastRun });
      compared.set(comparedLabel(name, c), { ...t, name: comparedLabel(name, c) });
    }
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
      compared,
      runs,
      lastRunRows: lastRun === null ? [] : all("SELECT line, value, postcode, reason, cells FROM run_rows WHERE run_id = ? ORDER BY line", lastRun),
      lockRows: count("SELECT COUNT(*) FROM leases"),
      countDisagreements,
    };
  } finally {
    db.close();
  }
}

/** A table's rows, all of them or (`lastRun`) those whose run column names the last run. */
function readTable(
  db: Database.Database,
  name: string,
  all: (sql: string, ...params: unknown[]) => Row[],
  count: (sql: string) => number,
  lastRun?: { column: string; id: Cell },
): TableData {
  const info = db.prepare(`SELECT name, pk FROM pragma_table_info('${name}')`).all() as { name: string; pk: bigint }[];
  if (info.length === 0) throw new Error(`table ${name} not found`);
  const columns = info.map((c) => c.name);
  const primaryKey = info
    .filter((c) => c.pk > 0n)
    .sort((a, b) => Number(a.pk - b.pk))
    .map((c) => c.name);
  const keyList = (primaryKey.length > 0 ? primaryKey : columns).join(", ");
  // the last run's rows only: none when the file holds no run
  const where = !lastRun ? "" : lastRun.id === null ? "WHERE 0" : `WHERE ${lastRun.column} = ${String(lastRun.id)}`;
  return {
    name,
    columns,
    primaryKey,
    rows: all(`SELECT * FROM ${name} ${where} ORDER BY ${keyList}`),
    count: count(`SELECT COUNT(*) FROM ${name} ${where}`),
    distinctKeys: count(`SELECT COUNT(*) FROM (SELECT DISTINCT ${keyList} FROM ${name} ${where})`),
    distinctRows: count(`SELECT COUNT(*) FROM (SELECT DISTINCT * FROM ${name} ${where})`),
  };
}
