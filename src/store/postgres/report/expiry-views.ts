// Expired answers hidden on PostgreSQL for status's reads outside a snapshot: the views
// (src/store/sql/report/expiry-views.ts) are made in a transaction that is rolled back, so they
// never outlive it on the pooled connection.
import type pg from "pg";
import { hideExpired } from "../../sql/report/expiry-views.js";
import { checkOut } from "../connect.js";
import { postgresSession } from "../session.js";

/** `read` on one connection with expired answers hidden at `nowMs`. */
export async function hidingExpired<T>(pool: pg.Pool, nowMs: number, read: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await checkOut(pool);
  try {
    await client.query("BEGIN");
    await hideExpired(postgresSession(client, { inTransaction: true }), nowMs);
    return await read(client);
  } finally {
    await client.query("ROLLBACK").catch(() => undefined);
    client.release();
  }
}
