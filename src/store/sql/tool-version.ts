// Which version of this program last wrote the database: each engine records it as it opens the
// database to write (after its migrations, in their transaction), and status names it.
import type { Dialect } from "./dialect.js";
import { get, type Steps } from "./steps.js";

/** Records the version (`param`: the engine's placeholder for it); no write when it is the one recorded. */
export const recordToolVersionSql = (param: string): string =>
  `INSERT INTO tool_version (id, version) VALUES (1, ${param})
   ON CONFLICT (id) DO UPDATE SET version = excluded.version WHERE tool_version.version <> excluded.version`;

/** The version that last wrote the database; null for one no version since the table's has written. */
export function* writtenBySteps(d: Dialect): Steps<string | null> {
  if ((yield* get(d.columnExists("tool_version", "version"))) === null) return null;
  return (yield* get<{ version: string }>("SELECT version FROM tool_version WHERE id = 1"))?.version ?? null;
}
