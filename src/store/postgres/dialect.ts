// PostgreSQL's spellings of the shared SQL (src/store/sql/dialect.ts), and the binding of its @name
// parameters to positional ones ($1), since `@` is an operator in PostgreSQL.
import type { Cell } from "../snapshot.js";
import type { Dialect } from "../sql/dialect.js";
import type { Params } from "../sql/session.js";

/** A statement with its positional values, as pg takes it. */
export interface Bound {
  text: string;
  values: unknown[];
}

/** Turns @name parameters into $n (one number per name). */
export function bind(sql: string, params: Params = {}): Bound {
  const names: string[] = [];
  const text = sql.replace(/@([A-Za-z_]\w*)/g, (_, name: string) => {
    if (!(name in params)) throw new Error(`SQL names @${name}, which has no value`);
    let i = names.indexOf(name);
    if (i < 0) i = names.push(name) - 1;
    return `$${i + 1}`;
  });
  return { text, values: names.map((n) => params[n]) };
}

/** Text sorts byte by byte, as SQLite's BINARY collation does, whatever the database's locale. */
export const BYTE_ORDER = `COLLATE "C"`;

export const POSTGRES_DIALECT: Dialect = {
  engine: "postgres",
  byteOrder: BYTE_ORDER,
  nullDouble: "NULL::double precision",
  falseSql: "false",
  // SQLite's substr(x, -3) is right(x, 3) here
  displayPostcode: (c) => `(CASE WHEN length(${c}) > 3 THEN left(${c}, length(${c}) - 3) || ' ' || right(${c}, 3) ELSE ${c} END)`,
  cell: (cells, index) => `(${cells}::json ->> ${index})`,
  cellCount: (cells) => `json_array_length(${cells}::json)`,
  uprn: (text) => `(CASE WHEN ${text} ~ '^[0-9]{1,15}$' THEN CAST(${text} AS bigint) END)`,
  real: (expr) => `(${expr})::float8`,
  round: (expr, digits) => `ROUND((${expr})::numeric, ${digits})`,
  asInt: (condition) => `(CASE WHEN ${condition} THEN 1 ELSE 0 END)`,
  // an ARRAY, since a function takes at most 100 arguments
  joinCells: (cells) => `array_to_string(ARRAY[${cells.map((c) => `(${c})::text`).join(", ")}], ',', '')`,
  asCell: (value) => (typeof value === "boolean" ? (value ? 1 : 0) : (value as Cell)),
  lockRows: " FOR UPDATE",
  // a sequence moves on: set back to the highest id, so the next run takes its number as on SQLite
  nextIdAfterMax: (table) =>
    `SELECT setval(pg_get_serial_sequence('${table}', 'id'), GREATEST(COALESCE((SELECT MAX(id) FROM ${table}), 0), 1), (SELECT MAX(id) FROM ${table}) IS NOT NULL)`,
  columnExists: (table, column) =>
    `SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '${table}' AND column_name = '${column}'`,
  position: (text, part) => `strpos(${text}, ${part})`,
  jsonElements: (json) => `json_array_elements(${json}::json) AS e(value)`,
};
