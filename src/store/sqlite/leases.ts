// Leases on SQLite: one batch per database, so a lease is exclusive. A lease is live until its
// expiry, and only while its holder runs when that holder is on this host (a killed batch's lease
// is taken over at once, as the old batch_lock was); a holder on another host is trusted until its
// lease expires. A lease taken over goes with its claims; its unspent reservations stay counted.
import type { Lease, LeaseHolder, LeaseTaken } from "../types.js";
import { LeaseLostError, LockedError } from "../types.js";
import { tableExists, type Db } from "./db.js";
import { leaseLive, newLease, takenOver, toLease, type IsAlive, type LeaseRow } from "../shared/leases.js";

export { leaseLive, toLease, type IsAlive, type LeaseRow } from "../shared/leases.js";

/**
 * Drops a lease with its claims. Its unspent reservations stay, counted as spent (ledger.ts): its
 * holder gave back what it did not send (giveBack), so what is left it may have sent without a
 * ledger row. Those spent to nothing count nothing and go.
 */
function dropLease(db: Db, id: number): void {
  db.prepare("DELETE FROM claims WHERE lease_id = ?").run(id);
  db.prepare("DELETE FROM ledger_reservations WHERE lease_id = ? AND unspent = 0").run(id);
  db.prepare("DELETE FROM leases WHERE id = ?").run(id);
}

/** Throws LockedError while another live lease exists; takes over (drops) the ones no longer live. */
export function takeLease(db: Db, holder: LeaseHolder, nowMs: number, ttlMs: number, here: string, isAlive: IsAlive): LeaseTaken {
  return db
    .transaction(() => {
      let previous: LeaseTaken["previous"] = null;
      for (const row of db.prepare("SELECT * FROM leases ORDER BY id").all() as LeaseRow[]) {
        if (leaseLive(row, nowMs, here, isAlive))
          throw new LockedError(
            `another batch (pid ${row.pid} on ${row.host}, run ${row.run_id ?? "?"}, since ${row.taken_at}) is using this database; ` +
              "wait for it to finish or use another --db",
          );
        previous = takenOver(row, nowMs);
        dropLease(db, row.id);
      }
      const id = Number(
        db
          .prepare("INSERT INTO leases (host, pid, process, run_id, taken_at, expires_ms) VALUES (?, ?, ?, NULL, ?, ?)")
          .run(holder.host, holder.pid, holder.process, new Date(nowMs).toISOString(), nowMs + ttlMs).lastInsertRowid,
      );
      return { lease: newLease(id, holder, nowMs, ttlMs), previous };
    })
    .immediate();
}

/** An expired lease is not renewed (its holder must stop), even when nobody took it over yet. */
export function renewLease(db: Db, id: number, nowMs: number, ttlMs: number): boolean {
  return db.prepare("UPDATE leases SET expires_ms = ? WHERE id = ? AND expires_ms > ?").run(nowMs + ttlMs, id, nowMs).changes === 1;
}

/**
 * A renewal made inside a transaction that was then rolled back, made again: it held when made (its
 * transaction held the write lock, so nobody else could take the lease meanwhile). A lease taken
 * over since is not brought back: its holder learns so at its next renewal.
 */
export function keepRenewal(db: Db, id: number, expiresMs: number): void {
  db.prepare("UPDATE leases SET expires_ms = MAX(expires_ms, ?) WHERE id = ?").run(expiresMs, id);
}

/**
 * The fence of every write made under a lease, run inside its transaction: refused once the lease is
 * gone (taken over, or released). SQLite holds one writer per file and a lease is taken over only
 * by deleting it, so its row's presence is the check; its expiry is for the next taker to judge,
 * unless the caller names its time.
 */
export function assertLeaseLive(db: Db, leaseId: number, nowMs?: number): void {
  // with `nowMs`, an expired lease is refused too: a commit that must be made only while the lease holds
  const held = nowMs === undefined ? db.prepare("SELECT 1 FROM leases WHERE id = ?").get(leaseId) : db.prepare("SELECT 1 FROM leases WHERE id = ? AND expires_ms > ?").get(leaseId, nowMs);
  if (held === undefined) throw new LeaseLostError(leaseId);
}

export function releaseLease(db: Db, id: number): void {
  db.transaction(() => dropLease(db, id)).immediate();
}

/** Every lease row, live or not (status reads old schemas too: none before the leases table). */
export function allLeases(db: Db): (Lease & { expiresMs: number })[] {
  if (!tableExists(db, "leases")) return [];
  return (db.prepare("SELECT * FROM leases ORDER BY id").all() as LeaseRow[]).map((row) => ({ ...toLease(row), expiresMs: row.expires_ms }));
}

/** Ids of the leases live at `nowMs`. */
export function liveLeaseIds(db: Db, nowMs: number, here: string, isAlive: IsAlive): Set<number> {
  const rows = db.prepare("SELECT * FROM leases").all() as LeaseRow[];
  return new Set(rows.filter((r) => leaseLive(r, nowMs, here, isAlive)).map((r) => r.id));
}

export function liveLeases(db: Db, nowMs: number, here: string, isAlive: IsAlive): Lease[] {
  if (!tableExists(db, "leases")) return [];
  return (db.prepare("SELECT * FROM leases ORDER BY id").all() as LeaseRow[]).filter((r) => leaseLive(r, nowMs, here, isAlive)).map(toLease);
}
