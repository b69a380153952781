// SQLite's spellings of the shared SQL (src/store/sql/dialect.ts).
import { displayPostcodeSql } from "../../spec/postcode.js";
import type { Cell } from "../snapshot.js";
import type { Dialect } from "../sql/dialect.js";

// SQLite functions take at most 1,000 arguments; one printf serves up to 49 providers.
const PRINTF_CELLS = 500;

/** Cells joined with commas by printf, which prints NULL as empty. */
function printfCells(cells: readonly string[]): string {
  const parts: string[] = [];
  for (let i = 0; i < cells.length; i += PRINTF_CELLS) {
    const chunk = cells.slice(i, i + PRINTF_CELLS);
    parts.push(`printf('${chunk.map(() => "%s").join(",")}', ${chunk.join(", ")})`);
  }
  return parts.join(" || ',' || ");
}

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
  lockRows: "",
  // a rowid table takes the highest id plus one
  nextIdAfterMax: () => null,
  columnExists: (table, column) => `SELECT 1 FROM pragma_table_info('${table}') WHERE name = '${column}'`,
  position: (text, part) => `instr(${text}, ${part})`,
  jsonElements: (json) => `json_each(${json}) AS e`,
};
