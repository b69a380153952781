// Releases as every engine numbers them: the book an engine keeps (newest, ensure, startDated), and
// the rule that says which release an answer is confirmed on.
import type { Lookup } from "../../contract/fields.js";
import { LOOKUP_SPECS } from "../../contract/lookups.js";

export interface ReleaseInfo {
  id: number;
  name: string;
}

export interface ReleaseBook {
  newest(lookup: Lookup): ReleaseInfo | null;
  /** The release's id; records it (as the newest) when it was never seen. */
  ensure(lookup: Lookup, name: string, at: string, runId: number): ReleaseInfo;
  /** A new release first seen at `at`: named by its date, made unique with .2, .3, ... */
  startDated(lookup: Lookup, at: string, runId: number): ReleaseInfo;
}

/** A release first seen at `at`, named by its date; made unique with .2, .3, ... past the names `taken`. */
export function datedReleaseName(at: string, taken: (name: string) => boolean): string {
  const date = at.slice(0, 10);
  let name = date;
  for (let n = 2; taken(name); n++) name = `${date}.${n}`;
  return name;
}

/**
 * The release an answer is confirmed on. `dataset` (DBName) names it when the answer does, else
 * the user's label. Without either: an answer that changed while already confirmed on the newest
 * release reveals a new one; any other answer (first, unchanged, or catching up) is on the newest.
 */
export function releaseOf(
  book: ReleaseBook,
  a: { lookup: Lookup; dataset: string | null; label: string | null; changed: boolean; confirmed: string | null; at: string; runId: number },
): string {
  if (a.dataset) return book.ensure(a.lookup, a.dataset, a.at, a.runId).name;
  if (a.label) return book.ensure(a.lookup, a.label, a.at, a.runId).name;
  const newest = book.newest(a.lookup);
  // A lookup whose answers name their release (a 404 names none): the newest named one, or a
  // provisional one that the run's first named answer renames (isProvisional), never a new release.
  if (LOOKUP_SPECS[a.lookup].namesRelease) return newest?.name ?? book.startDated(a.lookup, a.at, a.runId).name;
  if (!newest || (a.changed && a.confirmed === newest.name)) return book.startDated(a.lookup, a.at, a.runId).name;
  return newest.name;
}

/**
 * A release the run itself started by date for a lookup whose answers name their release: it
 * stands for "whatever this run's answers name", so the run's first named release takes its place
 * (renamed, with every answer on it) instead of following it as a newer one.
 */
export function isProvisional(lookup: Lookup, release: { name: string; runId: number | null }, runId: number): boolean {
  return LOOKUP_SPECS[lookup].namesRelease && release.runId === runId && isDatedName(release.name);
}

/** A name datedReleaseName gives: for a lookup whose answers name their release, a stand-in until one does. */
export function isDatedName(name: string): boolean {
  return /^\d{4}-\d{2}-\d{2}(\.\d+)?$/.test(name);
}

/**
 * The provisional releases of a lookup whose answers name their release, and the named release
 * their answers belong on (its newest), once one is known: any run's 404s stored before any
 * machine learnt the name, or while another machine was learning it. Null when there is nothing
 * to move. `names` are the lookup's releases, oldest first.
 */
export function provisionalMoves(lookup: Lookup, names: readonly string[]): { from: string[]; to: string } | null {
  if (!LOOKUP_SPECS[lookup].namesRelease) return null;
  const from = names.filter(isDatedName);
  const to = names.filter((n) => !isDatedName(n)).at(-1);
  return from.length > 0 && to !== undefined ? { from, to } : null;
}

/** The lookups of `records` whose answers name their release. */
export function namingLookups(records: readonly { lookup: Lookup }[]): Lookup[] {
  return [...new Set(records.map((r) => r.lookup))].filter((lookup) => LOOKUP_SPECS[lookup].namesRelease);
}

/**
 * Whether a group's answers of these lookups may meet a provisional release: a lookup that names
 * its release has none named yet, or still holds a provisional one. Such groups take their turns
 * (PostgreSQL: an advisory lock), so that of two machines starting together the second sees the
 * first's release and moves what is provisional.
 */
export function mayMeetProvisional(lookups: readonly Lookup[], rows: readonly { lookup: string; name: string }[]): boolean {
  return lookups.some((lookup) => {
    if (!LOOKUP_SPECS[lookup].namesRelease) return false;
    const names = rows.filter((r) => r.lookup === lookup).map((r) => r.name);
    return names.length === 0 || names.some(isDatedName);
  });
}

/**
 * The release a final answer is stored on: `current` is the pair's version before it (null for a
 * first answer), `changed` whether the answer's content differs from it. A real answer replacing a
 * simulated one (or the reverse) is a first answer, not a new release.
 */
export function answerRelease(
  book: ReleaseBook,
  r: { lookup: Lookup; fetchedAt: string; runId: number },
  a: { dataset: string | null; label: string | null; simulated: number; changed: boolean; current: { simulated: number; confirmed: string | null } | null },
): string {
  return releaseOf(book, {
    lookup: r.lookup,
    dataset: a.dataset,
    label: a.label,
    changed: a.current !== null && a.changed && a.current.simulated === a.simulated,
    confirmed: a.current?.confirmed ?? null,
    at: r.fetchedAt,
    runId: r.runId,
  });
}

/** A stored release as a book held in memory reads it. */
export interface ReleaseRow {
  id: number;
  lookup: Lookup;
  name: string;
  runId: number | null;
}

/**
 * A book over releases read once (an engine whose reads are not synchronous loads them first):
 * what it records is kept for the engine to store, `added` (releases first seen) and `renames` (a
 * provisional release renamed after it was stored; one not stored yet is renamed in `added`).
 */
export function heldReleaseBook(rows: ReleaseRow[]): {
  book: ReleaseBook;
  added: { lookup: Lookup; name: string; at: string; runId: number }[];
  renames: { lookup: Lookup; from: string; to: string }[];
} {
  let nextId = Math.max(0, ...rows.map((r) => r.id)) + 1;
  const added: { lookup: Lookup; name: string; at: string; runId: number }[] = [];
  const renames: { lookup: Lookup; from: string; to: string }[] = [];
  const find = (lookup: Lookup, name: string) => rows.find((r) => r.lookup === lookup && r.name === name);
  const newest = (lookup: Lookup) => rows.filter((r) => r.lookup === lookup).at(-1);
  const book: ReleaseBook = {
    newest: (lookup) => newest(lookup) ?? null,
    ensure(lookup, name, at, runId): ReleaseInfo {
      const found = find(lookup, name);
      if (found) return found;
      const last = newest(lookup);
      if (last && isProvisional(lookup, last, runId)) {
        const unsaved = added.find((p) => p.lookup === lookup && p.name === last.name);
        if (unsaved) unsaved.name = name;
        else renames.push({ lookup, from: last.name, to: name });
        last.name = name;
        return last;
      }
      const release = { id: nextId++, lookup, name, runId };
      rows.push(release);
      added.push({ lookup, name, at, runId });
      return release;
    },
    startDated: (lookup, at, runId) => book.ensure(lookup, datedReleaseName(at, (name) => find(lookup, name) !== undefined), at, runId),
  };
  return { book, added, renames };
}
