import type { Clock } from "../../src/fetch/clock.js";

/** Virtual time: sleep() moves the clock forward instead of waiting. For one sleeper at a time. */
export class FakeClock implements Clock {
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

/** Real time, but every sleep is cut short: for tests over real HTTP that must not wait out backoffs. */
export const instantSleepClock: Clock = {
  now: () => Date.now(),
  sleep: async () => {
    await new Promise((r) => setImmediate(r));
  },
};
