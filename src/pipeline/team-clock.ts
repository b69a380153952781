// One clock for the team. Machines sharing a PostgreSQL database judge leases, pace slots, quota
// blocks and periods on the server's time: each batch reads it once at start and runs on its own
// clock shifted by the difference, so a machine whose clock is wrong still works correctly (and is
// told so). On SQLite one machine holds the database and its own clock serves.
import type { Clock } from "../fetch/clock.js";
import type { Logger } from "../log/logger.js";
import type { Store } from "../store/store.js";

/** Past this difference from the server a machine is told its clock is off. */
export const CLOCK_SKEW_WARN_MS = 5_000;

/** The local clock shifted by `offsetMs`; sleeps are unchanged (they are durations). */
export function shiftedClock(local: Clock, offsetMs: number): Clock {
  if (offsetMs === 0) return local;
  return { now: () => local.now() + offsetMs, sleep: (ms, signal) => local.sleep(ms, signal) };
}

/** How far the server's time is ahead of the local clock, from one reading: the midpoint of the round trip. */
export async function serverOffsetMs(store: Pick<Store, "leases">, local: Clock): Promise<number | null> {
  const before = local.now();
  const server = await store.leases.serverNow();
  if (server === null) return null;
  return Math.round(server - (before + local.now()) / 2);
}

/**
 * The clock the run uses: the server's time on PostgreSQL (with one warning line when the local
 * clock is off), else the local clock; a replayed clock is kept as it is.
 */
export async function teamClock(store: Pick<Store, "leases" | "location">, local: Clock, log: Logger): Promise<Clock> {
  if (local.replayed) return local;
  const offset = await serverOffsetMs(store, local);
  if (offset === null) return local;
  if (Math.abs(offset) > CLOCK_SKEW_WARN_MS)
    log.warn(
      `this machine's clock is ${(Math.abs(offset) / 1000).toFixed(1)} s ${offset > 0 ? "behind" : "ahead of"} the database server's (${store.location}); ` +
        "the run uses the server's time for leases, pace and the quota, but set this machine's clock right (NTP)",
      { event: "clock-skew", offsetMs: offset },
    );
  return shiftedClock(local, offset);
}
