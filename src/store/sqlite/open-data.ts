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

/**
 * Starts replacing the stored release: rows go in as they come, inside one transaction that
 * commit() ends (recording the import) and rollback() undoes.
 */
export function openDataWriter(db: Db): OpenDataWriter {
  db.exec("BEGIN IMMEDIATE");
  db.exec("DELETE FROM open_data");
  const insert = db.prepare(
    `INSERT OR REPLACE INTO open_data (postcode, premises, ${OPEN_DATA_COLUMNS.join(", ")})
     VALUES (?, ?, ${OPEN_DATA_COLUMNS.map(() => "?").join(", ")})`,
  );
  return {
    row: (premises, postcode, values) => insert.run(postcode, premises, ...values),
    commit(meta) {
      const recorded = runStepsNow(db, recordImportSteps(meta));
      db.exec("COMMIT");
      return recorded;
    },
    rollback() {
      if (db.inTransaction) db.exec("ROLLBACK");
    },
  };
}
