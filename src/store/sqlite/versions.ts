// Versions of an answer: each distinct answer of a postcode and lookup, with when it was first and
// last seen and its release. The latest version's addresses are the address tables' rows (what
// the reports read); an older version keeps its addresses as JSON rows in answer_versions.content,
// written when a newer version replaces it. An identical re-fetch only moves last_seen.
import type Database from "better-sqlite3";
import type { Lookup } from "../../spec/fields.js";
import { LOOKUP_SPECS } from "../../spec/lookups.js";
import type { Db } from "./db.js";
import type { VersionRow } from "../snapshot.js";
import { contentHash, valueFields, type CurrentVersion, type VersionContent } from "../shared/versions.js";

/** Reads the rows of a postcode's latest answer, as the address tables hold them; one statement per column set. */
function storedRowsReader(db: Db): (postcode: string, lookup: Lookup, providers: string | null) => VersionRow[] {
  const statements = new Map<string, Database.Statement>();
  return (postcode, lookup, providers) => {
    const table = LOOKUP_SPECS[lookup].table;
    const fields = valueFields(lookup, providers);
    const sql = `SELECT uprn, address${fields.length > 0 ? `, ${fields.join(", ")}` : ""} FROM ${table} WHERE postcode = ? ORDER BY uprn`;
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql).raw(true)));
    return statement.all(postcode) as VersionRow[];
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

export function versionStore(db: Db): VersionStore {
  const selectCurrent = db.prepare(
    `SELECT v.id, v.status, v.hash, v.simulated, v.providers, l.release AS confirmed
       FROM lookups l JOIN answer_versions v ON v.id = l.version_id WHERE l.postcode = ? AND l.lookup = ?`,
  );
  const setHash = db.prepare("UPDATE answer_versions SET hash = ? WHERE id = ?");
  const setLastSeen = db.prepare("UPDATE answer_versions SET last_seen = ? WHERE id = ?");
  const setContent = db.prepare("UPDATE answer_versions SET content = ? WHERE id = ?");
  const insert = db.prepare(
    `INSERT INTO answer_versions (postcode, lookup, status, hash, release, first_seen, last_seen, run_id, simulated, address_count, providers)
     VALUES (@postcode, @lookup, @status, @hash, @release, @at, @at, @runId, @simulated, @addressCount, @providers)`,
  );
  const storedRows = storedRowsReader(db);
  const rowsOf = (postcode: string, lookup: Lookup, v: CurrentVersion) => (v.status === "ok" ? storedRows(postcode, lookup, v.providers) : []);
  return {
    current: (postcode, lookup) => (selectCurrent.get(postcode, lookup) as CurrentVersion | undefined) ?? null,
    hashOf(postcode, lookup, v) {
      if (v.hash !== null) return v.hash;
      const hash = contentHash({ status: v.status, simulated: v.simulated === 1, providers: LOOKUP_SPECS[lookup].perProvider ? v.providers : null, rows: rowsOf(postcode, lookup, v) });
      setHash.run(hash, v.id);
      return hash;
    },
    seenAgain: (id, at) => void setLastSeen.run(at, id),
    retire: (postcode, lookup, v) => void setContent.run(JSON.stringify(rowsOf(postcode, lookup, v)), v.id),
    add: (v) =>
      Number(
        insert.run({
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
        }).lastInsertRowid,
      ),
  };
}
