// The import the stored open data belongs to, the same on every engine (the import itself is each engine's own bulk write).
import type { OpenDataImport } from "../types.js";
import type { Dialect } from "./dialect.js";
import { get, type Steps } from "./steps.js";

/** The newest import; null when none, or in a database older than open data (a reader never migrates). */
export function* currentOpenDataSteps(d: Dialect): Steps<OpenDataImport | null> {
  if ((yield* get(d.columnExists("open_data_imports", "id"))) === null) return null;
  return yield* get<OpenDataImport>(
    `SELECT id, month, revision, source, fingerprint, imported_at AS "importedAt", files, postcodes, residential
       FROM open_data_imports ORDER BY id DESC LIMIT 1`,
  );
}
