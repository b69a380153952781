// Dataset releases per lookup, numbered in the order they were first seen: the highest id of a
// lookup is its newest release. Mobile answers name theirs (DBName); broadband answers do not, so a
// broadband release is the user's --release NAME or the date its changed content was first seen.
import type { Db } from "./db.js";
import { datedReleaseName, isProvisional, type ReleaseBook, type ReleaseInfo } from "../shared/releases.js";

export { releaseOf, type ReleaseBook, type ReleaseInfo } from "../shared/releases.js";

export function releaseBook(db: Db): ReleaseBook {
  const selectNewest = db.prepare("SELECT id, name FROM releases WHERE lookup = ? ORDER BY id DESC LIMIT 1");
  const selectNewestRun = db.prepare("SELECT id, name, run_id AS runId FROM releases WHERE lookup = ? ORDER BY id DESC LIMIT 1");
  const rename = [
    db.prepare("UPDATE releases SET name = @to WHERE lookup = @lookup AND name = @from"),
    db.prepare("UPDATE lookups SET release = @to WHERE lookup = @lookup AND release = @from"),
    db.prepare("UPDATE answer_versions SET release = @to WHERE lookup = @lookup AND release = @from"),
  ];
  const selectByName = db.prepare("SELECT id, name FROM releases WHERE lookup = ? AND name = ?");
  const insert = db.prepare("INSERT INTO releases (lookup, name, detected_at, run_id) VALUES (?, ?, ?, ?)");
  const book: ReleaseBook = {
    newest: (lookup) => (selectNewest.get(lookup) as ReleaseInfo | undefined) ?? null,
    ensure(lookup, name, at, runId) {
      const found = selectByName.get(lookup, name) as ReleaseInfo | undefined;
      if (found) return found;
      const newest = selectNewestRun.get(lookup) as (ReleaseInfo & { runId: number | null }) | undefined;
      if (newest && isProvisional(lookup, newest, runId)) {
        for (const statement of rename) statement.run({ to: name, from: newest.name, lookup });
        return { id: newest.id, name };
      }
      return { id: Number(insert.run(lookup, name, at, runId).lastInsertRowid), name };
    },
    startDated: (lookup, at, runId) => book.ensure(lookup, datedReleaseName(at, (name) => selectByName.get(lookup, name) !== undefined), at, runId),
  };
  return book;
}
