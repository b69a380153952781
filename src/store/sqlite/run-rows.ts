// Input rows of a run, staged in a temporary table as the input streams in (SQLite keeps it in a
// file of its own, never in the database), and moved into run_rows in one transaction once the
// input is accepted: an input refused, or read by a run that lost its lease, leaves nothing behind.
import type { Db } from "./db.js";
import type { StoredRow } from "../types.js";
import { assertLeaseLive } from "./leases.js";

export { storedRow, type ReadRow, type StoredRow } from "../types.js";

export interface RowWriter {
  add(row: StoredRow): void;
  /** Moves what is staged into run_rows, under the lease when given (checked on its `now`). */
  flush(lease?: { id: number; now: () => number }): void;
  discard(): void;
}

const BATCH = 2000;

export function rowWriter(db: Db, runId: number): RowWriter {
  const staged = `temp.staged_run_rows_${runId}`;
  let created = false;
  let pending: StoredRow[] = [];
  const stage = () => {
    if (pending.length === 0) return;
    if (!created) {
      db.exec(`CREATE TEMP TABLE IF NOT EXISTS staged_run_rows_${runId} (line INTEGER, value TEXT, postcode TEXT, reason TEXT, cells TEXT)`);
      created = true;
    }
    const insert = db.prepare(`INSERT INTO ${staged} (line, value, postcode, reason, cells) VALUES (?, ?, ?, ?, ?)`);
    const rows = pending;
    pending = [];
    db.transaction(() => {
      for (const r of rows) insert.run(r.line, r.value, r.postcode, r.reason, JSON.stringify(r.cells));
    })();
  };
  const discard = () => {
    pending = [];
    if (created) db.exec(`DROP TABLE IF EXISTS ${staged}`);
    created = false;
  };
  return {
    add(row) {
      pending.push(row);
      if (pending.length >= BATCH) stage();
    },
    flush(lease) {
      stage();
      try {
        if (!created) {
          if (lease) db.transaction(() => assertLeaseLive(db, lease.id, lease.now())).immediate();
          return;
        }
        db.transaction(() => {
          if (lease) assertLeaseLive(db, lease.id, lease.now());
          db.prepare(`INSERT INTO run_rows (run_id, line, value, postcode, reason, cells) SELECT ?, line, value, postcode, reason, cells FROM ${staged} ORDER BY line`).run(runId);
        }).immediate();
      } finally {
        // committed or refused, the staging ends here
        discard();
      }
    },
    discard,
  };
}
