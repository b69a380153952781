// Dataset releases per lookup, numbered in the order they were first seen: the highest id of a
// lookup is its newest release. Mobile answers name theirs (DBName); broadband answers do not, so a
// broadband release is the user's --release NAME or the date its changed content was first seen.
import type { Lookup } from "../../spec/fields.js";
import type { Db } from "./db.js";

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

export function releaseBook(db: Db): ReleaseBook {
  const selectNewest = db.prepare("SELECT id, name FROM releases WHERE lookup = ? ORDER BY id DESC LIMIT 1");
  const selectByName = db.prepare("SELECT id, name FROM releases WHERE lookup = ? AND name = ?");
  const insert = db.prepare("INSERT INTO releases (lookup, name, detected_at, run_id) VALUES (?, ?, ?, ?)");
  const book: ReleaseBook = {
    newest: (lookup) => (selectNewest.get(lookup) as ReleaseInfo | undefined) ?? null,
    ensure(lookup, name, at, runId) {
      const found = selectByName.get(lookup, name) as ReleaseInfo | undefined;
      if (found) return found;
      return { id: Number(insert.run(lookup, name, at, runId).lastInsertRowid), name };
    },
    startDated(lookup, at, runId) {
      const date = at.slice(0, 10);
      let name = date;
      for (let n = 2; selectByName.get(lookup, name); n++) name = `${date}.${n}`;
      return book.ensure(lookup, name, at, runId);
    },
  };
  return book;
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
  if (!newest || (a.changed && a.confirmed === newest.name)) return book.startDated(a.lookup, a.at, a.runId).name;
  return newest.name;
}
