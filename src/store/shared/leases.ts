// A lease row as every engine stores it, and when it is live: not expired, and its holder running
// when that holder is on this host.
import type { Lease, LeaseHolder, LeaseTaken } from "../types.js";

export type IsAlive = (holder: LeaseHolder) => boolean;

export interface LeaseRow {
  id: number;
  host: string;
  pid: number;
  process: string | null;
  run_id: number | null;
  taken_at: string;
  expires_ms: number;
}

export function toLease(row: LeaseRow): Lease {
  return {
    id: row.id,
    holder: { host: row.host, pid: row.pid, process: row.process },
    runId: row.run_id,
    takenAt: row.taken_at,
    expiresAt: new Date(row.expires_ms).toISOString(),
  };
}

/** Whether the lease still holds at `nowMs`: not expired, and its holder running when it is on this host. */
export function leaseLive(row: Pick<LeaseRow, "host" | "pid" | "process" | "expires_ms">, nowMs: number, here: string, isAlive: IsAlive): boolean {
  if (row.expires_ms <= nowMs) return false;
  return row.host !== here || isAlive({ host: row.host, pid: row.pid, process: row.process });
}


/** What a lease no longer live, taken over at `nowMs`, tells of its holder: why it was free. */
export function takenOver(row: Pick<LeaseRow, "host" | "pid" | "run_id" | "expires_ms">, nowMs: number): NonNullable<LeaseTaken["previous"]> {
  return { pid: row.pid, host: row.host, runId: row.run_id, why: row.expires_ms <= nowMs ? "expired" : "gone" };
}

/** A lease just taken (row `id`), with no run yet: it expires `ttlMs` after `nowMs`. */
export function newLease(id: number, holder: LeaseHolder, nowMs: number, ttlMs: number): Lease {
  return { id, holder, runId: null, takenAt: new Date(nowMs).toISOString(), expiresAt: new Date(nowMs + ttlMs).toISOString() };
}
