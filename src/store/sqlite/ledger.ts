// The request ledger: every request sent, per lookup and quota period, with its status; the quota
// reservations not yet spent (a dead holder's included); and the service's "quota replenished in" answer, until which
// nothing is sent to that lookup.
import type { Lookup } from "../../contract/fields.js";
import { tableExists, type Db } from "./db.js";
import { assertLeaseLive } from "./leases.js";
import { perLookup } from "../../contract/lookups.js";
import type { LedgerFigures, QuotaBlock, Reservation, SentRequest } from "../types.js";
import { afterGiveBack, grantReservation, type HeldReservation } from "../shared/ledger.js";

export type { LastRunSettings, SentRequest } from "../types.js";

/**
 * Unspent reservations count whatever became of their lease: a holder that ended gave back what it
 * did not send (giveBack), so those left belong to a live holder, or to one that sent requests no
 * ledger row records (it died, or its writes failed). Counting them as spent over-counts by at most
 * one chunk; dropping them would undercount the requests it did send.
 */
const RESERVED = "SELECT COALESCE(SUM(unspent), 0) FROM ledger_reservations WHERE lookup = @lookup AND period = @period";

/** The statements the answer writer runs in its transaction for each request and quota answer. */
export function ledgerWrites(db: Db): { record(r: SentRequest): void; block(b: QuotaBlock): void } {
  const insert = db.prepare("INSERT INTO request_ledger (lookup, period, sent_at, status, run_id) VALUES (?, ?, ?, ?, ?)");
  const spend = db.prepare("UPDATE ledger_reservations SET unspent = unspent - 1 WHERE lease_id = ? AND lookup = ? AND period = ? AND unspent > 0");
  const upsertBlock = db.prepare(
    `INSERT INTO quota_blocks (lookup, until, message, run_id) VALUES (?, ?, ?, ?)
     ON CONFLICT (lookup) DO UPDATE SET until = excluded.until, message = excluded.message, run_id = excluded.run_id`,
  );
  return {
    record(r) {
      insert.run(r.lookup, r.period, r.at, r.status, r.runId);
      if (r.leaseId !== null) spend.run(r.leaseId, r.lookup, r.period);
    },
    block: (b) => void upsertBlock.run(b.lookup, b.until, b.message, b.runId),
  };
}

/** Requests recorded for the lookup in the period, plus unspent reservations (RESERVED). */
export function ledgerUsed(db: Db, lookup: Lookup, period: string): number {
  const recorded = db.prepare("SELECT COUNT(*) FROM request_ledger WHERE lookup = ? AND period = ?").pluck().get(lookup, period) as number;
  return recorded + (db.prepare(RESERVED).pluck().get({ lookup, period }) as number);
}

/** Grants up to n of what the period has left under `limit`, in one IMMEDIATE transaction: no read-then-spend. */
export function reserve(db: Db, r: { leaseId: number; lookup: Lookup; period: string; n: number; limit: number }): Reservation {
  return db
    .transaction((): Reservation => {
      assertLeaseLive(db, r.leaseId);
      const grant = grantReservation(r.limit, ledgerUsed(db, r.lookup, r.period), r.n);
      if (grant.granted > 0)
        db.prepare(
          `INSERT INTO ledger_reservations (lease_id, lookup, period, unspent) VALUES (?, ?, ?, ?)
           ON CONFLICT (lease_id, lookup, period) DO UPDATE SET unspent = unspent + excluded.unspent`,
        ).run(r.leaseId, r.lookup, r.period, grant.granted);
      return grant;
    })
    .immediate();
}

/** Reduces the lease's unspent reservations for the lookup by `n` requests never sent (afterGiveBack), in one transaction. */
export function giveBack(db: Db, r: { leaseId: number; lookup: Lookup; n: number; period?: string | undefined }): void {
  const held = db.prepare("SELECT period, unspent FROM ledger_reservations WHERE lease_id = ? AND lookup = ? AND unspent > 0");
  const keep = db.prepare("UPDATE ledger_reservations SET unspent = ? WHERE lease_id = ? AND lookup = ? AND period = ?");
  db.transaction(() => {
    const reservations = (held.all(r.leaseId, r.lookup) as HeldReservation[]).filter((h) => r.period === undefined || h.period === r.period);
    for (const k of afterGiveBack(reservations, r.n)) keep.run(k.unspent, r.leaseId, r.lookup, k.period);
  }).immediate();
}

/** The block in force at `now`, if any. */
export function quotaBlocked(db: Db, lookup: Lookup, now: string): { until: string; message: string } | null {
  return (db.prepare("SELECT until, message FROM quota_blocks WHERE lookup = ? AND until > ?").get(lookup, now) as { until: string; message: string } | undefined) ?? null;
}

/** Figures for the plan and `status`: requests per lookup in a period (with live reservations), and blocks (empty before schema 4). */
export function ledgerFigures(db: Db, period: string, nowMs: number): LedgerFigures {
  const used = perLookup(() => 0);
  if (!tableExists(db, "request_ledger")) return { used, blocks: [] };
  for (const r of db.prepare("SELECT lookup, COUNT(*) AS n FROM request_ledger WHERE period = ? GROUP BY lookup").all(period) as { lookup: Lookup; n: number }[])
    used[r.lookup] = r.n;
  // status reads older schemas read-only: reservations came with leases
  if (tableExists(db, "ledger_reservations")) {
    for (const lookup of Object.keys(used) as Lookup[]) used[lookup] += db.prepare(RESERVED).pluck().get({ lookup, period }) as number;
  }
  const now = new Date(nowMs).toISOString();
  return { used, blocks: db.prepare("SELECT lookup, until FROM quota_blocks WHERE until > ?").all(now) as { lookup: Lookup; until: string }[] };
}

