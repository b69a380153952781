// Why SQLite cannot write a database, in words that say what to do: SQLite itself only says
// "unable to open database file" or "attempt to write a readonly database". The checks ask the
// kernel (access(2)), so they see what the batch's user sees: modes, owners and read-only mounts.
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { userInfo } from "node:os";
import { dirname, resolve } from "node:path";

/** Whether an open or write failure may be about permissions or a read-only disk (worth explaining). */
export function isWriteRefusal(err: unknown): boolean {
  for (let e = err; e instanceof Error; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^(SQLITE_CANTOPEN|SQLITE_READONLY|SQLITE_PERM|SQLITE_AUTH|EACCES|EPERM|EROFS)/.test(code)) return true;
    if (/unable to open database file|readonly database/.test(e.message)) return true;
  }
  return false;
}

type Probe = "ok" | "EROFS" | "EACCES";

function probe(path: string, mode: number): Probe {
  try {
    accessSync(path, mode);
    return "ok";
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "EROFS" ? "EROFS" : "EACCES";
  }
}

function whoAmI(): string {
  try {
    return `${userInfo().username}, uid ${process.getuid?.() ?? "?"}`;
  } catch {
    return `uid ${process.getuid?.() ?? "?"}`;
  }
}

/** The nearest folder of `path` that exists: where a new database (and its folders) would be made. */
function nearestFolder(path: string): string {
  let dir = dirname(resolve(path));
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** A file of the database (itself, -wal, -shm) this user cannot write: why, and what to do. */
function fileReason(path: string, file: string): string | null {
  const access = probe(file, constants.W_OK);
  if (access === "ok") return null;
  if (access === "EROFS")
    return `cannot write the database ${path}: it is on a read-only file system (a read-only mount); give --db a path on a writable disk`;
  const stat = statSync(file);
  const me = process.getuid?.();
  if (me !== undefined && stat.uid !== me)
    return `cannot write the database ${path}: ${file} belongs to another user (uid ${stat.uid}; this is ${whoAmI()}); run the batch as that user, or chown the database and its -wal and -shm files to this one`;
  return `cannot write the database ${path}: ${file} is read-only (mode ${(stat.mode & 0o777).toString(8).padStart(4, "0")}); chmod u+w it, or give --db another path`;
}

/** The folder, when the database or its -wal / -shm files must be made there and cannot be. */
function folderReason(path: string, folder: string): string | null {
  const access = probe(folder, constants.W_OK | constants.X_OK);
  if (access === "ok") return null;
  if (access === "EROFS")
    return `cannot write the database ${path}: ${folder} is on a read-only file system (a read-only mount); give --db a path on a writable disk`;
  const owner = statSync(folder).uid;
  return (
    `cannot write the database ${path}: its folder ${folder} is not writable by this user (${whoAmI()}; the folder's owner is uid ${owner}), ` +
    "and SQLite makes the database and its -wal and -shm files there; give --db a path in a folder you can write, or make that one writable"
  );
}

/** Why this user cannot write the SQLite database at `path`, or null when nothing in its way is found. */
export function whyNotWritable(path: string): string | null {
  if (path === ":memory:") return null;
  const files = [path, `${path}-wal`, `${path}-shm`].filter((f) => existsSync(f));
  for (const file of files) {
    const reason = fileReason(path, file);
    if (reason) return reason;
  }
  // a missing database, -wal or -shm file is made in the folder
  return files.length < 3 ? folderReason(path, existsSync(path) ? dirname(resolve(path)) : nearestFolder(path)) : null;
}
