// What the planner reads and records, on PostgreSQL (the SQLite engine's plan-queries.ts, the same
// meaning): candidates with the state of their stored answers, needs, and --refresh marks.
import type pg from "pg";
import { BAND_COLUMNS } from "../../spec/open-data.js";
import { providerNeedle } from "../provider-key.js";
import type { PlanStore } from "../store.js";
import type { Candidate } from "../types.js";
import { inTransaction, rowOf, rowsOf } from "./connect.js";

export function postgresPlan(pool: pg.Pool): PlanStore {
  return {
    candidates(q) {
      // $1 run, $2 lookup, $3 freshSince, $4 refreshSince, $5 simulated, $6 provider needles, $7 premises (with open data only)
      // lookups.providers holds each provider between commas (provider-key.ts); a NULL list lacks them all.
      const openDataBands = q.openData
        ? `(SELECT ${BAND_COLUMNS.map((c) => `(COALESCE(od.${c}, 0) > 0)::int`).join(" + ")}
              FROM open_data od WHERE od.postcode = r.postcode AND od.premises = $7)`
        : "NULL::int";
      return rowsOf<Candidate>(
        pool,
        `WITH newest AS (SELECT name, id FROM releases WHERE lookup = $2 ORDER BY id DESC LIMIT 1)
         SELECT r.postcode, r.first_line AS line, l.fetched_at AS "fetchedAt",
                COALESCE((SELECT id FROM releases x WHERE x.lookup = $2 AND x.name = l.release), 0) AS "releaseRank",
                ${openDataBands} AS "openDataBands",
                CASE
                  WHEN l.postcode IS NULL OR l.simulated <> $5 THEN 'new'
                  WHEN l.status = 'failed' THEN 'failed'
                  WHEN l.lookup = 'mobile' AND l.status = 'ok'
                       AND EXISTS (SELECT 1 FROM unnest($6::text[]) AS needle WHERE COALESCE(strpos(l.providers, needle), 0) = 0) THEN 'incomplete'
                  WHEN $4::text IS NOT NULL AND l.fetched_at < $4::text THEN 'refresh'
                  WHEN EXISTS (SELECT 1 FROM newest) AND l.release IS DISTINCT FROM (SELECT name FROM newest) THEN 'release'
                  WHEN l.fetched_at < $3 THEN 'age'
                  ELSE 'fresh'
                END AS state
           FROM (SELECT postcode, MIN(line) AS first_line FROM run_rows
                  WHERE run_id = $1 AND postcode IS NOT NULL GROUP BY postcode) r
           LEFT JOIN lookups l ON l.postcode = r.postcode AND l.lookup = $2
          ORDER BY r.first_line`,
        [q.runId, q.lookup, q.freshSince, q.refreshSince, q.simulated ? 1 : 0, q.providers.map(providerNeedle), ...(q.openData ? [q.openData] : [])],
      );
    },
    recordNeeds: (runId, lookup, needs) =>
      inTransaction(pool, async (client) => {
        const chunk = 10_000;
        for (let i = 0; i < needs.length; i += chunk) {
          const part = needs.slice(i, i + chunk);
          await client.query(
            `INSERT INTO run_needs (run_id, lookup, postcode, reason)
             SELECT $1, $2, p, r FROM unnest($3::text[], $4::text[]) AS n(p, r)
             ON CONFLICT (run_id, lookup, postcode) DO UPDATE SET reason = EXCLUDED.reason`,
            [runId, lookup, part.map((n) => n.postcode), part.map((n) => n.reason)],
          );
        }
      }),
    async dropNeeds(runId, lookup, postcodes) {
      await pool.query("DELETE FROM run_needs WHERE run_id = $1 AND lookup = $2 AND postcode = ANY($3)", [runId, lookup, [...postcodes]]);
    },
    async dropAnsweredElsewhere(runId, lookup, since) {
      const dropped = await pool.query(
        `DELETE FROM run_needs n WHERE n.run_id = $1 AND n.lookup = $2 AND EXISTS
           (SELECT 1 FROM lookups l WHERE l.postcode = n.postcode AND l.lookup = n.lookup AND l.fetched_at > $3 AND l.run_id <> $1)`,
        [runId, lookup, since],
      );
      return dropped.rowCount ?? 0;
    },
    refreshMark: (lookup, now, runId) =>
      inTransaction(pool, async (client) => {
        // another machine may start the same refresh at once: the first mark stands
        await client.query("INSERT INTO refresh_marks (lookup, since, run_id) VALUES ($1, $2, $3) ON CONFLICT (lookup) DO NOTHING", [lookup, now, runId]);
        return (await rowOf<{ since: string }>(client, "SELECT since FROM refresh_marks WHERE lookup = $1", [lookup]))!.since;
      }),
    async closeRefreshMarks(runId, lookups) {
      for (const lookup of lookups) {
        const left = (await rowOf<{ n: number }>(
          pool,
          `SELECT COUNT(*) AS n FROM run_needs n LEFT JOIN lookups l ON l.postcode = n.postcode AND l.lookup = n.lookup
            WHERE n.run_id = $1 AND n.lookup = $2 AND l.run_id IS DISTINCT FROM n.run_id`,
          [runId, lookup],
        ))!.n;
        if (left === 0) await pool.query("DELETE FROM refresh_marks WHERE lookup = $1", [lookup]);
      }
    },
  };
}
