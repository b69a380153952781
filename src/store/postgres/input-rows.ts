// A run's input rows on PostgreSQL: staged through COPY into a temporary table of one connection as
// the input streams in (dropped with it: nothing of a refused input stays in the database), and
// moved into run_rows in one transaction once the input is accepted, under the run's lease when it
// is given. Counted as on every engine (sql/run-reads.ts).
import type pg from "pg";
import type { InputRowStore, InputRowWriter } from "../store.js";
import type { StoredRow } from "../types.js";
import { checkOut } from "./connect.js";
import { inputRowCountsSteps } from "../sql/run-reads.js";
import type { SqlSession } from "../sql/session.js";
import { runSteps } from "../sql/steps.js";
import { copyRows } from "./copy.js";
import { assertLeaseLive, commitFence, lapsedAtCommit } from "./leases.js";

const BATCH = 5000;
const COLUMNS = ["line", "value", "postcode", "reason", "cells"];

export function postgresInputRows(pool: pg.Pool, session: SqlSession): InputRowStore {
  return {
    openWriter: (runId) => Promise.resolve(stagedWriter(pool, runId)),
    counts: (runId) => runSteps(session, inputRowCountsSteps(runId)),
  };
}

/** Rows staged on a connection taken at the first row and given back when the staging ends (committed or dropped). */
function stagedWriter(pool: pg.Pool, runId: number): InputRowWriter {
  const staged = `staged_run_rows_${runId}`;
  let client: pg.PoolClient | null = null;
  let pending: StoredRow[] = [];
  const stage = async (): Promise<void> => {
    if (pending.length === 0) return;
    const rows = pending;
    pending = [];
    if (!client) {
      client = await checkOut(pool);
      await client.query(`CREATE TEMP TABLE ${staged} (line bigint, value text, postcode text, reason text, cells text)`);
    }
    await copyRows(client, staged, COLUMNS, rows.map((r) => [r.line, r.value, r.postcode, r.reason, JSON.stringify(r.cells)]));
  };
  const discard = async (): Promise<void> => {
    pending = [];
    const held = client;
    client = null;
    if (!held) return;
    // a connection that cannot drop its table is closed, which drops it
    const broken = await held.query(`DROP TABLE IF EXISTS ${staged}`).then(
      () => false,
      () => true,
    );
    held.release(broken);
  };
  const commit = async (lease?: { id: number; now: () => number }): Promise<void> => {
    try {
      await stage();
      const on = client ?? (await checkOut(pool));
      try {
        await on.query("BEGIN");
        if (lease) await assertLeaseLive(on, lease.id, lease.now());
        if (client) await on.query(`INSERT INTO run_rows (run_id, line, value, postcode, reason, cells) SELECT $1, line, value, postcode, reason, cells FROM ${staged}`, [runId]);
        await on.query(lease ? commitFence(lease.id, lease.now()) : "COMMIT");
      } catch (err) {
        await on.query("ROLLBACK").catch(() => {});
        throw lease ? lapsedAtCommit(err, lease.id) : err;
      } finally {
        if (on !== client) on.release();
      }
    } finally {
      // committed or refused, the staging ends here
      await discard();
    }
  };
  return {
    async add(row) {
      pending.push(row);
      if (pending.length >= BATCH) await stage();
    },
    flush: () => commit(),
    accept: (lease) => commit(lease),
    discard,
  };
}
