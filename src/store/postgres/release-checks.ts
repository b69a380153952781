// When each lookup's release was last checked, on PostgreSQL: shared by the team, so probes run
// once a night for all machines.
import type pg from "pg";
import type { ReleaseCheckStore } from "../store.js";
import { rowOf } from "./connect.js";

export function postgresReleaseChecks(pool: pg.Pool): Omit<ReleaseCheckStore, "lastCheck"> {
  return {
    last: async (lookup) => (await rowOf<{ checked_at: string }>(pool, "SELECT checked_at FROM release_checks WHERE lookup = $1", [lookup]))?.checked_at ?? null,
    async record(check) {
      await pool.query(
        `INSERT INTO release_checks (lookup, checked_at, how, run_id) VALUES ($1, $2, $3, $4)
         ON CONFLICT (lookup) DO UPDATE SET checked_at = EXCLUDED.checked_at, how = EXCLUDED.how, run_id = EXCLUDED.run_id`,
        [check.lookup, check.at, check.how, check.runId],
      );
    },
    async runStoredNamedRelease(runId, lookup) {
      return (await rowOf(pool, "SELECT 1 FROM lookups WHERE run_id = $1 AND lookup = $2 AND status = 'ok' AND dataset IS NOT NULL LIMIT 1", [runId, lookup])) !== null;
    },
  };
}
