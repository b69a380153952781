import { describe, expect, it } from "vitest";
import { Pacer } from "../src/fetch/pacer.js";
import { memoryPace } from "../src/store/memory-pace.js";
import { backoffDelay, DEFAULT_BACKOFF } from "../src/fetch/backoff.js";
import { FakeClock } from "./helpers/fake-clock.js";

describe("Pacer", () => {
  it("spaces starts evenly at the configured rate", async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ rate: 100, windowMs: 60_000 }, clock);
    const starts: number[] = [];
    for (let i = 0; i < 250; i++) {
      expect(await pacer.acquire()).toBe(true);
      starts.push(clock.now());
    }
    const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(600);
    // never more than `rate` starts in any 60 s sliding window
    for (let i = 0; i < starts.length; i++) {
      const inWindow = starts.filter((t) => t > starts[i]! - 60_000 && t <= starts[i]!).length;
      expect(inWindow).toBeLessThanOrEqual(100);
    }
  });

  it("keeps a margin (here 20 ms) so arrival jitter cannot put rate+1 requests in one server window, even after a pause", async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ rate: 10, windowMs: 1_000 }, clock);
    const starts: number[] = [];
    for (let i = 0; i < 15; i++) {
      await pacer.acquire();
      starts.push(clock.now());
    }
    // a 429 pause lets slots bunch up; the sliding window still holds
    pacer.throttled(clock.now() + 5_000);
    for (let i = 0; i < 30; i++) {
      await pacer.acquire();
      starts.push(clock.now());
    }
    for (let i = 0; i + 10 < starts.length; i++) expect(starts[i + 10]! - starts[i]!).toBeGreaterThanOrEqual(1_020);
  });

  it("waits out a 429 pause and slows down, then recovers with successes", async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ rate: 60, windowMs: 60_000 }, clock);
    // the configured rate, less the 1% margin kept for arrival jitter: one start every 1,010 ms
    const interval = 60_600 / 60;
    const gapOfNext = async () => {
      const before = clock.now();
      await pacer.acquire();
      return clock.now() - before;
    };
    await pacer.acquire();
    const t0 = clock.now();
    pacer.throttled(t0 + 5_000);
    await pacer.acquire();
    expect(clock.now()).toBeGreaterThanOrEqual(t0 + 5_000);
    expect(await gapOfNext()).toBeGreaterThan(interval * 1.2);
    for (let i = 0; i < 200; i++) pacer.succeeded();
    await gapOfNext();
    expect(await gapOfNext()).toBeCloseTo(interval, 5);
  });

  it("keeps its rate when timers fire late, instead of pushing every later slot back", async () => {
    // every sleep overshoots by 40% of the interval, as timers do on a busy machine
    const clock = new FakeClock();
    const late = { now: () => clock.now(), sleep: (ms: number) => clock.sleep(ms > 0 ? ms + 0.4 * 606 : ms) };
    const pacer = new Pacer({ rate: 100, windowMs: 60_000 }, late);
    const t0 = clock.now();
    for (let i = 0; i < 301; i++) await pacer.acquire();
    const perMinute = (300 / (clock.now() - t0)) * 60_000;
    expect(perMinute).toBeGreaterThan(97);
    expect(perMinute).toBeLessThanOrEqual(100);
  });

  it("keeps its rate when timers fire late with a shared pace too (the store's, alone on the key)", async () => {
    // every other sleep overshoots by 40% of the interval: uneven delays, as on a busy machine
    const clock = new FakeClock();
    let n = 0;
    const late = { now: () => clock.now(), sleep: (ms: number) => clock.sleep(ms > 0 && n++ % 2 === 0 ? ms + 0.4 * 606 : ms) };
    const pace = memoryPace();
    const shared = {
      nextSlot: (intervalMs: number, nowMs: number) => pace.nextSlot("broadband", "k", intervalMs, nowMs),
      slowDown: (untilMs: number) => pace.slowDown("broadband", "k", untilMs),
    };
    const pacer = new Pacer({ rate: 100, windowMs: 60_000 }, late, shared);
    const t0 = clock.now();
    for (let i = 0; i < 301; i++) await pacer.acquire();
    const perMinute = (300 / (clock.now() - t0)) * 60_000;
    expect(perMinute).toBeGreaterThan(97);
    expect(perMinute).toBeLessThanOrEqual(100);
  });

  it("returns false when aborted while waiting", async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ rate: 1, windowMs: 60_000 }, clock);
    await pacer.acquire();
    const ac = new AbortController();
    ac.abort();
    expect(await pacer.acquire(ac.signal)).toBe(false);
  });

  it("rejects a non-positive rate", () => {
    expect(() => new Pacer({ rate: 0, windowMs: 60_000 }, new FakeClock())).toThrow(/positive/);
  });
});

describe("backoffDelay (full jitter)", () => {
  it("grows exponentially up to the cap and scales with the random draw", () => {
    expect(backoffDelay(0, DEFAULT_BACKOFF, () => 0.999999)).toBe(499);
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 0.5)).toBe(2000);
    expect(backoffDelay(20, DEFAULT_BACKOFF, () => 0.999999)).toBe(29_999);
    expect(backoffDelay(5, DEFAULT_BACKOFF, () => 0)).toBe(0);
  });
});
