// The report SQL's PostgreSQL spellings. The figure definitions (src/store/shared/measures.ts) are written
// once, for both engines, with named parameters (@good). Here they become positional parameters
// ($1), since `@` is an operator in PostgreSQL.
import type { Cell } from "../../snapshot.js";

/** A statement with its positional values, as pg takes it. */
export interface Bound {
  text: string;
  values: unknown[];
}

/** Turns @name parameters into $n (one number per name). */
export function bind(sql: string, params: Record<string, unknown> = {}): Bound {
  const names: string[] = [];
  const text = sql.replace(/@([A-Za-z_]\w*)/g, (_, name: string) => {
    if (!(name in params)) throw new Error(`report SQL names @${name}, which has no value`);
    let i = names.indexOf(name);
    if (i < 0) i = names.push(name) - 1;
    return `$${i + 1}`;
  });
  return { text, values: names.map((n) => params[n]) };
}

/** A compact postcode as displayed (outward code, space, inward code): SQLite's substr(x, -3) is right(x, 3) here. */
export function displayPostcodeSql(column: string): string {
  return `(CASE WHEN length(${column}) > 3 THEN left(${column}, length(${column}) - 3) || ' ' || right(${column}, 3) ELSE ${column} END)`;
}

/** The index-th cell (from 0) of the stored input cells, a JSON array of text; NULL past its end. */
export function cellSql(cells: string, index: number): string {
  return `(${cells}::json ->> ${index})`;
}

/** Text sorts byte by byte, as SQLite's BINARY collation does, whatever the database's locale. */
export const BYTE_ORDER = `COLLATE "C"`;

/** SQLite hands back 0/1 for a comparison; PostgreSQL a boolean: the reports read numbers. */
export const asCell = (value: unknown): Cell => (typeof value === "boolean" ? (value ? 1 : 0) : (value as Cell));
