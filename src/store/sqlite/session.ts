// The SQLite connection as the shared SQL's session (src/store/sql/session.ts). better-sqlite3 takes
// @name parameters as they are written; its calls are synchronous, so each answer is ready at once.
import type { Params, SqlSession } from "../sql/session.js";
import { batchesOf, type Cell, type RowBatches } from "../snapshot.js";
import type { Db } from "./db.js";
import { SQLITE_DIALECT } from "./dialect.js";

/** A parameter as SQLite binds it: it has no booleans. */
export const bindable = (params: Params): Record<string, unknown> =>
  Object.fromEntries(Object.entries(params).map(([k, v]) => [k, typeof v === "boolean" ? (v ? 1 : 0) : v]));

export function sqliteSession(db: Db): SqlSession {
  return {
    dialect: SQLITE_DIALECT,
    async all<T>(sql: string, params: Params = {}) {
      return db.prepare(sql).all(bindable(params)) as T[];
    },
    async get<T>(sql: string, params: Params = {}) {
      return (db.prepare(sql).get(bindable(params)) as T | undefined) ?? null;
    },
    stream(sql: string, params: Params = {}): RowBatches<Cell[]> {
      // an iterable, not a generator over the cursor: no extra step per row
      return batchesOf({ [Symbol.iterator]: () => db.prepare(sql).raw(true).iterate(bindable(params)) as Iterator<Cell[]> });
    },
    async exec(sql: string, params: Params = {}) {
      const statement = db.prepare(sql);
      if (!statement.reader) return statement.run(bindable(params)).changes;
      statement.all(bindable(params));
      return 0;
    },
  };
}
