// PostgreSQL's spellings of the shared SQL (src/store/sql/dialect.ts), and the binding of its @name
// parameters to positional ones ($1), since `@` is an operator in PostgreSQL.
import { CELL_SEPARATOR, ROW_SEPARATOR, type Cell } from "../snapshot.js";
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

/**
 * The current schema's relations (tables, views) or a table's columns, read from the catalogs:
 * information_schema's views ask the same of them at several times the cost (4-16 ms a query
 * against 0.2-6), and a store asks at every snapshot.
 */
const inCurrentSchema = "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema()";
export const relationNamesSql = `SELECT c.relname AS name FROM pg_catalog.pg_class c ${inCurrentSchema} AND c.relkind IN ('r', 'p', 'v', 'f')`;
export const columnNamesSql = (table: string, column?: string) =>
  `SELECT a.attname AS name FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid ${inCurrentSchema}
     AND c.relname = '${table}' AND a.attnum > 0 AND NOT a.attisdropped${column === undefined ? "" : ` AND a.attname = '${column}'`}`;

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
  // made before the snapshot's transaction turns read only; they go with it, also when it fails
  temporaryTable: (name, columns) => [`CREATE TEMPORARY TABLE ${name} (${columns}) ON COMMIT DROP`],
  doubleType: "double precision",
  integerType: "bigint",
  byteText: `text ${BYTE_ORDER}`,
  orderedJoin: "JOIN",
  keepOrder: () => "",
  numeric: (expr) => `(${expr})::numeric`,
  tableNamesSql: relationNamesSql,
  columnNamesSql: (table) => columnNamesSql(table),
  schemaSql: "SELECT current_schema() AS name",
  // the area is the leading letters, the district the outward code (SW1A), the sector the outward code and the inward code's digit
  postcodePart(part, p) {
    const outward = `left(${p}, length(${p}) - 3)`;
    if (part === "area") return `substring(${p} from '^[A-Z]+')`;
    return part === "district" ? outward : `${outward} || ' ' || substr(${p}, length(${p}) - 2, 1)`;
  },
  // a double's text reads back as the same double only above 0 (the default, 1, since PostgreSQL 12)
  packedSetup: ["SET LOCAL extra_float_digits = 1"],
  packedCell(value, text) {
    if (!text) return `COALESCE(${value}::text, '')`;
    const plain = `strpos(${value}, chr(${CELL_SEPARATOR})) + strpos(${value}, chr(${ROW_SEPARATOR})) = 0`;
    return `CASE WHEN ${value} IS NULL THEN '' WHEN ${plain} THEN 'r' || ${value} ELSE 'x' || encode(convert_to(${value}, 'UTF8'), 'hex') END`;
  },
  packCells: (cells) => cells.join(` || chr(${CELL_SEPARATOR}) || `),
  packRows: (row, orderBy) => `string_agg(${row}, chr(${ROW_SEPARATOR}) ORDER BY ${orderBy}), count(*)::integer`,
  groupKey: (_postcodes, addresses) => `${addresses}.postcode`,
  lockRows: " FOR UPDATE",
  // a sequence moves on: set back to the highest id, so the next run takes its number as on SQLite
  nextIdAfterMax: (table) =>
    `SELECT setval(pg_get_serial_sequence('${table}', 'id'), GREATEST(COALESCE((SELECT MAX(id) FROM ${table}), 0), 1), (SELECT MAX(id) FROM ${table}) IS NOT NULL)`,
  columnExists: (table, column) => columnNamesSql(table, column),
  position: (text, part) => `strpos(${text}, ${part})`,
  jsonElements: (json) => `json_array_elements(${json}::json) AS e(value)`,
};
