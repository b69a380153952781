// Versions of an answer: each distinct answer of a postcode and lookup, with when it was first and
// last seen and its release. The latest version's addresses are the address tables' rows (what
// the reports read); an older version keeps its addresses as JSON rows in answer_versions.content,
// written when a newer version replaces it. An identical re-fetch only moves last_seen.
import type Database from "better-sqlite3";
import type { Lookup } from "../../spec/fields.js";
import { LOOKUP_SPECS } from "../../spec/lookups.js";
import type { Db } from "./db.js";
import type { Baseline, VersionPair, VersionRow, VersionSide } from "../snapshot.js";
import { contentHash, valueFields, type CurrentVersion, type VersionContent } from "../shared/versions.js";
import { providersOfKey } from "../provider-key.js";
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
      const hash = contentHash({ status: v.status, simulated: v.simulated === 1, providers: LOOKUP_SPECS[lookup].perProvider ? v.providers : null, rows: rowsOf(postcode, lookup, v) });
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

/**
 * For each postcode of the scope (a run's input, or every stored one) and lookup whose latest
 * version is not its baseline version: both versions' rows. Postcodes without a baseline version
 * (first fetched after it), or whose baseline is simulated and latest real (or the reverse), have
 * nothing to compare and are left out.
 */
export function* changedVersions(db: Db, scope: { runId: number | null; lookups: readonly Lookup[] }, baseline: Baseline): Generator<VersionPair> {
  const source =
    scope.runId === null
      ? "SELECT DISTINCT postcode FROM lookups"
      : "SELECT DISTINCT postcode FROM run_rows WHERE run_id = @runId AND postcode IS NOT NULL";
  const condition =
    baseline.kind === "previous" ? "x.id < a.id" : baseline.kind === "date" ? "x.first_seen < @before" : "x.run_id <= @baselineRun";
  const pairs = db
    .prepare(
      `SELECT s.postcode, l.lookup,
              a.id AS afterId, a.status AS afterStatus, a.release AS afterRelease, a.providers AS afterProviders, a.content AS afterContent,
              b.status AS beforeStatus, b.release AS beforeRelease, b.providers AS beforeProviders, b.content AS beforeContent
         FROM (${source}) s
         JOIN lookups l ON l.postcode = s.postcode
         JOIN answer_versions a ON a.id = l.version_id
         JOIN answer_versions b ON b.id = (SELECT MAX(x.id) FROM answer_versions x
                                            WHERE x.postcode = l.postcode AND x.lookup = l.lookup AND ${condition})
        WHERE b.id <> a.id AND a.simulated = b.simulated AND l.lookup IN (${scope.lookups.map((l) => `'${l}'`).join(", ") || "''"})`,
    )
    .all({
      ...(scope.runId === null ? {} : { runId: scope.runId }),
      ...(baseline.kind === "date" ? { before: baseline.before } : baseline.kind === "run" ? { baselineRun: baseline.runId } : {}),
    }) as {
    postcode: string;
    lookup: Lookup;
    afterStatus: "ok" | "not_found";
    afterRelease: string;
    afterProviders: string | null;
    afterContent: string | null;
    beforeStatus: "ok" | "not_found";
    beforeRelease: string;
    beforeProviders: string | null;
    beforeContent: string | null;
  }[];
  const storedRows = storedRowsReader(db);
  for (const p of pairs) {
    const side = (status: "ok" | "not_found", release: string, providers: string | null, content: string | null): VersionSide => ({
      status,
      release,
      providers: providersOfKey(providers),
      fields: valueFields(p.lookup, providers),
      // the latest version's rows are the address tables'; older ones carry theirs
      rows: content === null ? (status === "ok" ? storedRows(p.postcode, p.lookup, providers) : []) : (JSON.parse(content) as VersionRow[]),
    });
    yield {
      postcode: p.postcode,
      lookup: p.lookup,
      before: side(p.beforeStatus, p.beforeRelease, p.beforeProviders, p.beforeContent),
      after: side(p.afterStatus, p.afterRelease, p.afterProviders, p.afterContent),
    };
  }
}

/**
 * Whether any latest answer in scope has something to compare with: an earlier version, or the
 * same content fetched again later (last seen after first seen). False on a list's first run.
 */
export function anyAnswerCompared(db: Db, scope: { runId: number | null; lookups: readonly Lookup[] }): boolean {
  const source =
    scope.runId === null
      ? "SELECT DISTINCT postcode FROM lookups"
      : "SELECT DISTINCT postcode FROM run_rows WHERE run_id = @runId AND postcode IS NOT NULL";
  return (
    db
      .prepare(
        `SELECT EXISTS (SELECT 1 FROM (${source}) s
                          JOIN lookups l ON l.postcode = s.postcode AND l.lookup IN (${scope.lookups.map((l) => `'${l}'`).join(", ") || "''"})
                          JOIN answer_versions a ON a.id = l.version_id
                         WHERE a.last_seen > a.first_seen
                            OR EXISTS (SELECT 1 FROM answer_versions x WHERE x.postcode = l.postcode AND x.lookup = l.lookup AND x.id < a.id))`,
      )
      .pluck()
      .get(scope.runId === null ? {} : { runId: scope.runId }) === 1
  );
}

/** Whether the run is recorded: `--since RUN` names one. */
export function runExists(db: Db, runId: number): boolean {
  return db.prepare("SELECT 1 FROM runs WHERE id = ?").get(runId) !== undefined;
}
