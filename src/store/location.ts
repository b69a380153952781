// What a --db location names, for code outside the store: a PostgreSQL URL, or a file path of the
// SQLite engine. Code outside the store asks the engine question only here; the rules live with
// each engine (postgres/url.ts, sqlite/files.ts).
import { existsSync } from "node:fs";
import { isPostgresUrl } from "./postgres/url.js";
import { sqliteFiles } from "./sqlite/files.js";

export { isPostgresUrl, passwordInArgv } from "./postgres/url.js";

/** The local files a --db location stands for (the database and its companions); none for a server. */
export function databaseFiles(db: string): string[] {
  return isPostgresUrl(db) ? [] : sqliteFiles(db);
}

/**
 * Whether a reader can tell, before connecting, that no database is there yet: a SQLite path with
 * no file. A server's database is asked when it is opened.
 */
export function databaseMissing(db: string): boolean {
  return !isPostgresUrl(db) && !existsSync(db);
}

/** The one line a reader (status, report, export) gives for a location with no database yet. */
export function noDatabaseMessage(db: string): string {
  return `no database at ${db} (run a batch first, or give --db PATH)`;
}
