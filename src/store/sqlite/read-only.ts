// Opening the database for a reader (status, report) that may read the database and its directory
// but write neither. SQLite reads a WAL database read-only only when its -shm file exists or can be
// made: after a batch has closed cleanly neither -wal nor -shm exists, and a reader that cannot
// create files next to the database is refused ("attempt to write a readonly database"). Such a
// reader reads a private copy instead: with no -wal file the database file alone is the whole state.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import Database from "better-sqlite3";
import { DatabaseError, namingPath, openDatabase, schemaVersion, type Db } from "./db.js";
import { SCHEMA_VERSION } from "./schema.js";

export interface ReadOnlyDb {
  db: Db;
  /** true when `db` is a private copy, because SQLite could not read the database in place */
  copied: boolean;
  close(): void;
}

/** Opens `path` for reading only: never creates, migrates or changes it. Throws DatabaseError naming the path. */
export function openReadOnly(path: string): ReadOnlyDb {
  const clean = !existsSync(`${path}-wal`) && !existsSync(`${path}-shm`);
  try {
    // openDatabase reads the schema version: that first read is where SQLite wants the -shm file.
    const db = openDatabase(path, { readonly: true });
    return {
      db,
      copied: false,
      close: () => {
        db.close();
        if (clean) removeReaderFiles(path);
      },
    };
  } catch (err) {
    if (!cannotMakeShm(err) || existsSync(`${path}-wal`)) throw err;
  }
  const dir = mkdtempSync(join(tmpdir(), "pcc-read-"));
  try {
    const copy = join(dir, basename(path));
    copyFileSync(path, copy);
    const db = openDatabase(copy, { readonly: true });
    return {
      db,
      copied: true,
      close: () => {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw namingPath(err, path);
  }
}

/**
 * For `npm run report`: read-only when the schema is current; a database of an older schema is
 * migrated first, which needs write access, and says so when it does not have it.
 */
export function openForReport(path: string): ReadOnlyDb {
  const reader = openReadOnly(path);
  const version = schemaVersion(reader.db);
  if (version === SCHEMA_VERSION) return reader;
  reader.close();
  let db: Db;
  try {
    db = openDatabase(path);
  } catch (err) {
    if (!isReadOnlyRefusal(err)) throw err;
    throw new DatabaseError(
      `${path} has schema version ${version}, older than this program's ${SCHEMA_VERSION}, and upgrading it needs write access to it and its directory: ` +
        "run a batch or `npm run report` once as a user who can write it",
    );
  }
  return { db, copied: false, close: () => db.close() };
}

/**
 * A read-only connection makes -wal and -shm beside the database to read it, and cannot remove them
 * as it closes (removing is the last writer's checkpoint). A reader that found neither has one
 * writable connection opened and closed, changing nothing: when it is the last connection SQLite
 * checkpoints the empty WAL and removes both; when a batch has the database open meanwhile, SQLite
 * keeps them for it. Without write access the files stay, as SQLite leaves them.
 */
function removeReaderFiles(path: string): void {
  if (!existsSync(`${path}-wal`) && !existsSync(`${path}-shm`)) return;
  try {
    const writer = new Database(path, { fileMustExist: true });
    try {
      // a connection that never read leaves the WAL alone as it closes
      writer.prepare("SELECT count(*) FROM sqlite_master").get();
    } finally {
      writer.close();
    }
  } catch {
    // a reader that may not write: the files stay, harmless, and the next writer's close removes them
  }
}

function sqliteCode(err: unknown): string {
  const cause = err instanceof Database.SqliteError ? err : (err as { cause?: unknown } | null)?.cause;
  return cause instanceof Database.SqliteError ? cause.code : "";
}

function cannotMakeShm(err: unknown): boolean {
  return /^SQLITE_(READONLY|CANTOPEN)/.test(sqliteCode(err));
}

function isReadOnlyRefusal(err: unknown): boolean {
  return /^SQLITE_(READONLY|CANTOPEN|PERM|AUTH)/.test(sqliteCode(err)) || /readonly|read-only|permission|EACCES|EROFS/i.test((err as Error).message);
}
