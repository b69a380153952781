// The pacer with a shared pace (the store's, per lookup and key): two batches using one key draw
// no more than its rate together, a 429 one of them meets pauses both, and a quota block seen by
// one stops the other's lookup. Two pacers on one clock play the two batches.
import { describe, expect, it } from "vitest";
import { Pacer, type SharedPace } from "../src/fetch/pacer.js";
import { memoryPace } from "../src/store/memory-pace.js";
import { keyId } from "../src/store/key-id.js";
import { FakeClock, TimerClock } from "./helpers/fake-clock.js";

function shared(): (lookup: "broadband" | "mobile") => SharedPace {
  const pace = memoryPace();
  const id = keyId("one-key");
  return (lookup) => ({ nextSlot: (i, n) => pace.nextSlot(lookup, id, i, n), slowDown: (u) => pace.slowDown(lookup, id, u) });
}

describe("shared pace", () => {
  it("two pacers on one key take turns at the key's rate, not each at the full rate", async () => {
    const clock = new FakeClock();
    const bind = shared();
    const a = new Pacer({ rate: 100, windowMs: 60_000, marginMs: 0 }, clock, bind("broadband"));
    const b = new Pacer({ rate: 100, windowMs: 60_000, marginMs: 0 }, clock, bind("broadband"));
    const starts: number[] = [];
    for (let i = 0; i < 50; i++)
      for (const p of [a, b]) {
        expect(await p.acquire()).toBe(true);
        starts.push(clock.now());
      }
    const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
    // 100 a minute between them: 600 ms apart, never closer
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(600);
    expect(starts.at(-1)! - starts[0]!).toBe(99 * 600);
  });

  it("a slot one machine reaches late (its loop was busy) is given up: no server window ever holds one request too many", async () => {
    // 100 per 5 s with the default margin (50 ms); every 10th wake-up of one machine comes 70 ms
    // late while the other keeps the schedule
    const clock = new TimerClock();
    let sleeps = 0;
    const busy = { now: () => clock.now(), sleep: (ms: number) => clock.sleep(++sleeps % 10 === 0 ? ms + 70 : ms) };
    const bind = shared();
    const starts: number[] = [];
    const machine = async (pacer: Pacer) => {
      for (let i = 0; i < 300; i++) {
        expect(await pacer.acquire()).toBe(true);
        starts.push(clock.now());
      }
    };
    const a = new Pacer({ rate: 100, windowMs: 5_000 }, busy, bind("mobile"));
    const b = new Pacer({ rate: 100, windowMs: 5_000 }, clock, bind("mobile"));
    await clock.run(Promise.all([machine(a), machine(b)]));
    starts.sort((x, y) => x - y);
    // the server's count: a start is inside the window of any start a window or less after it
    const fullest = Math.max(...starts.map((t) => starts.filter((u) => u > t - 5_000 && u <= t).length));
    expect(fullest).toBeLessThanOrEqual(100);
    // and the late slots cost little of the rate
    const perWindow = ((starts.length - 1) / (starts.at(-1)! - starts[0]!)) * 5_000;
    expect(perWindow).toBeGreaterThan(97);
  });

  it("a loop late at every wake-up takes its third slot however late, rather than asking for ever", async () => {
    const clock = new FakeClock();
    const overshooting = { now: () => clock.now(), sleep: (ms: number) => clock.sleep(ms + 100) };
    const asked: number[] = [];
    // every slot is 10 ms ahead: another machine keeps taking the one before
    const ahead: SharedPace = { nextSlot: async (_i, n) => (asked.push(n), { startAtMs: n + 10, blockedUntilMs: null }), slowDown: async () => {} };
    const pacer = new Pacer({ rate: 100, windowMs: 5_000 }, overshooting, ahead);
    const t0 = clock.now();
    expect(await pacer.acquire()).toBe(true);
    // each ask after the first is at the late wake-up's time: 110 ms after the one before
    expect(asked.map((t) => t - t0)).toEqual([0, 110, 220]);
  });

  it("a 429 met by one pauses the other; a quota block says so", async () => {
    const clock = new FakeClock();
    const pace = memoryPace();
    const id = keyId("one-key");
    const bind = (): SharedPace => ({ nextSlot: (i, n) => pace.nextSlot("mobile", id, i, n), slowDown: (u) => pace.slowDown("mobile", id, u) });
    const a = new Pacer({ rate: 100, windowMs: 60_000, marginMs: 0 }, clock, bind());
    const b = new Pacer({ rate: 100, windowMs: 60_000, marginMs: 0 }, clock, bind());
    expect(await a.acquire()).toBe(true);
    const t = clock.now();
    a.throttled(t + 30_000);
    expect(await b.acquire()).toBe(true);
    expect(clock.now()).toBe(t + 30_000);
    await pace.block("mobile", id, clock.now() + 3_600_000);
    expect(await b.acquire()).toBe("blocked");
  });
});
