// Opening the database: WAL, migrations, and provider rating columns.
import Database from "better-sqlite3";
import { mkdirSync, statSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { mobileFields } from "../../contract/fields.js";
import { MIGRATIONS, SCHEMA_VERSION } from "./schema.js";
import { toolVersion } from "../../contract/version.js";
import { recordToolVersionSql } from "../sql/tool-version.js";
import { DatabaseError } from "../types.js";
import { isWriteRefusal, whyNotWritable } from "./why-not-writable.js";

export { DatabaseError } from "../types.js";

export type Db = Database.Database;

/** Whether the database has this table: a reader of an older schema may not (it never migrates). */
export function tableExists(db: Db, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

export function openDatabase(path: string, options: { readonly?: boolean } = {}): Db {
  refuseFolder(path);
  // SQLite opens a file it may not write read only, and fails only at the first write: ask first
  const why = options.readonly ? null : whyNotWritable(path);
  if (why) throw new DatabaseError(why);
  let db: Db;
  try {
    db = connect(path, options);
  } catch (err) {
    throw options.readonly ? err : writeRefusal(err, path);
  }
  try {
    // A reader never changes the schema; it only refuses one newer than it knows.
    if (!options.readonly) migrate(db, path);
    else if (schemaVersion(db) > SCHEMA_VERSION)
      throw new DatabaseError(`${path} has schema version ${schemaVersion(db)}; this program knows up to ${SCHEMA_VERSION}`);
  } catch (err) {
    db.close();
    throw options.readonly ? namingPath(err, path) : writeRefusal(err, path);
  }
  return db;
}

/** A writer's failure to open or migrate, explained when it is about permissions or a read-only disk. */
function writeRefusal(err: unknown, path: string): Error {
  const why = isWriteRefusal(err) ? whyNotWritable(path) : null;
  return why ? new DatabaseError(why, { cause: err }) : namingPath(err, path);
}

/** WAL pages between automatic checkpoints (of 4 KiB each; SQLite's default is 1,000). */
export const WAL_CHECKPOINT_PAGES = 10_000;

/**
 * Opens the file with its pragmas (WAL for a writer), without touching the schema. A file that is
 * not a database, or one this user cannot open, is a DatabaseError naming the path.
 */
export function connect(path: string, options: { readonly?: boolean } = {}): Db {
  let db: Db;
  if (path !== ":memory:" && !options.readonly) refuseHardLinked(path);
  try {
    if (path !== ":memory:" && !options.readonly) mkdirSync(dirname(path), { recursive: true });
    db = new Database(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
  } catch (err) {
    throw new DatabaseError(`cannot open database ${path}: ${(err as Error).message}`, { cause: err });
  }
  try {
    db.pragma("busy_timeout = 5000");
    if (!options.readonly) {
      db.pragma("journal_mode = WAL");
      // WAL + NORMAL: a commit survives a process kill; only an OS crash may lose the last ones.
      db.pragma("synchronous = NORMAL");
      // Deleted rows are zeroed, not left in free pages: an expired answer must be unreadable.
      db.pragma("secure_delete = ON");
      // A checkpoint every 40 MiB of WAL, not SQLite's 4 MiB: a batch writes its answers as fast as
      // they come, and each checkpoint copies pages the next commits dirty again and waits for two
      // fsyncs on the batch's thread (storing 10,000 postcodes: 4.8 s, 4.0 s with this; docs/bench.md).
      db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
    }
  } catch (err) {
    db.close();
    throw namingPath(err, path);
  }
  return db;
}

/**
 * A folder given as the database, refused before SQLite opens it: its own words ("disk I/O error")
 * and a folder's link count (read as a second hard link) would explain the wrong thing, and a path
 * ending in / that is not there yet would become a file of the folder's name.
 */
function refuseFolder(path: string): void {
  if (path.endsWith("/") || path.endsWith(sep) || isFolder(path)) throw new DatabaseError(folderMessage(path));
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // not there yet: the writer creates it
  }
}

/** The one line for a folder given as the database, with a file path inside it to give instead. */
function folderMessage(path: string): string {
  return `--db ${path} is a folder, not a file; give a file path such as ${join(path, "coverage.sqlite")}`;
}

/**
 * One writer per database file relies on SQLite's locks, which go with the file's name (its -wal and
 * -shm beside it): a second hard link would let two batches write the same file at once, each
 * through its own WAL. Such a file is refused rather than corrupted.
 */
function refuseHardLinked(path: string): void {
  let links: number;
  try {
    links = statSync(path).nlink;
  } catch {
    return; // not there yet: the writer creates it
  }
  if (links > 1)
    throw new DatabaseError(
      `database ${path} has ${links} hard links; two names for one file would let two batches write it at once, so it is refused: keep one name (remove the other link) or copy it`,
    );
}

export function schemaVersion(db: Db): number {
  return db.pragma("user_version", { simple: true }) as number;
}

/**
 * Brings the schema up to date in one IMMEDIATE transaction that reads the version itself: two
 * processes opening a new database at once migrate it once (the second waits, then finds it done).
 * Called inside a caller's transaction (the batch's lock), it runs within that one. Records this
 * program's version as the one that last wrote the database.
 */
export function migrate(db: Db, path: string): void {
  db.transaction(() => {
    const version = schemaVersion(db);
    if (version > SCHEMA_VERSION)
      throw new DatabaseError(`${path} has schema version ${version}; this program knows up to ${SCHEMA_VERSION}`);
    for (let v = version; v < SCHEMA_VERSION; v++) {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    }
    db.prepare(recordToolVersionSql("?")).run(toolVersion());
  }).immediate();
}

/** An SQLite failure as a DatabaseError that says which database it was ("file is not a database" alone names none). */
export function namingPath(err: unknown, path: string): Error {
  if (err instanceof DatabaseError) return err;
  if (err instanceof Database.SqliteError) return new DatabaseError(`database ${path}: ${err.message}`, { cause: err });
  return err instanceof Error ? err : new Error(String(err));
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
