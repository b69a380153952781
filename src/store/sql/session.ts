// One connection's statements, as the SQL written once for both engines runs them: named parameters
// (@name), rows as objects (all, get) or as arrays in batches (stream), and a write (exec). Each
// engine wraps its driver in one (sqlite/session.ts, postgres/session.ts) and hands it its Dialect.
import type { Cell, RowBatches } from "../snapshot.js";
import type { Dialect } from "./dialect.js";

export type Params = Readonly<Record<string, unknown>>;

export interface SqlSession {
  readonly dialect: Dialect;
  /** every row of one statement */
  all<T>(sql: string, params?: Params): Promise<T[]>;
  /** the first row of one statement, or null */
  get<T>(sql: string, params?: Params): Promise<T | null>;
  /** the rows as arrays of cells, in batches; nothing runs until the stream is read */
  stream(sql: string, params?: Params): RowBatches<Cell[]>;
  /** a statement that writes: the number of rows it changed */
  exec(sql: string, params?: Params): Promise<number>;
}

/** The lookups as an SQL list of text literals ('' for none, which PostgreSQL needs to parse IN ()). */
export function sqlList(values: readonly string[]): string {
  return values.length === 0 ? "''" : values.map((v) => `'${v.replace(/'/g, "''")}'`).join(", ");
}
