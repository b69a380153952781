// Keeps a lease alive while its process works: renewed on a timer well inside its time to live,
// so a live batch never loses it and a killed one's lapses within one ttl. The timer is unref'd
// (it never keeps the process up) and injectable, so tests drive it without waiting.
import type { Store } from "./store.js";

/** How long a lease lives without renewal: a killed batch's claims and reservations lapse after it. */
export const LEASE_TTL_MS = 120_000;

/** Repeats `tick` every `ms` until the returned function is called. */
export type Every = (ms: number, tick: () => void) => () => void;

export const realTimer: Every = (ms, tick) => {
  const timer = setInterval(tick, ms);
  timer.unref();
  return () => clearInterval(timer);
};

export interface LeaseKeeper {
  /** Stops renewing (the lease stays until released or expired). */
  stop(): void;
}

/**
 * Renews the lease every third of `ttlMs`. A renewal that fails (a busy database) is retried on the
 * next tick; a lease found lost (expired, or taken over) is reported once through `onLost`: an
 * expired lease is never renewed, so a holder paused past it learns so at its first tick.
 */
export function keepLease(
  store: Pick<Store, "leases">,
  leaseId: number,
  o: {
    ttlMs?: number;
    now: () => number;
    every?: Every;
    onLost: () => void;
    onError?: (err: unknown) => void;
    /** told as each renewal is sent; the function it returns is called if that renewal held */
    onRenewing?: () => () => void;
  },
): LeaseKeeper {
  const ttlMs = o.ttlMs ?? LEASE_TTL_MS;
  let lost = false;
  const stop = (o.every ?? realTimer)(Math.floor(ttlMs / 3), () => {
    if (lost) return;
    const held = o.onRenewing?.();
    store.leases.renew(leaseId, o.now(), ttlMs).then(
      (renewed) => {
        if (renewed) held?.();
        if (renewed || lost) return;
        lost = true;
        o.onLost();
      },
      (err: unknown) => o.onError?.(err),
    );
  });
  return { stop };
}
