// The request ledger's decisions, the same on every engine: how much of a reservation asked for is
// granted, given the quota's limit and what the period has used (recorded plus reserved), and
// which of a lease's reservations a give-back reduces.
import type { Reservation } from "../types.js";

/** Up to `n` of what the period has left under `limit`; never below 0 (used may pass the limit). */
export function grantReservation(limit: number, used: number, n: number): Reservation {
  const left = Math.max(0, limit - used);
  const granted = Math.max(0, Math.min(n, left));
  return { granted, left: left - granted };
}

/** One of a lease's reservations for a lookup: its period and what is not yet spent by recorded requests. */
export interface HeldReservation {
  period: string;
  unspent: number;
}

/**
 * What each reservation keeps once `n` unsent requests are given back: the newest period's first
 * (what a run still holds is what it reserved last), never below 0. The rest was sent, and stays counted.
 */
export function afterGiveBack(held: readonly HeldReservation[], n: number): HeldReservation[] {
  let left = Math.max(0, n);
  return [...held]
    .sort((a, b) => (a.period < b.period ? 1 : a.period > b.period ? -1 : 0))
    .map((r) => {
      const back = Math.min(left, r.unspent);
      left -= back;
      return { period: r.period, unspent: r.unspent - back };
    });
}
