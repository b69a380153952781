// Versions of an answer: each distinct answer of a postcode and lookup, with when it was first and
// last seen and its release. The latest version's addresses are the address tables' rows (what
// the reports read); an older version keeps its addresses as JSON rows in answer_versions.content,
// written when a newer version replaces it. An identical re-fetch only moves last_seen.
import type Database from "better-sqlite3";
import type { Lookup } from "../../contract/fields.js";
import type { Db } from "./db.js";
import type { VersionRow } from "../snapshot.js";
import type { CurrentVersion, VersionContent } from "../shared/versions.js";
import { storedVersionHash } from "../shared/answer-writes.js";
import { VERSION_SQL } from "../sql/versions.js";

/** Reads the rows of a postcode's latest answer, as the address tables hold them; one statement per column set. */
function storedRowsReader(db: Db): (postcode: string, lookup: Lookup, providers: string | null) => VersionRow[] {
  const statements = new Map<string, Database.Statement>();
  return (postcode, lookup, providers) => {
    const sql = VERSION_SQL.storedRows(lookup, providers);
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql).raw(true)));
    return statement.all({ postcode }) as VersionRow[];
  };
}

export interface VersionStore {
  current(postcode: string, lookup: Lookup): CurrentVersion | null;
  /** The current version's hash, computed from the address tables for a migrated version. */
  hashOf(postcode: string, lookup: Lookup, v: CurrentVersion): string;
  seenAgain(id: number, at: string): void;
  /** Moves the current version's addresses into its content: call before the address tables are rewritten. */
  retire(postcode: string, lookup: Lookup, v: CurrentVersion): void;
  add(v: { postcode: string; lookup: Lookup; content: VersionContent; hash: string; release: string; at: string; runId: number }): number;
}

/** The version statements (sql/versions.ts), prepared once: the answer writer runs them inside its synchronous transaction. */
export function versionStore(db: Db): VersionStore {
  const selectCurrent = db.prepare(VERSION_SQL.current());
  const setHash = db.prepare(VERSION_SQL.setHash);
  const setLastSeen = db.prepare(VERSION_SQL.seenAgain);
  const setContent = db.prepare(VERSION_SQL.retire);
  const insert = db.prepare(VERSION_SQL.add);
  const storedRows = storedRowsReader(db);
  const rowsOf = (postcode: string, lookup: Lookup, v: CurrentVersion) => (v.status === "ok" ? storedRows(postcode, lookup, v.providers) : []);
  return {
    current: (postcode, lookup) => (selectCurrent.get({ postcode, lookup }) as CurrentVersion | undefined) ?? null,
    hashOf(postcode, lookup, v) {
      if (v.hash !== null) return v.hash;
      const hash = storedVersionHash(lookup, v, rowsOf(postcode, lookup, v));
      setHash.run({ hash, id: v.id });
      return hash;
    },
    seenAgain: (id, at) => void setLastSeen.run({ at, id }),
    retire: (postcode, lookup, v) => void setContent.run({ content: JSON.stringify(rowsOf(postcode, lookup, v)), id: v.id }),
    add: (v) =>
      (
        insert.get({
          postcode: v.postcode,
          lookup: v.lookup,
          status: v.content.status,
          hash: v.hash,
          release: v.release,
          at: v.at,
          runId: v.runId,
          simulated: v.content.simulated ? 1 : 0,
          addressCount: v.content.rows.length,
          providers: v.content.providers,
        }) as { id: number }
      ).id,
  };
}
