// Dataset releases per lookup, numbered in the order they were first seen: the highest id of a
// lookup is its newest release. Mobile answers name theirs (DBName); broadband answers do not, so a
// broadband release is the user's --release NAME or the date its changed content was first seen.
// The book's statements (sql/releases.ts), prepared once: the answer writer runs them inside its
// synchronous transaction.
import type { Db } from "./db.js";
import { RELEASE_SQL } from "../sql/releases.js";
import { datedReleaseName, isProvisional, type ReleaseBook, type ReleaseInfo } from "../shared/releases.js";

export { releaseOf, type ReleaseBook, type ReleaseInfo } from "../shared/releases.js";

export function releaseBook(db: Db): ReleaseBook {
  const selectNewest = db.prepare(RELEASE_SQL.newest);
  const rename = RELEASE_SQL.rename.map((sql) => db.prepare(sql));
  const selectByName = db.prepare(RELEASE_SQL.byName);
  const insert = db.prepare(RELEASE_SQL.insert);
  const newestOf = (lookup: string) => (selectNewest.get({ lookup }) as (ReleaseInfo & { runId: number | null }) | undefined) ?? null;
  const book: ReleaseBook = {
    newest: (lookup) => {
      const newest = newestOf(lookup);
      return newest && { id: newest.id, name: newest.name };
    },
    ensure(lookup, name, at, runId) {
      const found = selectByName.get({ lookup, name }) as ReleaseInfo | undefined;
      if (found) return found;
      const newest = newestOf(lookup);
      if (newest && isProvisional(lookup, newest, runId)) {
        for (const statement of rename) statement.run({ to: name, from: newest.name, lookup });
        return { id: newest.id, name };
      }
      return { id: (insert.get({ lookup, name, at, runId }) as { id: number }).id, name };
    },
    startDated: (lookup, at, runId) => book.ensure(lookup, datedReleaseName(at, (name) => selectByName.get({ lookup, name }) !== undefined), at, runId),
  };
  return book;
}
