// A row stream on PostgreSQL: one server-side cursor (DECLARE … CURSOR in the snapshot's
// transaction), read SNAPSHOT_BATCH_ROWS rows per FETCH, so memory holds one batch whatever the
// table's size. Breaking off the stream closes the cursor. Several streams may be read at once:
// each FETCH is a statement of its own on the snapshot's connection.
import type pg from "pg";
import { SNAPSHOT_BATCH_ROWS } from "../snapshot.js";
import type { Bound } from "./dialect.js";

let cursors = 0;

/** The statement's rows as arrays, in batches, each row passed through `shape`; nothing runs until the stream is read. */
export async function* cursorRows<R>(client: pg.PoolClient, statement: Bound, shape: (row: unknown[]) => R, size = SNAPSHOT_BATCH_ROWS): AsyncGenerator<R[]> {
  const name = `report_rows_${++cursors}`;
  await client.query({ text: `DECLARE ${name} NO SCROLL CURSOR FOR ${statement.text}`, values: statement.values });
  try {
    for (;;) {
      const { rows } = await client.query<unknown[]>({ text: `FETCH ${size} FROM ${name}`, rowMode: "array" });
      if (rows.length > 0) yield rows.map(shape);
      if (rows.length < size) return;
    }
  } finally {
    // a failed transaction has closed it already; the failure itself is what the caller sees
    await client.query(`CLOSE ${name}`).catch(() => {});
  }
}
