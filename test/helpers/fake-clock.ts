import type { Clock } from "../../src/fetch/clock.js";

/** Virtual time: sleep() moves the clock forward instead of waiting. For one sleeper at a time. */
export class FakeClock implements Clock {
  readonly replayed = true;
  slept: number[] = [];
  constructor(public t = 1_700_000_000_000) {}
  now(): number {
    return this.t;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return;
    this.slept.push(ms);
    this.t += Math.max(0, ms);
  }
}

const DAY_MS = 24 * 3600 * 1000;
/** Noon UTC of the day this file was loaded, and when: see dayClock. */
const NOON = Math.floor(Date.now() / DAY_MS) * DAY_MS + DAY_MS / 2;
const LOADED = Date.now();

/**
 * A clock `days` after noon UTC of the day the tests started, moving with real time, its sleeps cut
 * short: runs that must share a UTC day (the release check is once a day) do so at any hour the
 * suite runs, midnight included.
 */
export function dayClock(days = 0): Clock {
  return { now: () => NOON + days * DAY_MS + (Date.now() - LOADED), sleep: instantSleepClock.sleep };
}

/** Real time, but every sleep is cut short: for tests over real HTTP that must not wait out backoffs. */
export const instantSleepClock: Clock = {
  now: () => Date.now(),
  sleep: async () => {
    await new Promise((r) => setImmediate(r));
  },
};
