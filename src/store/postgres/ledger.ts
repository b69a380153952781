// The request ledger on PostgreSQL, shared by every machine: requests recorded, plus the unspent
// reservations of live leases. A reserve locks its lookup and period's row (ledger_periods) and
// reads what is used under that lock, so machines reserving at once are served one after another
// and together never pass the limit. Recording a request (the answer writer) spends one of its
// lease's reservation in the same transaction, so the sum never moves between the two.
import type pg from "pg";
import type { Lookup } from "../../contract/fields.js";
import { perLookup } from "../../contract/lookups.js";
import type { LedgerStore } from "../store.js";
import type { LedgerFigures, QuotaBlock, Reservation, SentRequest } from "../types.js";
import { inTransaction, rowOf, rowsOf, type Queryable } from "./connect.js";
import { assertLeaseLive } from "./leases.js";
import { afterGiveBack, grantReservation, type HeldReservation } from "../shared/ledger.js";

/**
 * Requests recorded for the lookup in the period, plus unspent reservations whatever became of their
 * lease: a holder that ended gave back what it did not send, so those left are a live holder's, or
 * a holder's whose requests sent no ledger row records (it died, or its writes failed): counted as
 * spent, at most one chunk over.
 */
async function usedBy(q: Queryable, lookup: Lookup, period: string): Promise<number> {
  const row = await rowOf<{ n: number }>(
    q,
    `SELECT (SELECT COUNT(*) FROM request_ledger WHERE lookup = $1 AND period = $2)
          + (SELECT COALESCE(SUM(unspent), 0) FROM ledger_reservations WHERE lookup = $1 AND period = $2) AS n`,
    [lookup, period],
  );
  return row!.n;
}

/** What the answer writer runs in its transaction for a request sent and a quota answer. */
export async function recordRequest(client: pg.PoolClient, r: SentRequest): Promise<void> {
  await client.query("INSERT INTO request_ledger (lookup, period, sent_at, status, run_id) VALUES ($1, $2, $3, $4, $5)", [r.lookup, r.period, r.at, r.status, r.runId]);
  if (r.leaseId !== null)
    await client.query("UPDATE ledger_reservations SET unspent = unspent - 1 WHERE lease_id = $1 AND lookup = $2 AND period = $3 AND unspent > 0", [
      r.leaseId,
      r.lookup,
      r.period,
    ]);
}

export async function recordBlock(client: pg.PoolClient, b: QuotaBlock): Promise<void> {
  await client.query(
    `INSERT INTO quota_blocks (lookup, until, message, run_id) VALUES ($1, $2, $3, $4)
     ON CONFLICT (lookup) DO UPDATE SET until = EXCLUDED.until, message = EXCLUDED.message, run_id = EXCLUDED.run_id`,
    [b.lookup, b.until, b.message, b.runId],
  );
}

export function postgresLedger(pool: pg.Pool): LedgerStore {
  return {
    reserve: (r) =>
      inTransaction(pool, async (client): Promise<Reservation> => {
        await client.query("INSERT INTO ledger_periods (lookup, period) VALUES ($1, $2) ON CONFLICT DO NOTHING", [r.lookup, r.period]);
        await client.query("SELECT 1 FROM ledger_periods WHERE lookup = $1 AND period = $2 FOR UPDATE", [r.lookup, r.period]);
        await assertLeaseLive(client, r.leaseId, r.nowMs);
        // read committed: each statement below sees what reserves served before this one committed
        const grant = grantReservation(r.limit, await usedBy(client, r.lookup, r.period), r.n);
        if (grant.granted > 0)
          await client.query(
            `INSERT INTO ledger_reservations AS x (lease_id, lookup, period, unspent) VALUES ($1, $2, $3, $4)
             ON CONFLICT (lease_id, lookup, period) DO UPDATE SET unspent = x.unspent + EXCLUDED.unspent`,
            [r.leaseId, r.lookup, r.period, grant.granted],
          );
        return grant;
      }),
    giveBack: (r) =>
      inTransaction(pool, async (client) => {
        const held = await rowsOf<HeldReservation>(
          client,
          "SELECT period, unspent FROM ledger_reservations WHERE lease_id = $1 AND lookup = $2 AND unspent > 0 FOR UPDATE",
          [r.leaseId, r.lookup],
        );
        for (const k of afterGiveBack(held.filter((h) => r.period === undefined || h.period === r.period), r.n))
          await client.query("UPDATE ledger_reservations SET unspent = $1 WHERE lease_id = $2 AND lookup = $3 AND period = $4", [k.unspent, r.leaseId, r.lookup, k.period]);
      }),
    used: (lookup, period) => usedBy(pool, lookup, period),
    async figures(period, nowMs): Promise<LedgerFigures> {
      const used = perLookup(() => 0);
      for (const lookup of Object.keys(used) as Lookup[]) used[lookup] = await usedBy(pool, lookup, period);
      const blocks = await rowsOf<{ lookup: Lookup; until: string }>(pool, "SELECT lookup, until FROM quota_blocks WHERE until > $1 ORDER BY lookup", [
        new Date(nowMs).toISOString(),
      ]);
      return { used, blocks };
    },
    blocked: (lookup, now) => rowOf<{ until: string; message: string }>(pool, "SELECT until, message FROM quota_blocks WHERE lookup = $1 AND until > $2", [lookup, now]),
  };
}
