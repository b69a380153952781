import { systemClock, type Clock } from "../../src/fetch/clock.js";

/**
 * Which time a clock tells. "wall": real time (systemClock, instantSleepClock, a child process's
 * clock); "suite days": dayClock's replayed days, one time line whatever the day; any other clock
 * (a FakeClock, a clock a test builds) is a time line of its own, itself.
 */
export type Timeline = "wall" | "suite days" | Clock;
const TIMELINES = new WeakMap<Clock, Timeline>([[systemClock, "wall"]]);

export function timelineOf(clock: Clock): Timeline {
  return TIMELINES.get(clock) ?? clock;
}

/** Declares that `clock` tells the time of `like`'s time line (a machine whose clock is off by a fixed amount). */
export function onTimelineOf<C extends Clock>(clock: C, like: Clock): C {
  TIMELINES.set(clock, timelineOf(like));
  return clock;
}

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
  const clock: Clock = { now: () => NOON + days * DAY_MS + (Date.now() - LOADED), sleep: instantSleepClock.sleep };
  TIMELINES.set(clock, "suite days");
  return clock;
}

/**
 * dayClock's kind of clock on a fixed day: noon UTC of `day` (YYYY-MM-DD), moving with real time, its
 * sleeps cut short. For a run whose outcome hangs on its date (a new database's sample seed is its
 * first run's date), so that it draws the same whatever day the suite runs. A time line of its own.
 */
export function clockOnDay(day: string): Clock {
  const noon = Date.parse(`${day}T12:00:00.000Z`);
  const started = Date.now();
  return { now: () => noon + (Date.now() - started), sleep: instantSleepClock.sleep };
}

/** Real time, but every sleep is cut short: for tests over real HTTP that must not wait out backoffs. */
export const instantSleepClock: Clock = {
  now: () => Date.now(),
  sleep: async () => {
    await new Promise((r) => setImmediate(r));
  },
};
TIMELINES.set(instantSleepClock, "wall");

/**
 * Virtual time for several sleepers at once (machines sharing a pace): each sleep waits for its
 * turn, and run() moves the clock to the earliest one due, wakes it, and lets it go on to its next
 * sleep before the next wake-up.
 */
export class TimerClock implements Clock {
  readonly replayed = true;
  private timers: { at: number; seq: number; wake: () => void }[] = [];
  private seq = 0;
  constructor(public t = 1_700_000_000_000) {}
  now(): number {
    return this.t;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.resolve();
    return new Promise((wake) => this.timers.push({ at: this.t + Math.max(0, ms), seq: this.seq++, wake }));
  }
  /** Wakes the sleepers in time order until `work` settles (an abort is seen only before a sleep). */
  async run<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    const done = work.finally(() => (settled = true));
    for (;;) {
      await new Promise((r) => setImmediate(r));
      if (settled || this.timers.length === 0) return done;
      this.timers.sort((x, y) => x.at - y.at || x.seq - y.seq);
      const next = this.timers.shift()!;
      this.t = Math.max(this.t, next.at);
      next.wake();
    }
  }
}
