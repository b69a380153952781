// The import the stored open data belongs to, and its record, the same on every engine (the rows go in by each engine's own bulk write).
import type { OpenDataImport, OpenDataMeta } from "../types.js";
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

/** Records the import of the rows now stored (in the import's transaction), with how many postcodes each premises has. */
export function* recordImportSteps(meta: OpenDataMeta): Steps<OpenDataImport> {
  const counts = (yield* get<{ a: number; r: number }>(
    "SELECT COUNT(CASE WHEN premises = 'all' THEN 1 END) AS a, COUNT(CASE WHEN premises = 'residential' THEN 1 END) AS r FROM open_data",
  ))!;
  const { id } = (yield* get<{ id: number }>(
    `INSERT INTO open_data_imports (month, revision, source, fingerprint, imported_at, files, postcodes, residential, run_id)
     VALUES (@month, @revision, @source, @fingerprint, @importedAt, @files, @a, @r, @runId) RETURNING id`,
    { month: meta.month, revision: meta.revision, source: meta.source, fingerprint: meta.fingerprint, importedAt: meta.importedAt, files: meta.files, a: counts.a, r: counts.r, runId: meta.runId },
  ))!;
  return { ...meta, id, postcodes: counts.a, residential: counts.r };
}
