// Leases on PostgreSQL: one per batch process, any number at once (team mode). A lease is live
// until its expiry, and only while its holder runs when that holder is on this host (a killed
// batch's lease lapses at once, as on SQLite); a holder on another host is trusted until its lease
// expires. Taking a lease clears the ones no longer live, with their claims (their unspent
// reservations stay counted).
import type pg from "pg";
import { LeaseLostError, type Lease, type LeaseTaken } from "../types.js";
import { leaseLive, newLease, takenOver, toLease, type IsAlive, type LeaseRow } from "../shared/leases.js";
import type { LeaseStore } from "../store.js";
import { inTransaction, rowsOf, type Queryable } from "./connect.js";

/** Where this process runs and how it tells whether a holder on this host still runs. */
export interface LeaseContext {
  here: string;
  isAlive: IsAlive;
}

/** Live at `nowMs`: the SQLite engine's rule (not expired; a holder on this host still running). */
const isLive = (row: LeaseRow, nowMs: number, ctx: LeaseContext): boolean => leaseLive(row, nowMs, ctx.here, ctx.isAlive);

/** Every lease row, oldest first. */
function allLeaseRows(q: Queryable): Promise<LeaseRow[]> {
  return rowsOf<LeaseRow>(q, "SELECT id, host, pid, process, run_id, taken_at, expires_ms FROM leases ORDER BY id");
}

/** Ids of the leases live at `nowMs`. */
export async function liveLeaseIds(q: Queryable, nowMs: number, ctx: LeaseContext): Promise<number[]> {
  return (await allLeaseRows(q)).filter((r) => isLive(r, nowMs, ctx)).map((r) => r.id);
}

/** Leases live at `nowMs`, oldest first. */
export async function liveLeases(q: Queryable, nowMs: number, ctx: LeaseContext): Promise<Lease[]> {
  return (await allLeaseRows(q)).filter((r) => isLive(r, nowMs, ctx)).map(toLease);
}

/** The newest lease, live or not (status shows it as the lock), with whether its holder on this host runs. */
export async function newestLease(q: Queryable, ctx: LeaseContext): Promise<{ lease: Lease; alive: boolean | null } | null> {
  const row = (await allLeaseRows(q)).at(-1);
  if (!row) return null;
  return { lease: toLease(row), alive: row.host === ctx.here ? ctx.isAlive({ host: row.host, pid: row.pid, process: row.process }) : null };
}

/**
 * Drops a lease with its claims; `expiredBy`: only if it is still expired then (its holder may have
 * renewed it meanwhile). Its unspent reservations stay, counted as spent (ledger.ts): its holder
 * gave back what it did not send (giveBack), so what is left it may have sent without a ledger row;
 * those spent to nothing count nothing and go. Rows a paused
 * holder still has locked (a transaction it opened before it stopped) are skipped, not waited for:
 * the lease goes at a later take, its claims are taken over one by one (claims.ts).
 */
async function dropLease(client: pg.PoolClient, id: number, expiredBy: number | null): Promise<boolean> {
  const dropped = await client.query(
    `DELETE FROM leases WHERE id = (SELECT id FROM leases WHERE id = $1 ${expiredBy === null ? "" : "AND expires_ms <= $2"} FOR UPDATE SKIP LOCKED)`,
    expiredBy === null ? [id] : [id, expiredBy],
  );
  if (dropped.rowCount !== 1) return false;
  await client.query("DELETE FROM claims WHERE ctid = ANY(ARRAY(SELECT ctid FROM claims WHERE lease_id = $1 FOR UPDATE SKIP LOCKED))", [id]);
  await client.query("DELETE FROM ledger_reservations WHERE lease_id = $1 AND unspent = 0", [id]);
  return true;
}

/**
 * The fence of every write made under a lease: refused unless the lease is still the live one at
 * `nowMs` (the team's clock: the server's time, batch.ts). The row stays locked against a takeover's
 * DELETE until the transaction ends (FOR KEY SHARE lets its own renewal through).
 */
export async function assertLeaseLive(client: pg.PoolClient, leaseId: number, nowMs: number): Promise<void> {
  const held = await client.query("SELECT 1 FROM leases WHERE id = $1 AND expires_ms > $2 FOR KEY SHARE", [leaseId, nowMs]);
  if (held.rowCount !== 1) throw new LeaseLostError(leaseId);
}

/** The SQLSTATE of a COMMIT refused by its fence: the lease had lapsed (class PC is no server's own). */
const LAPSED_AT_COMMIT = "PCL01";

/**
 * The COMMIT of a transaction that must not land once its lease has lapsed (a group of answers,
 * which another machine may be writing too; a run's input), with its fence in the same round trip:
 * the lease (its row held since the transaction's assertLeaseLive) must still be live at `nowMs`,
 * read as the COMMIT is sent. A holder paused anywhere in the transaction past its lease reads a
 * time past it on resuming, and commits nothing; one paused after sending has already committed, in
 * time. A COMMIT takes no parameters, so the numbers go in the text: an id and a time, checked to be
 * numbers.
 */
export function commitFence(leaseId: number, nowMs: number): string {
  if (!Number.isSafeInteger(leaseId) || !Number.isFinite(nowMs)) throw new Error(`commitFence: lease ${leaseId} at ${nowMs} is not a lease id and a time`);
  return (
    `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM leases WHERE id = ${leaseId} AND expires_ms > ${nowMs}) THEN ` +
    `RAISE EXCEPTION 'lease % lapsed before its writes committed', ${leaseId} USING ERRCODE = '${LAPSED_AT_COMMIT}'; END IF; END $$; COMMIT`
  );
}

/** A COMMIT its fence refused, as the LeaseLostError it means; any other error as it is. */
export function lapsedAtCommit(err: unknown, leaseId: number): unknown {
  return (err as { code?: unknown } | null)?.code === LAPSED_AT_COMMIT ? new LeaseLostError(leaseId) : err;
}

export function postgresLeases(pool: pg.Pool, ctx: LeaseContext): LeaseStore {
  return {
    take: (holder, nowMs, ttlMs) =>
      inTransaction(pool, async (client): Promise<LeaseTaken> => {
        let previous: LeaseTaken["previous"] = null;
        for (const row of await allLeaseRows(client)) {
          if (isLive(row, nowMs, ctx)) continue;
          const expired = row.expires_ms <= nowMs;
          if (await dropLease(client, row.id, expired ? nowMs : null))
            previous = takenOver(row, nowMs);
        }
        const id = (
          await rowsOf<{ id: number }>(
            client,
            "INSERT INTO leases (host, pid, process, run_id, taken_at, expires_ms) VALUES ($1, $2, $3, NULL, $4, $5) RETURNING id",
            [holder.host, holder.pid, holder.process, new Date(nowMs).toISOString(), nowMs + ttlMs],
          )
        )[0]!.id;
        return { lease: newLease(id, holder, nowMs, ttlMs), previous };
      }),
    // an expired lease is not renewed, even when nobody took it over yet: its holder may have been
    // paused while another batch took its claims, and must stop rather than carry on
    async renew(leaseId, nowMs, ttlMs) {
      return (await pool.query("UPDATE leases SET expires_ms = $1 WHERE id = $2 AND expires_ms > $3", [nowMs + ttlMs, leaseId, nowMs])).rowCount === 1;
    },
    release: (leaseId) => inTransaction(pool, async (client) => void (await dropLease(client, leaseId, null))),
    live: (nowMs) => liveLeases(pool, nowMs, ctx),
    serverNow: async () => (await rowsOf<{ ms: number }>(pool, "SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms"))[0]!.ms,
  };
}
