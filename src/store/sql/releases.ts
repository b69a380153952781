// Releases as every engine reads and records them outside the answer writer: a lookup's newest
// release, each mobile release's rating scale (contract/mobile-scales.ts decides, sql/scale-sql.ts
// counts), and when each lookup's release was last checked (plan/probe-rule.ts reads it to send at
// most one probe round per lookup a day).
import type { Lookup } from "../../contract/fields.js";
import { scaleOfRatings, type ScaleEvidence } from "../../contract/mobile-scales.js";
import { provisionalMoves } from "../shared/releases.js";
import { ALL_MOBILE_POSTCODES, recordEvidenceSql, recordScaleOfSql, scaleEvidenceSql } from "./scale-sql.js";
import type { ReleaseCheckStore, ReleaseStore, StoredScale } from "../store.js";
import type { CheckedBy } from "../types.js";
import type { SqlSession } from "./session.js";
import { all, exec, type Steps, type Transact } from "./steps.js";

/** The statements of the answer writers' release book (shared/releases.ts decides), run in their own transactions. */
export const RELEASE_SQL = {
  /** the lookup's newest release, with the run that first saw it */
  newest: `SELECT id, name, run_id AS "runId" FROM releases WHERE lookup = @lookup ORDER BY id DESC LIMIT 1`,
  byName: "SELECT id, name FROM releases WHERE lookup = @lookup AND name = @name",
  /** a provisional release renamed (@from to @to), with every answer and version on it */
  rename: [
    "UPDATE releases SET name = @to WHERE lookup = @lookup AND name = @from",
    "UPDATE lookups SET release = @to WHERE lookup = @lookup AND release = @from",
    "UPDATE answer_versions SET release = @to WHERE lookup = @lookup AND release = @from",
  ],
  /** a lookup's release names, oldest first */
  names: "SELECT name FROM releases WHERE lookup = @lookup ORDER BY id",
  /** a provisional release (@from) folded into a named one (@to): its answers and versions move, and it goes */
  fold: [
    "UPDATE lookups SET release = @to WHERE lookup = @lookup AND release = @from",
    "UPDATE answer_versions SET release = @to WHERE lookup = @lookup AND release = @from",
    "DELETE FROM releases WHERE lookup = @lookup AND name = @from",
  ],
  /** a release first seen: its id (none when another machine recorded it at the same time) */
  insert: "INSERT INTO releases (lookup, name, detected_at, run_id) VALUES (@lookup, @name, @at, @runId) ON CONFLICT (lookup, name) DO NOTHING RETURNING id",
} as const;

/**
 * Moves what is on a provisional release onto the named one (shared/releases.ts, provisionalMoves),
 * for each of `lookups`; run at the end of an answer group's transaction, so whichever machine
 * learns a release's name, no answer stays behind on the stand-in. Returns the answers moved.
 */
export function* foldProvisionalSteps(lookups: readonly Lookup[]): Steps<number> {
  let moved = 0;
  for (const lookup of lookups) {
    const names = (yield* all<{ name: string }>(RELEASE_SQL.names, { lookup })).map((r) => r.name);
    const move = provisionalMoves(lookup, names);
    if (!move) continue;
    for (const from of move.from) {
      const [answers, versions, release] = RELEASE_SQL.fold;
      moved += yield* exec(answers, { lookup, from, to: move.to });
      yield* exec(versions, { lookup, from, to: move.to });
      yield* exec(release, { lookup, from });
    }
  }
  return moved;
}

/** Adds each release's counted evidence to its record, and records the scale the kept evidence shows: what was recorded. */
function* recordScaleSteps(counted: readonly ScaleEvidence[]): Steps<StoredScale[]> {
  const addEvidence = recordEvidenceSql((i) => `@p${i}`);
  const setScale = recordScaleOfSql((i) => `@p${i}`);
  const recorded: StoredScale[] = [];
  for (const e of counted) {
    if (e.release === null) continue;
    const row = (yield* all<{ ratings: number | string; legacy: number | string }>(addEvidence, { p1: e.ratings, p2: e.legacyRatings, p3: e.release }))[0];
    const kept = row ? { release: e.release, ratings: Number(row.ratings), legacyRatings: Number(row.legacy) } : e;
    const scale = scaleOfRatings(kept);
    yield* exec(setScale, { p1: scale, p2: e.release });
    recorded.push({ ...kept, scale });
  }
  return recorded;
}

/**
 * Counts each mobile release's stored ratings and those that are 1 or 2, adds them to the release's
 * record (evidence only adds: a release once seen legacy stays so) and records its scale.
 */
async function recordScales(q: SqlSession, transact: Transact, providers: readonly string[]): Promise<StoredScale[]> {
  if (providers.length === 0) return [];
  const order = q.dialect.byteOrder === "" ? "" : ` ${q.dialect.byteOrder}`;
  const rows = await q.all<{ release: string | null; ratings: number | string; legacy: number | string }>(scaleEvidenceSql(ALL_MOBILE_POSTCODES, providers, { order, stored: true }));
  const counted = rows.map((r) => ({ release: r.release, ratings: Number(r.ratings), legacyRatings: Number(r.legacy) }));
  const recorded = await transact(recordScaleSteps(counted));
  // answers naming no release have no record: their counted evidence as it is
  return counted.map((e) => recorded.find((r) => r.release === e.release) ?? { ...e, scale: scaleOfRatings(e) });
}

export function sqlReleases(q: SqlSession, transact: Transact): ReleaseStore {
  return {
    newest: (lookup) => q.get<{ id: number; name: string }>("SELECT id, name FROM releases WHERE lookup = @lookup ORDER BY id DESC LIMIT 1", { lookup }),
    recordScales: (providers) => recordScales(q, transact, providers),
  };
}

export function sqlReleaseChecks(q: SqlSession): ReleaseCheckStore {
  return {
    // a reader never migrates: a database from before release checks has none
    async last(lookup) {
      if ((await q.get(q.dialect.columnExists("release_checks", "checked_at"))) === null) return null;
      return (await q.get<{ checked_at: string }>("SELECT checked_at FROM release_checks WHERE lookup = @lookup", { lookup }))?.checked_at ?? null;
    },
    async record(check) {
      await q.exec(
        `INSERT INTO release_checks (lookup, checked_at, how, run_id) VALUES (@lookup, @at, @how, @runId)
         ON CONFLICT (lookup) DO UPDATE SET checked_at = excluded.checked_at, how = excluded.how, run_id = excluded.run_id`,
        { lookup: check.lookup, at: check.at, how: check.how, runId: check.runId },
      );
    },
    async lastCheck(lookup) {
      if ((await q.get(q.dialect.columnExists("release_checks", "checked_at"))) === null) return null;
      const row = await q.get<{ checked_at: string; how: CheckedBy; run_id: number }>("SELECT checked_at, how, run_id FROM release_checks WHERE lookup = @lookup", { lookup });
      return row ? { lookup, at: row.checked_at, how: row.how, runId: row.run_id } : null;
    },
    /** Whether the run stored an answer of the lookup that names its release (DBName): what a probe would have told. */
    runStoredNamedRelease: async (runId, lookup) =>
      (await q.get("SELECT 1 AS found FROM lookups WHERE run_id = @runId AND lookup = @lookup AND status = 'ok' AND dataset IS NOT NULL LIMIT 1", { runId, lookup })) !== null,
  };
}
