// What a killed writer leaves in an output folder, and how the next writer (holding the folder's
// lock, out-lock.ts) clears it. Every working directory is named `.KIND-HOST-PID-XXXXXX`, so that a
// live writer's is never touched:
// - `.staging-*`: a report set being written; `.discard-*`: a replaced set being deleted. Removed.
// - `.previous-*`: a swap in progress (report-set.ts). Its journal names the staging directory and
//   the new set's files; the swap is rolled back: a new file no longer in staging was moved in and
//   is removed, then every old file moved aside is put back. --out then holds the old set whole.
// - `.export-*`: an export being written (write-export.ts); tables it had moved aside under `.old/`
//   whose place is empty are put back (a kill between the two renames of a table), then it is removed.
// - `.tables/NAME-XXXXXX`: a version of a partitioned export table, which the export links NAME to.
//   One that no link at the top of the folder points to (a kill before or after the link was
//   flipped) is removed.
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { processAlive } from "../store/process-identity.js";

export const SWAP_JOURNAL = ".swap.json";
/** inside an `.export-*` directory: the tables moved aside while the new ones move in */
export const EXPORT_ASIDE = ".old";
/** the folder of the partitioned export tables' versions: each table's name is a symlink into it */
export const TABLE_VERSIONS = ".tables";

export interface SwapJournal {
  /** the staging directory's name, inside --out */
  staging: string;
  /** the new set's files */
  names: string[];
}

type Kind = "staging" | "previous" | "discard" | "export";

/** Host names as they may appear in a file name. */
function hostTag(host: string): string {
  return host.replace(/[^A-Za-z0-9.-]/g, "_");
}

/** The prefix of a working directory of this process (mkdtemp adds six characters). */
export function debrisPrefix(kind: Kind, host = hostname(), pid = process.pid): string {
  return `.${kind}-${hostTag(host)}-${pid}-`;
}

interface Debris {
  name: string;
  kind: Kind;
  /** null: a name of an older version, without its owner */
  host: string | null;
  pid: number | null;
}

/** A working directory's kind and owner, from its name; null for anything else. Pure. */
export function parseDebrisName(name: string): Debris | null {
  const owned = /^\.(staging|previous|discard|export)-(.+)-(\d+)-[A-Za-z0-9]{6}$/.exec(name);
  if (owned) return { name, kind: owned[1] as Kind, host: owned[2]!, pid: Number(owned[3]) };
  // before owners were named: .staging-XXXXXX, .previous-XXXXXX, .export-PID
  const legacy = /^\.(staging|previous)-[A-Za-z0-9]{6}$/.exec(name);
  if (legacy) return { name, kind: legacy[1] as Kind, host: null, pid: null };
  const legacyExport = /^\.export-(\d+)$/.exec(name);
  if (legacyExport) return { name, kind: "export", host: hostTag(hostname()), pid: Number(legacyExport[1]) };
  return null;
}

export interface DebrisOptions {
  host?: string;
  isAlive?: (pid: number) => boolean;
}

/**
 * Clears the working directories of dead writers in `dir`, rolling back swaps they left half done.
 * Call holding the folder's lock. Returns one line per directory cleared, for the log.
 */
export function clearDebris(dir: string, options: DebrisOptions = {}): string[] {
  const host = hostTag(options.host ?? hostname());
  const isAlive = options.isAlive ?? ((pid: number) => processAlive(pid));
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const dead = entries
    .map(parseDebrisName)
    .filter((d): d is Debris => d !== null)
    // never our own, nor a live process's on this host (another host's cannot be seen: we hold the lock)
    .filter((d) => !(d.host === host && (d.pid === process.pid || isAlive(d.pid!))));
  const done: string[] = [];
  // swaps first: a rollback needs its staging directory
  for (const d of dead.filter((x) => x.kind === "previous")) done.push(rollBackSwap(dir, d.name));
  for (const d of dead.filter((x) => x.kind === "export")) done.push(...restoreExportTables(dir, d.name));
  for (const d of dead) {
    if (!existsSync(join(dir, d.name))) continue;
    rmSync(join(dir, d.name), { recursive: true, force: true });
    if (d.kind !== "previous") done.push(`removed ${d.name}, left by a writer that is no longer running`);
  }
  done.push(...removeUnlinkedVersions(dir));
  return done;
}

function rollBackSwap(dir: string, name: string): string {
  const previous = join(dir, name);
  let journal: SwapJournal | null = null;
  try {
    journal = JSON.parse(readFileSync(join(previous, SWAP_JOURNAL), "utf8")) as SwapJournal;
  } catch {
    // no journal: nothing had moved yet (it is written first), or a swap of an older version
  }
  if (journal) {
    for (const file of journal.names)
      if (!existsSync(join(dir, journal.staging, file)) && existsSync(join(dir, file))) rmSync(join(dir, file), { force: true });
  }
  const restored: string[] = [];
  for (const file of readdirSync(previous)) {
    if (file === SWAP_JOURNAL) continue;
    // without a journal, only a file whose place is empty is surely the old one
    if (!journal && existsSync(join(dir, file))) continue;
    renameSync(join(previous, file), join(dir, file));
    restored.push(file);
  }
  rmSync(previous, { recursive: true, force: true });
  return `rolled back the report swap a killed writer left half done (${name}): ${restored.length} file(s) of the previous set put back`;
}

/** Puts back each table an export in `dir`/`name` moved aside whose place is empty. */
export function restoreExportTables(dir: string, name: string): string[] {
  const aside = join(dir, name, EXPORT_ASIDE);
  if (!existsSync(aside)) return [];
  const done: string[] = [];
  for (const table of readdirSync(aside)) {
    if (present(join(dir, table))) continue; // the new table is in place: the old one is deleted with the directory
    renameSync(join(aside, table), join(dir, table));
    done.push(`put back ${table}, which a killed export had moved aside`);
  }
  return done;
}

/** True when `path` names anything, a dangling symlink included. */
function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Removes each table version in `dir`/.tables that no symlink at the top of `dir` points to. */
export function removeUnlinkedVersions(dir: string): string[] {
  const versions = join(dir, TABLE_VERSIONS);
  if (!existsSync(versions)) return [];
  const linked = new Set<string>();
  for (const entry of readdirSync(dir, { withFileTypes: true }))
    if (entry.isSymbolicLink()) linked.add(readlinkSync(join(dir, entry.name)));
  const done: string[] = [];
  for (const version of readdirSync(versions)) {
    if (linked.has(`${TABLE_VERSIONS}/${version}`)) continue;
    rmSync(join(versions, version), { recursive: true, force: true });
    done.push(`removed ${TABLE_VERSIONS}/${version}, a table version no export links to any more`);
  }
  // none left (an export that failed before its first link): the folder goes too
  if (readdirSync(versions).length === 0) rmSync(versions, { recursive: true, force: true });
  return done;
}
