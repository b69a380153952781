// Input rows of a run, written in batches as the input streams in.
import type { Db } from "./db.js";
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
