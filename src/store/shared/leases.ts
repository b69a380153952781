// A lease row as every engine stores it, and when it is live: not expired, and its holder running
// when that holder is on this host.
import type { Lease, LeaseHolder } from "../types.js";

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

