// The store's copy of Ofcom's open postcode data: one release at a time (the newest import), all
// premises and residential apart. An import replaces the previous rows in one transaction, so a
// failed one leaves the previous release whole.
import { OPEN_DATA_COLUMNS, type Premises } from "../../contract/open-data.js";
import type { Db } from "./db.js";
import { currentOpenDataSteps, recordImportSteps } from "../sql/open-data.js";
import { SQLITE_DIALECT } from "./dialect.js";
import { runStepsNow } from "./transact.js";
import type { OpenDataImport, OpenDataMeta } from "../types.js";

export type { OpenDataImport } from "../types.js";

/** The import the open_data rows belong to (sql/open-data.ts), read synchronously: for the report's scope. */
export const currentOpenData = (db: Db): OpenDataImport | null => runStepsNow(db, currentOpenDataSteps(SQLITE_DIALECT));

export interface OpenDataWriter {
  row(premises: Premises, postcode: string, values: readonly (number | null)[]): void;
  commit(meta: OpenDataMeta): OpenDataImport;
  rollback(): void;
}

/** Rows a statement inserts at once: one call into SQLite per many rows, not per row. */
const ROWS_PER_INSERT = 64;

/**
 * Starts replacing the stored release: rows go in as they come (gathered ROWS_PER_INSERT at a time),
 * inside one transaction that commit() ends (recording the import) and rollback() undoes.
 */
export function openDataWriter(db: Db): OpenDataWriter {
  db.exec("BEGIN IMMEDIATE");
  db.exec("DELETE FROM open_data");
  const insert = (rows: number) =>
    db.prepare(
      `INSERT OR REPLACE INTO open_data (postcode, premises, ${OPEN_DATA_COLUMNS.join(", ")})
       VALUES ${Array.from({ length: rows }, () => `(?, ?, ${OPEN_DATA_COLUMNS.map(() => "?").join(", ")})`).join(", ")}`,
    );
  const many = insert(ROWS_PER_INSERT);
  const one = insert(1);
  const width = 2 + OPEN_DATA_COLUMNS.length;
  const pending: (string | number | null)[] = [];
  const flush = () => {
    // in arrival order: a postcode twice in a release keeps its last row, as row by row
    for (let at = 0; at < pending.length; at += width) one.run(pending.slice(at, at + width));
    pending.length = 0;
  };
  return {
    row(premises, postcode, values) {
      pending.push(postcode, premises, ...values);
      if (pending.length === width * ROWS_PER_INSERT) {
        many.run(pending);
        pending.length = 0;
      }
    },
    commit(meta) {
      flush();
      const recorded = runStepsNow(db, recordImportSteps(meta));
      db.exec("COMMIT");
      return recorded;
    },
    rollback() {
      pending.length = 0;
      if (db.inTransaction) db.exec("ROLLBACK");
    },
  };
}
