// What the planner reads and records: typed queries over the store's tables, so that src/plan
// decides without SQL of its own.
import type { Lookup } from "../../spec/fields.js";
import type { Db } from "./db.js";
import { providerNeedle } from "../provider-key.js";
import { BAND_COLUMNS } from "../../spec/open-data.js";
import type { Candidate, CandidateQuery, NeedReason } from "../types.js";

export type { Candidate, CandidateQuery, NeedReason } from "../types.js";

/** The speed bands a postcode's premises fall in, from the stored open data (all premises). */
const OPEN_DATA_BANDS = `(SELECT ${BAND_COLUMNS.map((c) => `(IFNULL(od.${c}, 0) > 0)`).join(" + ")}
                           FROM open_data od WHERE od.postcode = r.postcode AND od.premises = @premises)`;

/** Every unique postcode of the run's input with the state of its stored answer for one lookup. */
export function planCandidates(db: Db, q: CandidateQuery): Candidate[] {
  // lookups.providers holds each provider between commas (provider-key.ts); a NULL list lacks them all.
  const missingProvider = q.providers.map((_, i) => `IFNULL(instr(l.providers, @p${i}), 0) = 0`).join(" OR ") || "0";
  const providerParams = Object.fromEntries(q.providers.map((p, i) => [`p${i}`, providerNeedle(p)]));
  return db
    .prepare(
      `WITH newest AS (SELECT name, id FROM releases WHERE lookup = @lookup ORDER BY id DESC LIMIT 1)
       SELECT r.postcode, r.first_line AS line, l.fetched_at AS fetchedAt,
              COALESCE((SELECT id FROM releases x WHERE x.lookup = @lookup AND x.name = l.release), 0) AS releaseRank,
              ${q.openData ? OPEN_DATA_BANDS : "NULL"} AS openDataBands,
              CASE
                WHEN l.postcode IS NULL OR l.simulated <> @simulated THEN 'new'
                WHEN l.status = 'failed' THEN 'failed'
                WHEN l.lookup = 'mobile' AND l.status = 'ok' AND (${missingProvider}) THEN 'incomplete'
                WHEN @refreshSince IS NOT NULL AND l.fetched_at < @refreshSince THEN 'refresh'
                WHEN EXISTS (SELECT 1 FROM newest) AND l.release IS NOT (SELECT name FROM newest) THEN 'release'
                WHEN l.fetched_at < @freshSince THEN 'age'
                ELSE 'fresh'
              END AS state
         FROM (SELECT postcode, MIN(line) AS first_line FROM run_rows
                WHERE run_id = @runId AND postcode IS NOT NULL GROUP BY postcode) r
         LEFT JOIN lookups l ON l.postcode = r.postcode AND l.lookup = @lookup
        ORDER BY r.first_line`,
    )
    .all({
      runId: q.runId,
      lookup: q.lookup,
      freshSince: q.freshSince,
      refreshSince: q.refreshSince,
      simulated: q.simulated ? 1 : 0,
      ...(q.openData ? { premises: q.openData } : {}),
      ...providerParams,
    }) as Candidate[];
}

/** Records what the run needs to fetch: what it does not fetch counts as pending (counts.ts). */
export function recordNeeds(db: Db, runId: number, lookup: Lookup, needs: readonly { postcode: string; reason: NeedReason }[]): void {
  const insert = db.prepare("INSERT OR REPLACE INTO run_needs (run_id, lookup, postcode, reason) VALUES (?, ?, ?, ?)");
  db.transaction(() => {
    for (const n of needs) insert.run(runId, lookup, n.postcode, n.reason);
  }).immediate();
}

export function dropNeeds(db: Db, runId: number, lookup: Lookup, postcodes: readonly string[]): void {
  const drop = db.prepare("DELETE FROM run_needs WHERE run_id = ? AND lookup = ? AND postcode = ?");
  db.transaction(() => {
    for (const p of postcodes) drop.run(runId, lookup, p);
  }).immediate();
}

/** The run's needs another run answered after `since` (ISO) are dropped: answered, not pending. */
export function dropAnsweredElsewhere(db: Db, runId: number, lookup: Lookup, since: string): number {
  return db
    .prepare(
      `DELETE FROM run_needs WHERE run_id = @runId AND lookup = @lookup AND EXISTS
         (SELECT 1 FROM lookups l WHERE l.postcode = run_needs.postcode AND l.lookup = run_needs.lookup AND l.fetched_at > @since AND l.run_id <> @runId)`,
    )
    .run({ runId, lookup, since }).changes;
}

/**
 * The start of the --refresh in progress for the lookup: an earlier refresh that did not finish
 * (stopped by quota or --max-requests) is continued, else one starts now.
 */
export function refreshMark(db: Db, lookup: Lookup, now: string, runId: number): string {
  const since = db.prepare("SELECT since FROM refresh_marks WHERE lookup = ?").pluck().get(lookup) as string | undefined;
  if (since !== undefined) return since;
  db.prepare("INSERT INTO refresh_marks (lookup, since, run_id) VALUES (?, ?, ?)").run(lookup, now, runId);
  return now;
}

/** A refresh is done for each lookup of which the run left nothing it needed unfetched. */
export function closeRefreshMarks(db: Db, runId: number, lookups: readonly Lookup[]): void {
  const left = db.prepare(
    `SELECT COUNT(*) FROM run_needs n LEFT JOIN lookups l ON l.postcode = n.postcode AND l.lookup = n.lookup
      WHERE n.run_id = ? AND n.lookup = ? AND l.run_id IS NOT n.run_id`,
  );
  const drop = db.prepare("DELETE FROM refresh_marks WHERE lookup = ?");
  for (const lookup of lookups) if ((left.pluck().get(runId, lookup) as number) === 0) drop.run(lookup);
}
