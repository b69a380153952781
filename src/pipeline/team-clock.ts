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

/**
 * Readings of the server's time taken at start. The first one may open the connection, and the
 * server's time is then read late in a long round trip: the reading with the shortest round trip
 * is the surest.
 */
const CLOCK_READINGS = 3;

/**
 * How far the server's time is ahead of the local clock: the midpoint of the shortest of a few round
 * trips. A difference within half that round trip (and the server's truncated millisecond) is none
 * the readings can tell, and counts as 0: a guess of a few milliseconds, different on each machine,
 * would move their shared pace slots against each other (and against the API's windows).
 */
export async function serverOffsetMs(store: Pick<Store, "leases">, local: Clock): Promise<number | null> {
  let best: { offset: number; roundTrip: number } | null = null;
  for (let i = 0; i < CLOCK_READINGS; i++) {
    const before = local.now();
    const server = await store.leases.serverNow();
    const after = local.now();
    if (server === null) return null;
    const reading = { offset: server - (before + after) / 2, roundTrip: after - before };
    if (best === null || reading.roundTrip < best.roundTrip) best = reading;
  }
  const { offset, roundTrip } = best!;
  return Math.abs(offset) <= roundTrip / 2 + 1 ? 0 : Math.round(offset);
}

/**
 * The clock the run uses: the server's time on PostgreSQL (with one warning line when the local
 * clock is off), else the local clock; a replayed clock is kept as it is.
 */
export async function teamClock(store: Pick<Store, "leases" | "location">, local: Clock, log: Pick<Logger, "warn">): Promise<Clock> {
  return serverClock(store, local, (offset) =>
    log.warn(`${clockSkewWords(offset, store.location)}; the run uses the server's time for leases, pace and the quota, but set this machine's clock right (NTP)`, {
      event: "clock-skew",
      offsetMs: offset,
    }),
  );
}

/** The server's time as a clock on PostgreSQL, else `local`; `onSkew` hears a local clock off by more than CLOCK_SKEW_WARN_MS. */
export async function serverClock(store: Pick<Store, "leases">, local: Clock, onSkew: (offsetMs: number) => void): Promise<Clock> {
  if (local.replayed) return local;
  const offset = await serverOffsetMs(store, local);
  if (offset === null) return local;
  if (Math.abs(offset) > CLOCK_SKEW_WARN_MS) onSkew(offset);
  return shiftedClock(local, offset);
}

/** "this machine's clock is 3456000.0 s ahead of the database server's (postgres://...)" */
export function clockSkewWords(offsetMs: number, location: string): string {
  return `this machine's clock is ${(Math.abs(offsetMs) / 1000).toFixed(1)} s ${offsetMs > 0 ? "behind" : "ahead of"} the database server's (${location})`;
}
