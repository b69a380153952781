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
  /**
   * Renews now if a third of the lease's life has passed (by `now`) since the last renewal was sent,
   * and settles once that renewal is answered. For long stages to call between their steps: SQLite's
   * work runs on the event loop's one thread, and while a stage works the timer cannot fire.
   */
  renewIfDue(): Promise<void>;
}

/**
 * Renews the lease every third of `ttlMs`, and whenever asked once that much has passed. A renewal
 * that fails (a busy database) is retried on the next tick; a lease found lost (expired, or taken
 * over) is reported once through `onLost`: an expired lease is never renewed, so a holder paused
 * past it learns so at its first renewal.
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
  const period = Math.floor(ttlMs / 3);
  let lost = false;
  let stopped = false;
  // the lease was taken just before: its first renewal is due a period from now
  let sentAt = o.now();
  let answered: Promise<void> = Promise.resolve();
  const renew = (): Promise<void> => {
    if (lost) return Promise.resolve();
    sentAt = o.now();
    const held = o.onRenewing?.();
    answered = store.leases.renew(leaseId, sentAt, ttlMs).then(
      (renewed) => {
        if (renewed) held?.();
        if (renewed || lost) return;
        lost = true;
        o.onLost();
      },
      (err: unknown) => {
        // not renewed: the next stage to ask tries again at once, not a period later
        sentAt = -Infinity;
        o.onError?.(err);
      },
    );
    return answered;
  };
  const stopTimer = (o.every ?? realTimer)(period, () => void renew());
  return {
    stop: () => {
      stopped = true;
      stopTimer();
    },
    renewIfDue: () => (stopped || lost ? Promise.resolve() : o.now() - sentAt >= period ? renew() : answered),
  };
}
