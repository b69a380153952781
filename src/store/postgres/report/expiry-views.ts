// A snapshot never shows an expired answer, even when no batch has deleted it yet: temporary views
// named as the answer tables (pg_temp is searched first) hide what the newest run's --retention
// expires at the reader's clock. They are made in the snapshot's transaction, which then rolls
// back, so they never outlive it on the pooled connection.
import type pg from "pg";
import { anyExpiredSql, hiddenBefore, hideExpiredSql, NEWEST_RUN_ARGS_SQL } from "../../shared/expiry.js";
import { checkOut } from "../connect.js";

/** Makes the views when an answer is expired at `nowMs`; returns whether it did. */
export async function hideExpired(client: pg.PoolClient, nowMs: number): Promise<boolean> {
  const args = (await client.query<{ args: string }>(NEWEST_RUN_ARGS_SQL)).rows[0]?.args;
  const cutoff = hiddenBefore(args, nowMs);
  if (cutoff === null || (await client.query(anyExpiredSql("$1"), [cutoff])).rowCount === 0) return false;
  const schema = (await client.query<{ s: string }>("SELECT current_schema() AS s")).rows[0]!.s;
  for (const statement of hideExpiredSql(`"${schema.replace(/"/g, '""')}"`, cutoff)) await client.query(statement);
  return true;
}

/**
 * `read` on one connection with expired answers hidden at `nowMs` (status's reads outside a
 * snapshot). The views are made in a transaction that is rolled back, so they go with it.
 */
export async function hidingExpired<T>(pool: pg.Pool, nowMs: number, read: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await checkOut(pool);
  try {
    await client.query("BEGIN");
    await hideExpired(client, nowMs);
    return await read(client);
  } finally {
    await client.query("ROLLBACK").catch(() => undefined);
    client.release();
  }
}
