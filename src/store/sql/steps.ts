// A piece of SQL work written once as a generator of statements: it yields each statement and is
// handed its result. A session runs it with an await per statement (runSteps); an engine's write
// transaction runs it whole (Transact): SQLite synchronously inside better-sqlite3's transaction,
// so nothing else can run between its statements; PostgreSQL on one checked-out client.
import type { Params, SqlSession } from "./session.js";

export interface Step {
  kind: "all" | "get" | "exec";
  sql: string;
  params: Params;
}

export type Steps<T> = Generator<Step, T, unknown>;

/** Runs `steps` in one write transaction of the engine; rolled back when a statement throws. */
export type Transact = <T>(steps: Steps<T>) => Promise<T>;

export function* all<T>(sql: string, params: Params = {}): Steps<T[]> {
  return (yield { kind: "all", sql, params }) as T[];
}

export function* get<T>(sql: string, params: Params = {}): Steps<T | null> {
  return (yield { kind: "get", sql, params }) as T | null;
}

/** A statement that writes: the number of rows it changed. */
export function* exec(sql: string, params: Params = {}): Steps<number> {
  return (yield { kind: "exec", sql, params }) as number;
}

/** Runs the steps over the session, one statement after another. */
export async function runSteps<T>(q: SqlSession, steps: Steps<T>): Promise<T> {
  let next = steps.next();
  while (!next.done) {
    const { kind, sql, params } = next.value;
    next = steps.next(await q[kind](sql, params));
  }
  return next.value;
}
