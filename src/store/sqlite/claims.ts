// Claims on SQLite: a run claims the pairs it will fetch under its lease. One batch at a time holds
// the database, so a claim normally succeeds whole; it is still checked honestly against other
// live leases' claims and against answers other runs stored since the plan.
import type { Lookup } from "../../contract/fields.js";
import type { ClaimResult } from "../types.js";
import type { Db } from "./db.js";
import { assertLeaseLive } from "./leases.js";

export function claimPairs(
  db: Db,
  c: { leaseId: number; runId: number; lookup: Lookup; postcodes: readonly string[]; plannedAt: string; nowMs: number },
): ClaimResult {
  const holder = db.prepare(
    "SELECT c.lease_id FROM claims c JOIN leases l ON l.id = c.lease_id AND l.expires_ms > ? WHERE c.lookup = ? AND c.postcode = ? AND c.lease_id <> ?",
  );
  const fetched = db.prepare("SELECT 1 FROM lookups WHERE postcode = ? AND lookup = ? AND fetched_at >= ? AND run_id <> ?");
  const upsert = db.prepare(
    `INSERT INTO claims (lookup, postcode, lease_id, run_id) VALUES (?, ?, ?, ?)
     ON CONFLICT (lookup, postcode) DO UPDATE SET lease_id = excluded.lease_id, run_id = excluded.run_id`,
  );
  const out: ClaimResult = { claimed: [], heldElsewhere: [], fetchedSince: [] };
  db.transaction(() => {
    assertLeaseLive(db, c.leaseId);
    for (const postcode of c.postcodes) {
      if (holder.get(c.nowMs, c.lookup, postcode, c.leaseId)) out.heldElsewhere.push(postcode);
      else if (fetched.get(postcode, c.lookup, c.plannedAt, c.runId)) out.fetchedSince.push(postcode);
      else {
        // a claim of a lease no longer live is taken over
        upsert.run(c.lookup, postcode, c.leaseId, c.runId);
        out.claimed.push(postcode);
      }
    }
  }).immediate();
  return out;
}

/** Deletes the lease's claims on these pairs, in the caller's transaction (the answer writer's group). */
export function claimDropper(db: Db): (leaseId: number, lookup: Lookup, postcodes: readonly string[]) => void {
  const drop = db.prepare("DELETE FROM claims WHERE lease_id = ? AND lookup = ? AND postcode = ?");
  return (leaseId, lookup, postcodes) => {
    for (const p of postcodes) drop.run(leaseId, lookup, p);
  };
}

export function releaseClaims(db: Db, leaseId: number, lookup: Lookup, postcodes: readonly string[]): void {
  const drop = claimDropper(db);
  db.transaction(() => drop(leaseId, lookup, postcodes)).immediate();
}
