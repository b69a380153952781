// A file the run reads must never be one the report set replaces: the swap moves every member of
// the set aside and deletes it, so `--in out/postcodes.csv --out out` would lose the user's input
// (and the next night would read a report as its input). Checked before anything is read.
import { realpathSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { FINGERPRINT_FILE } from "./fingerprint.js";
import { parseDebrisName } from "../../outputs/out-debris.js";
import { OUT_LOCK_FILE } from "../../outputs/out-lock.js";
import { databaseFiles } from "../../store/location.js";

export interface ReadPath {
  /** the flag it came from, as the user typed it: --in, --area-file, --key-file, --db */
  flag: string;
  path: string;
}

/** The path with every existing part resolved (symbolic links followed), so two spellings compare equal. */
function canonical(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    // a file not made yet (a new database): its folder, if that exists
    const parent = dirname(absolute);
    return parent === absolute ? absolute : join(canonical(parent), basename(absolute));
  }
}

function sameFile(a: string, b: string): boolean {
  try {
    const x = statSync(a);
    const y = statSync(b);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/** The database and the companions SQLite keeps beside it: a run reads them all (a PostgreSQL URL: no file). */
export function dbReadPaths(db: string): ReadPath[] {
  return databaseFiles(db).map((path) => ({ flag: "--db", path }));
}

/**
 * The first read path that is a member of the report set in `outDir` (one of `members`, the
 * fingerprint, the lock) or lies inside a writer's working directory there, as a one-line error;
 * null when none is. `members`: the names of every report the set may hold.
 */
export function readPathInReportSet(
  reads: readonly ReadPath[],
  outDir: string,
  members: readonly string[],
  setName = "the report set",
): string | null {
  const out = canonical(outDir);
  const names = new Set([...members, FINGERPRINT_FILE, OUT_LOCK_FILE]);
  for (const read of reads) {
    const path = canonical(read.path);
    const inside = relative(out, path);
    if (inside === "" || inside.startsWith("..") || resolve(out, inside) !== path) {
      // outside --out by name: still the same file as a member (a hard link, another mount)?
      const member = [...names].find((n) => sameFile(path, join(out, n)));
      if (member) return clash(read, join(outDir, member), outDir, setName);
      continue;
    }
    const first = inside.split(sep)[0]!;
    if (inside === first ? names.has(first) : parseDebrisName(first) !== null) return clash(read, join(outDir, inside), outDir, setName);
  }
  return null;
}

function clash(read: ReadPath, member: string, outDir: string, setName: string): string {
  return `${read.flag} ${read.path} is ${member}, part of ${setName} written to --out ${outDir}, which would replace it; move the file or choose another --out`;
}
