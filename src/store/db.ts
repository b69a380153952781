// Opening the database: WAL, migrations, and provider rating columns.
import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { mobileFields } from "../spec/fields.js";
import { MIGRATIONS, SCHEMA_VERSION } from "./schema.js";

export type Db = Database.Database;

export class DatabaseError extends Error {}

export function openDatabase(path: string, options: { readonly?: boolean } = {}): Db {
  if (path !== ":memory:" && !options.readonly) mkdirSync(dirname(path), { recursive: true });
  let db: Db;
  try {
    db = new Database(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
  } catch (err) {
    throw new DatabaseError(`cannot open database ${path}: ${(err as Error).message}`);
  }
  db.pragma("busy_timeout = 5000");
  if (options.readonly) {
    const version = db.pragma("user_version", { simple: true }) as number;
    if (version > SCHEMA_VERSION)
      throw new DatabaseError(`${path} has schema version ${version}; this program knows up to ${SCHEMA_VERSION}`);
    return db;
  }
  db.pragma("journal_mode = WAL");
  // WAL + NORMAL: a commit survives a process kill; only an OS crash may lose the last ones.
  db.pragma("synchronous = NORMAL");
  migrate(db, path);
  return db;
}

function migrate(db: Db, path: string): void {
  const version = db.pragma("user_version", { simple: true }) as number;
  if (version > SCHEMA_VERSION)
    throw new DatabaseError(`${path} has schema version ${version}; this program knows up to ${SCHEMA_VERSION}`);
  for (let v = version; v < SCHEMA_VERSION; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    }).immediate();
  }
}

/** The rating columns mobile_addresses lacks for these providers (SQLite column names ignore case). */
export function missingProviderColumns(db: Db, providers: readonly string[]): string[] {
  const have = new Set(
    (db.prepare("SELECT name FROM pragma_table_info('mobile_addresses')").pluck().all() as string[]).map((n) => n.toLowerCase()),
  );
  return mobileFields(providers).filter((f) => !have.has(f.toLowerCase()));
}

/** Adds the rating columns of any provider the table does not have yet. */
export function ensureProviderColumns(db: Db, providers: readonly string[]): void {
  const missing = missingProviderColumns(db, providers);
  if (missing.length === 0) return;
  db.transaction(() => {
    for (const f of missing) db.exec(`ALTER TABLE mobile_addresses ADD COLUMN ${f} INTEGER`);
  }).immediate();
}
