// SQLite's spellings of the shared SQL (src/store/sql/dialect.ts).
import { displayPostcodeSql } from "../../contract/postcode.js";
import { CELL_SEPARATOR, ROW_SEPARATOR, type Cell } from "../snapshot.js";
import type { Dialect } from "../sql/dialect.js";

// SQLite functions take at most 1,000 arguments; one printf serves up to 49 providers.
const PRINTF_CELLS = 500;

/** Cells joined with `separator` by printf, which prints NULL as empty. */
function printfCells(cells: readonly string[], separator = ",", joiner = "','"): string {
  const parts: string[] = [];
  for (let i = 0; i < cells.length; i += PRINTF_CELLS) {
    const chunk = cells.slice(i, i + PRINTF_CELLS);
    parts.push(`printf('${chunk.map(() => "%s").join(separator)}', ${chunk.join(", ")})`);
  }
  return parts.join(` || ${joiner} || `);
}

/** The SQL function that names a postcode's part (registered by report/source.ts). */
export const POSTCODE_PART_FUNCTION = "pcc_postcode_part";

export const SQLITE_DIALECT: Dialect = {
  engine: "sqlite",
  byteOrder: "",
  nullDouble: "NULL",
  falseSql: "0",
  displayPostcode: displayPostcodeSql,
  cell: (cells, index) => `json_extract(${cells}, '$[${index}]')`,
  cellCount: (cells) => `json_array_length(${cells})`,
  uprn: (text) => `(CASE WHEN ${text} GLOB '[0-9]*' AND ${text} NOT GLOB '*[^0-9]*' AND length(${text}) <= 15 THEN CAST(${text} AS INTEGER) END)`,
  real: (expr) => `CAST(${expr} AS REAL)`,
  round: (expr, digits) => `ROUND(${expr}, ${digits})`,
  asInt: (condition) => `(${condition})`,
  joinCells: printfCells,
  asCell: (value) => value as Cell,
  temporaryTable: (name, columns, keyed) => [`DROP TABLE IF EXISTS temp.${name}`, `CREATE TEMP TABLE ${name} (${columns})${keyed ? " WITHOUT ROWID" : ""}`],
  doubleType: "REAL",
  integerType: "INTEGER",
  byteText: "TEXT",
  orderedJoin: "CROSS JOIN",
  keepOrder: (column) => ` ORDER BY ${column} LIMIT -1`,
  numeric: (expr) => expr,
  tableNamesSql: "SELECT name FROM sqlite_master WHERE type = 'table'",
  columnNamesSql: (table) => `SELECT name FROM pragma_table_info('${table}')`,
  schemaSql: "SELECT 'main' AS name",
  // the `postcode` package's rules, through a JavaScript function, so the groups name the parts as the rest of the program does
  postcodePart: (part, column) => `${POSTCODE_PART_FUNCTION}('${part}', ${column})`,
  packedSetup: [],
  packedCell(value, text) {
    if (!text) return value;
    // printf's %s would also end a text at a NUL
    const plain = `instr(${value}, char(${CELL_SEPARATOR})) + instr(${value}, char(${ROW_SEPARATOR})) + instr(${value}, char(0)) = 0`;
    return `iif(${value} IS NULL, '', iif(${plain}, 'r' || ${value}, 'x' || hex(${value})))`;
  },
  packCells: (cells) => printfCells(cells, String.fromCharCode(CELL_SEPARATOR), `char(${CELL_SEPARATOR})`),
  packRows: (row, orderBy) => `group_concat(${row}, char(${ROW_SEPARATOR}) ORDER BY ${orderBy}), count(*)`,
  groupKey: (postcodes) => `${postcodes}.postcode`,
  lockRows: "",
  // a rowid table takes the highest id plus one
  nextIdAfterMax: () => null,
  columnExists: (table, column) => `SELECT 1 FROM pragma_table_info('${table}') WHERE name = '${column}'`,
  position: (text, part) => `instr(${text}, ${part})`,
  jsonElements: (json) => `json_each(${json}) AS e`,
};
