// A PostgreSQL connection as the shared SQL's session (src/store/sql/session.ts). Inside a
// transaction (a checked-out client) a stream reads a server-side cursor in batches; on the pool,
// where a cursor cannot outlive its statement, it reads the rows at once.
import type pg from "pg";
import type { Params, SqlSession } from "../sql/session.js";
import { batchesOf, type Cell, type RowBatches } from "../snapshot.js";
import { bind, POSTGRES_DIALECT } from "./dialect.js";
import type { Queryable } from "./connect.js";
import { cursorRows } from "./cursor.js";

/** A row's booleans as 1/0, in place (no copy of every row: the export's hot path reads through here). */
function asCells(row: unknown[]): Cell[] {
  for (let i = 0; i < row.length; i++) if (typeof row[i] === "boolean") row[i] = row[i] ? 1 : 0;
  return row as Cell[];
}

export function postgresSession(q: Queryable, options: { inTransaction: boolean }): SqlSession {
  const run = async <T>(sql: string, params: Params = {}) => {
    const { text, values } = bind(sql, params);
    return q.query<T & pg.QueryResultRow>(text, values);
  };
  return {
    dialect: POSTGRES_DIALECT,
    async all<T>(sql: string, params?: Params) {
      return (await run<T>(sql, params)).rows as T[];
    },
    async get<T>(sql: string, params?: Params) {
      return ((await run<T>(sql, params)).rows[0] as T | undefined) ?? null;
    },
    stream(sql: string, params?: Params): RowBatches<Cell[]> {
      const statement = bind(sql, params);
      if (options.inTransaction) return cursorRows(q as pg.PoolClient, statement, asCells);
      return (async function* () {
        const { rows } = await q.query<Cell[]>({ text: statement.text, values: statement.values, rowMode: "array" });
        yield* batchesOf(rows.map(asCells));
      })();
    },
    async exec(sql: string, params?: Params) {
      return (await run(sql, params)).rowCount ?? 0;
    },
  };
}
