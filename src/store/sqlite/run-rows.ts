// Input rows of a run, written in batches as the input streams in.
import type { Db } from "./db.js";
import { inputRowCountsSteps } from "../sql/run-reads.js";
import { runStepsNow } from "./transact.js";
import type { StoredRow } from "../types.js";

export { storedRow, type ReadRow, type StoredRow } from "../types.js";

export interface RowWriter {
  add(row: StoredRow): void;
  flush(): void;
}

const BATCH = 2000;

export function rowWriter(db: Db, runId: number): RowWriter {
  const insert = db.prepare(
    "INSERT INTO run_rows (run_id, line, value, postcode, reason, cells) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const insertMany = db.transaction((rows: StoredRow[]) => {
    for (const r of rows) insert.run(runId, r.line, r.value, r.postcode, r.reason, JSON.stringify(r.cells));
  });
  let pending: StoredRow[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    insertMany.immediate(pending);
    pending = [];
  };
  return {
    add(row) {
      pending.push(row);
      if (pending.length >= BATCH) flush();
    },
    flush,
  };
}

/** How many rows a run's input had, and how many of them held no valid postcode (sql/run-reads.ts). */
export const inputRowCounts = (db: Db, runId: number) => runStepsNow(db, inputRowCountsSteps(runId));

/** The most cells any row of a run's input had (0 for none). */
export function widestRow(db: Db, runId: number): number {
  return (db.prepare("SELECT MAX(json_array_length(cells)) FROM run_rows WHERE run_id = ?").pluck().get(runId) as number | null) ?? 0;
}

/** A run's rejected rows in line order, as [line, value, reason]. */
export function rejectedRows(db: Db, runId: number): Iterable<[line: number, value: string, reason: string]> {
  return db
    .prepare("SELECT line, value, reason FROM run_rows WHERE run_id = ? AND postcode IS NULL ORDER BY line")
    .raw(true)
    .iterate(runId) as Iterable<[number, string, string]>;
}
