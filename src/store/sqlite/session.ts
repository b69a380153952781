// The SQLite connection as the shared SQL's session (src/store/sql/session.ts). better-sqlite3 takes
// @name parameters as they are written; its calls are synchronous, so each answer is ready at once.
import type { Params, SqlSession } from "../sql/session.js";
import type { Step } from "../sql/steps.js";
import { batchesOf, type Cell, type RowBatches } from "../snapshot.js";
import type { Db } from "./db.js";
import { SQLITE_DIALECT } from "./dialect.js";

/** A parameter as SQLite binds it: it has no booleans. */
export const bindable = (params: Params): Record<string, unknown> =>
  Object.fromEntries(Object.entries(params).map(([k, v]) => [k, typeof v === "boolean" ? (v ? 1 : 0) : v]));

/** One statement, synchronously: rows for all/get, the rows changed for exec (0 for a statement that reads). */
export function runStep(db: Db, { kind, sql, params }: Step): unknown {
  const statement = db.prepare(sql);
  if (kind === "all") return statement.all(bindable(params));
  if (kind === "get") return statement.get(bindable(params)) ?? null;
  if (statement.reader) {
    statement.all(bindable(params));
    return 0;
  }
  return statement.run(bindable(params)).changes;
}

export function sqliteSession(db: Db): SqlSession {
  return {
    dialect: SQLITE_DIALECT,
    all: async <T>(sql: string, params: Params = {}) => runStep(db, { kind: "all", sql, params }) as T[],
    get: async <T>(sql: string, params: Params = {}) => runStep(db, { kind: "get", sql, params }) as T | null,
    stream(sql: string, params: Params = {}): RowBatches<Cell[]> {
      // an iterable, not a generator over the cursor: no extra step per row
      return batchesOf({ [Symbol.iterator]: () => db.prepare(sql).raw(true).iterate(bindable(params)) as Iterator<Cell[]> });
    },
    exec: async (sql: string, params: Params = {}) => runStep(db, { kind: "exec", sql, params }) as number,
  };
}
