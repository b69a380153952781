// The request ledger's one decision, the same on every engine: how much of a reservation asked
// for is granted, given the quota's limit and what the period has used (recorded plus reserved).
import type { Reservation } from "../types.js";

/** Up to `n` of what the period has left under `limit`; never below 0 (used may pass the limit). */
export function grantReservation(limit: number, used: number, n: number): Reservation {
  const left = Math.max(0, limit - used);
  const granted = Math.max(0, Math.min(n, left));
  return { granted, left: left - granted };
}
