// The runs table on PostgreSQL: one row per batch, with its arguments (never keys), counts, exit
// code and lease; and the final state of a run's pairs. The same rows and values as SQLite's.
import type pg from "pg";
import { zeroOutcomes, type OutcomeCounts } from "../../spec/counts.js";
import type { Lookup } from "../../spec/fields.js";
import type { RunStore } from "../store.js";
import { runInfoOf, type RunInfoRow } from "../shared/runs.js";
import { type LastRunSettings, type RunCounts, type RunFacts, type RunInfo } from "../types.js";
import { inTransaction, rowOf, rowsOf, type Queryable } from "./connect.js";
import { liveLeaseIds, type LeaseContext } from "./leases.js";

/** Final state of a run's pairs: an answer the run needed (run_needs) but did not fetch is pending, even when an older one is stored. */
export async function finalCounts(q: Queryable, runId: number, lookups: readonly Lookup[]): Promise<OutcomeCounts> {
  const counts = zeroOutcomes();
  for (const lookup of lookups)
    for (const row of await rowsOf<{ status: string; n: number }>(
      q,
      `SELECT CASE WHEN n.postcode IS NOT NULL AND l.run_id IS DISTINCT FROM $1 THEN 'pending' ELSE COALESCE(l.status, 'pending') END AS status,
              COUNT(*) AS n
         FROM (SELECT DISTINCT postcode FROM run_rows WHERE run_id = $1 AND postcode IS NOT NULL) r
         LEFT JOIN lookups l ON l.postcode = r.postcode AND l.lookup = $2
         LEFT JOIN run_needs n ON n.run_id = $1 AND n.lookup = $2 AND n.postcode = r.postcode
        GROUP BY 1`,
      [runId, lookup],
    )) {
      if (row.status === "ok") counts.ok += row.n;
      else if (row.status === "not_found") counts.notFound += row.n;
      else if (row.status === "failed") counts.failed += row.n;
      else counts.pending += row.n;
    }
  return counts;
}

/** A run's input and outcome counts from what it has stored so far: for a run that has not finished (or never will). */
export async function countsAsTheyStand(q: Queryable, runId: number, lookups: readonly Lookup[]): Promise<Omit<RunCounts, "requests" | "retries" | "throttled">> {
  const input = (await rowOf<{ inputRows: number; postcodes: number; rejects: number }>(
    q,
    `SELECT COUNT(*) AS "inputRows", COUNT(DISTINCT postcode) AS postcodes, COUNT(reason) AS rejects FROM run_rows WHERE run_id = $1`,
    [runId],
  ))!;
  return { ...input, ...(await finalCounts(q, runId, lookups)) };
}

export function postgresRuns(pool: pg.Pool, ctx: LeaseContext): RunStore {
  return {
    create: (run) =>
      inTransaction(pool, async (client) => {
        const id = (await rowOf<{ id: number }>(
          client,
          `INSERT INTO runs (started_at, state, simulated, input_name, input_columns, postcode_column, args, lookups, providers, lease_id)
           VALUES ($1, 'running', $2, $3, '[]', '', $4, $5, $6, $7) RETURNING id`,
          [run.startedAt, run.simulated ? 1 : 0, run.inputName, JSON.stringify(run.args), JSON.stringify(run.lookups), JSON.stringify(run.providers), run.leaseId ?? null],
        ))!.id;
        if (run.leaseId != null) await client.query("UPDATE leases SET run_id = $1 WHERE id = $2", [id, run.leaseId]);
        return id;
      }),
    async setInput(runId, columns, postcodeColumn) {
      await pool.query("UPDATE runs SET input_columns = $1, postcode_column = $2 WHERE id = $3", [JSON.stringify(columns), postcodeColumn, runId]);
    },
    async finish(runId, end) {
      const c = end.counts;
      await pool.query(
        `UPDATE runs SET ended_at = $1, state = $2, exit_code = $3, message = $4, input_rows = $5, postcodes = $6, rejects = $7,
           ok = $8, not_found = $9, failed = $10, pending = $11, requests = $12, retries = $13, throttled = $14 WHERE id = $15`,
        [end.endedAt, end.state, end.exitCode, end.message, c.inputRows, c.postcodes, c.rejects, c.ok, c.notFound, c.failed, c.pending, c.requests, c.retries, c.throttled, runId],
      );
    },
    async setExit(runId, exitCode, message, state) {
      await pool.query("UPDATE runs SET exit_code = $1, message = $2, state = COALESCE($4, state) WHERE id = $3", [exitCode, message, runId, state ?? null]);
    },
    forget: (runId) =>
      inTransaction(pool, async (client) => {
        await client.query("DELETE FROM run_rows WHERE run_id = $1", [runId]);
        await client.query("DELETE FROM runs WHERE id = $1", [runId]);
        // the next run takes its number, as on SQLite: only when it was the last one
        await client.query("SELECT setval(pg_get_serial_sequence('runs', 'id'), GREATEST(COALESCE((SELECT MAX(id) FROM runs), 0), 1), (SELECT MAX(id) FROM runs) IS NOT NULL)");
      }),
    async checkpoint(runId, c) {
      await pool.query("UPDATE runs SET requests = $1, retries = $2, throttled = $3 WHERE id = $4 AND state = 'running'", [c.requests, c.retries, c.throttled, runId]);
    },
    abandonOrphans: (at, nowMs) =>
      inTransaction(pool, async (client) => {
        const live = new Set(await liveLeaseIds(client, nowMs, ctx));
        const stale = (
          await rowsOf<{ id: number; lookups: string; lease_id: number | null }>(client, "SELECT id, lookups, lease_id FROM runs WHERE state = 'running' ORDER BY id FOR UPDATE")
        ).filter((r) => r.lease_id === null || !live.has(r.lease_id));
        for (const run of stale) {
          const c = await countsAsTheyStand(client, run.id, JSON.parse(run.lookups) as Lookup[]);
          await client.query(
            `UPDATE runs SET state = 'abandoned', ended_at = $1, input_rows = $2, postcodes = $3, rejects = $4,
               ok = $5, not_found = $6, failed = $7, pending = $8,
               message = 'the process ended without finishing the run (killed?)' WHERE id = $9`,
            [at, c.inputRows, c.postcodes, c.rejects, c.ok, c.notFound, c.failed, c.pending, run.id],
          );
        }
        return stale.length;
      }),
    finalCounts: (runId, lookups) => finalCounts(pool, runId, lookups),
    async read(which): Promise<RunInfo | null> {
      const select = "SELECT id, state, simulated, input_columns, lookups, providers FROM runs";
      const row = await rowOf<RunInfoRow>(
        pool,
        which === "last" ? `${select} WHERE state <> 'failed' OR input_rows > 0 ORDER BY id DESC LIMIT 1` : `${select} WHERE id = $1`,
        which === "last" ? [] : [which],
      );
      return row ? runInfoOf(row) : null;
    },
    facts: (runId) =>
      rowOf<RunFacts>(
        pool,
        `SELECT id, state, started_at AS "startedAt", ended_at AS "endedAt", requests, retries, throttled, message FROM runs WHERE id = $1`,
        [runId],
      ),
    async lastSettings(): Promise<LastRunSettings | null> {
      const row = await rowOf<{ id: number; started_at: string; simulated: number; providers: string; args: string }>(
        pool,
        "SELECT id, started_at, simulated, providers, args FROM runs WHERE id = (SELECT MAX(run_id) FROM run_rows)",
      );
      if (!row) return null;
      try {
        return { runId: row.id, startedAt: row.started_at, simulated: row.simulated === 1, providers: JSON.parse(row.providers) as string[], args: JSON.parse(row.args) as Record<string, unknown> };
      } catch {
        return null;
      }
    },
  };
}
