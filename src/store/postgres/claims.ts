// Claims on PostgreSQL: any number of batches claim the pairs they will fetch. A claim row is taken
// with FOR UPDATE SKIP LOCKED, so a pair another machine is claiming at this moment is left to it
// rather than waited for; a new pair's row is inserted ON CONFLICT DO NOTHING, so of two machines
// claiming it together exactly one gets it. A claim of a lease no longer live is taken over.
import type pg from "pg";
import type { Lookup } from "../../contract/fields.js";
import type { ClaimResult } from "../types.js";
import type { ClaimStore } from "../store.js";
import { inTransaction, rowsOf } from "./connect.js";
import { assertLeaseLive, liveLeaseIds, type LeaseContext } from "./leases.js";

interface ClaimRequest {
  leaseId: number;
  runId: number;
  lookup: Lookup;
  postcodes: readonly string[];
  plannedAt: string;
  nowMs: number;
}

async function claim(client: pg.PoolClient, c: ClaimRequest, ctx: LeaseContext): Promise<ClaimResult> {
  // sorted, so that two machines inserting overlapping lists wait for each other in one order (no deadlock)
  const postcodes = [...new Set(c.postcodes)].sort();
  await assertLeaseLive(client, c.leaseId, c.nowMs);
  const live = new Set(await liveLeaseIds(client, c.nowMs, ctx));
  const locked = new Map(
    (
      await rowsOf<{ postcode: string; lease_id: number }>(
        client,
        "SELECT postcode, lease_id FROM claims WHERE lookup = $1 AND postcode = ANY($2) ORDER BY postcode FOR UPDATE SKIP LOCKED",
        [c.lookup, postcodes],
      )
    ).map((r) => [r.postcode, r.lease_id]),
  );
  const existing = new Set(
    (await rowsOf<{ postcode: string }>(client, "SELECT postcode FROM claims WHERE lookup = $1 AND postcode = ANY($2)", [c.lookup, postcodes])).map((r) => r.postcode),
  );
  const fetched = new Set(
    (
      await rowsOf<{ postcode: string }>(
        client,
        "SELECT postcode FROM lookups WHERE lookup = $1 AND postcode = ANY($2) AND fetched_at >= $3 AND run_id <> $4",
        [c.lookup, postcodes, c.plannedAt, c.runId],
      )
    ).map((r) => r.postcode),
  );
  const heldElsewhere = new Set<string>();
  const fetchedSince = new Set<string>();
  const takeOver: string[] = [];
  const insert: string[] = [];
  for (const postcode of postcodes) {
    const holder = locked.get(postcode);
    // a row another transaction has locked is being claimed right now: it is that machine's
    if (existing.has(postcode) && holder === undefined) heldElsewhere.add(postcode);
    else if (holder !== undefined && holder !== c.leaseId && live.has(holder)) heldElsewhere.add(postcode);
    else if (fetched.has(postcode)) fetchedSince.add(postcode);
    else if (holder !== undefined) takeOver.push(postcode);
    else insert.push(postcode);
  }
  if (takeOver.length > 0)
    await client.query("UPDATE claims SET lease_id = $1, run_id = $2 WHERE lookup = $3 AND postcode = ANY($4)", [c.leaseId, c.runId, c.lookup, takeOver]);
  const inserted = new Set(
    insert.length === 0
      ? []
      : (
          await rowsOf<{ postcode: string }>(
            client,
            `INSERT INTO claims (lookup, postcode, lease_id, run_id) SELECT $1, p, $2, $3 FROM unnest($4::text[]) AS p ORDER BY p
             ON CONFLICT (lookup, postcode) DO NOTHING RETURNING postcode`,
            [c.lookup, c.leaseId, c.runId, insert],
          )
        ).map((r) => r.postcode),
  );
  for (const postcode of insert) if (!inserted.has(postcode)) heldElsewhere.add(postcode);
  // in the caller's order
  const ordered = [...new Set(c.postcodes)];
  return {
    claimed: ordered.filter((p) => !heldElsewhere.has(p) && !fetchedSince.has(p)),
    heldElsewhere: ordered.filter((p) => heldElsewhere.has(p)),
    fetchedSince: ordered.filter((p) => fetchedSince.has(p)),
  };
}

/** Deletes the lease's claims on these pairs: on its own, or in the answer writer's group transaction. */
export async function dropClaims(db: pg.Pool | pg.PoolClient, leaseId: number, lookup: Lookup, postcodes: readonly string[]): Promise<void> {
  await db.query("DELETE FROM claims WHERE lease_id = $1 AND lookup = $2 AND postcode = ANY($3)", [leaseId, lookup, postcodes]);
}

export function postgresClaims(pool: pg.Pool, ctx: LeaseContext): ClaimStore {
  return {
    claim: (c) => inTransaction(pool, (client) => claim(client, c, ctx)),
    release: (leaseId, lookup, postcodes) => dropClaims(pool, leaseId, lookup, postcodes),
  };
}
