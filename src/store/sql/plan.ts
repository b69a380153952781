// What the planner reads and records, the same on every engine, so that src/plan decides without
// SQL of its own: each input postcode with the state of its stored answer, the run's needs, and
// the --refresh marks.
import type { Lookup } from "../../contract/fields.js";
import { BAND_COLUMNS } from "../../contract/open-data.js";
import { providerNeedle } from "../provider-key.js";
import type { PlanStore } from "../store.js";
import type { Candidate, CandidateQuery } from "../types.js";
import type { Dialect } from "./dialect.js";
import type { SqlSession } from "./session.js";
import { exec, type Steps, type Transact } from "./steps.js";

/** Needs written per statement: the rows go in as one JSON parameter. */
const NEEDS_PER_STATEMENT = 10_000;

/** The speed bands a postcode's premises fall in, from the stored open data (all premises). */
const openDataBands = (d: Dialect): string =>
  `(SELECT ${BAND_COLUMNS.map((c) => d.asInt(`COALESCE(od.${c}, 0) > 0`)).join(" + ")}
      FROM open_data od WHERE od.postcode = r.postcode AND od.premises = @premises)`;

/** Every unique postcode of the run's input, in input order, with the state of its stored answer for one lookup. */
function candidates(q: SqlSession, c: CandidateQuery): Promise<Candidate[]> {
  const d = q.dialect;
  // lookups.providers holds each provider between commas (provider-key.ts); a NULL list lacks them all.
  const missingProvider = c.providers.map((_, i) => `COALESCE(${d.position("l.providers", `@p${i}`)}, 0) = 0`).join(" OR ") || d.falseSql;
  return q.all<Candidate>(
    `WITH newest AS (SELECT name, id FROM releases WHERE lookup = @lookup ORDER BY id DESC LIMIT 1)
     SELECT r.postcode, r.first_line AS line, COALESCE(l.returned_at, l.fetched_at) AS "fetchedAt",
            COALESCE((SELECT id FROM releases x WHERE x.lookup = @lookup AND x.name = l.release), 0) AS "releaseRank",
            ${c.openData ? openDataBands(d) : "NULL"} AS "openDataBands",
            CASE
              WHEN l.postcode IS NULL OR l.simulated <> @simulated THEN 'new'
              WHEN l.status = 'failed' THEN 'failed'
              WHEN l.lookup = 'mobile' AND l.status = 'ok' AND (${missingProvider}) THEN 'incomplete'
              WHEN CAST(@refreshSince AS TEXT) IS NOT NULL AND l.fetched_at < CAST(@refreshSince AS TEXT) THEN 'refresh'
              WHEN EXISTS (SELECT 1 FROM newest) AND l.release IS DISTINCT FROM (SELECT name FROM newest) THEN 'release'
              WHEN l.fetched_at < @freshSince THEN 'age'
              ELSE 'fresh'
            END AS state
       FROM (SELECT postcode, MIN(line) AS first_line FROM run_rows
              WHERE run_id = @runId AND postcode IS NOT NULL GROUP BY postcode) r
       LEFT JOIN lookups l ON l.postcode = r.postcode AND l.lookup = @lookup
      ORDER BY r.first_line`,
    {
      runId: c.runId,
      lookup: c.lookup,
      freshSince: c.freshSince,
      refreshSince: c.refreshSince,
      simulated: c.simulated ? 1 : 0,
      ...(c.openData ? { premises: c.openData } : {}),
      ...Object.fromEntries(c.providers.map((p, i) => [`p${i}`, providerNeedle(p)])),
    },
  );
}

/** Where a lookup's needs wait, in the plan's order, before they go into run_needs sorted. */
const NEEDS_STAGING = "plan_needs";

/**
 * The needs, many per statement, into a staging table first, then into run_needs in key order (a
 * need recorded again takes the new reason). The plan's order is the sample's, random: inserted
 * in it, each need went to a random page of run_needs' key, and at a whole country's 1.7 million
 * postcodes a lookup's needs took minutes instead of seconds (measured: docs/bench.md).
 */
function* recordNeedsSteps(d: Dialect, runId: number, lookup: Lookup, needs: readonly { postcode: string; reason: string }[]): Steps<void> {
  for (const statement of d.temporaryTable(NEEDS_STAGING, "postcode TEXT NOT NULL, reason TEXT NOT NULL", false)) yield* exec(statement);
  for (let i = 0; i < needs.length; i += NEEDS_PER_STATEMENT) {
    const rows = JSON.stringify(needs.slice(i, i + NEEDS_PER_STATEMENT).map((n) => [n.postcode, n.reason]));
    yield* exec(`INSERT INTO ${NEEDS_STAGING} (postcode, reason) SELECT ${d.cell("e.value", 0)}, ${d.cell("e.value", 1)} FROM ${d.jsonElements("@rows")}`, { rows });
  }
  yield* exec(
    `INSERT INTO run_needs (run_id, lookup, postcode, reason)
     SELECT @runId, @lookup, postcode, reason FROM ${NEEDS_STAGING} WHERE true ORDER BY postcode
     ON CONFLICT (run_id, lookup, postcode) DO UPDATE SET reason = excluded.reason`,
    { runId, lookup },
  );
  yield* exec(`DROP TABLE ${NEEDS_STAGING}`);
}

/** The start of the --refresh in progress for the lookup (an unfinished one continues), else `now`; the first mark stands. */
async function refreshMark(q: SqlSession, lookup: Lookup, now: string, runId: number): Promise<string> {
  // another machine may start the same refresh at once
  await q.exec("INSERT INTO refresh_marks (lookup, since, run_id) VALUES (@lookup, @now, @runId) ON CONFLICT (lookup) DO NOTHING", { lookup, now, runId });
  return (await q.get<{ since: string }>("SELECT since FROM refresh_marks WHERE lookup = @lookup", { lookup }))?.since ?? now;
}

/**
 * Whether the lookup's product ever answered: a stored answer or not-found (returned_at is set only
 * by one), an expired one's tombstone, or a release seen. The request ledger is not asked: its
 * statuses cannot tell the API's not-found from a gateway's 404, nor an answer from a wrong host's
 * page sent with a 200.
 */
async function productAnswered(q: SqlSession, lookup: Lookup): Promise<boolean> {
  const row = await q.get<{ answered: number }>(
    `SELECT 1 AS answered WHERE EXISTS (SELECT 1 FROM releases WHERE lookup = @lookup)
        OR EXISTS (SELECT 1 FROM lookups WHERE lookup = @lookup AND returned_at IS NOT NULL)
        OR EXISTS (SELECT 1 FROM expired_answers WHERE lookup = @lookup)`,
    { lookup },
  );
  return row !== null;
}

export function sqlPlan(q: SqlSession, transact: Transact): PlanStore {
  return {
    candidates: (c) => candidates(q, c),
    productAnswered: (lookup) => productAnswered(q, lookup),
    recordNeeds: (runId, lookup, needs) => transact(recordNeedsSteps(q.dialect, runId, lookup, needs)),
    async dropNeeds(runId, lookup, postcodes) {
      await q.exec(
        `DELETE FROM run_needs WHERE run_id = @runId AND lookup = @lookup
            AND postcode IN (SELECT ${q.dialect.cell("e.value", 0)} FROM ${q.dialect.jsonElements("@postcodes")})`,
        { runId, lookup, postcodes: JSON.stringify(postcodes.map((p) => [p])) },
      );
    },
    /** The run's needs another run answered after `since` (ISO) are dropped: answered, not pending. */
    dropAnsweredElsewhere: (runId, lookup, since) =>
      q.exec(
        `DELETE FROM run_needs WHERE run_id = @runId AND lookup = @lookup AND EXISTS
           (SELECT 1 FROM lookups l WHERE l.postcode = run_needs.postcode AND l.lookup = run_needs.lookup AND l.fetched_at >= @since AND l.run_id <> @runId)`,
        { runId, lookup, since },
      ),
    refreshMark: (lookup, now, runId) => refreshMark(q, lookup, now, runId),
    /** A refresh is done for each lookup of which the run left nothing it needed unfetched. */
    async closeRefreshMarks(runId, lookups) {
      for (const lookup of lookups) {
        const left = await q.get<{ n: number }>(
          `SELECT COUNT(*) AS n FROM run_needs n LEFT JOIN lookups l ON l.postcode = n.postcode AND l.lookup = n.lookup
            WHERE n.run_id = @runId AND n.lookup = @lookup AND l.run_id IS DISTINCT FROM n.run_id`,
          { runId, lookup },
        );
        if (left?.n === 0) await q.exec("DELETE FROM refresh_marks WHERE lookup = @lookup", { lookup });
      }
    },
  };
}
