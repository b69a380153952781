// The lease's renewal timer and the quota's reserving gate, each on an injected timer or ledger.
import { describe, expect, it } from "vitest";
import { keepLease, type Every } from "../src/store/lease-keeper.js";
import { QuotaGate, RESERVE_CHUNK } from "../src/pipeline/quota-gate.js";
import { useTempDatabase } from "./helpers/temp-database.js";

const t = useTempDatabase("pcc-lease-");

/** A timer the test ticks by hand. */
function manualTimer(): { every: Every; tick(): void; period: number | null; stopped: boolean } {
  const timer = {
    period: null as number | null,
    stopped: false,
    tick: () => {},
    every: ((ms, tick) => {
      timer.period = ms;
      timer.tick = tick;
      return () => void (timer.stopped = true);
    }) as Every,
  };
  return timer;
}

const settle = () => new Promise((r) => setImmediate(r));

describe("lease keeper", () => {
  it("renews every third of the lease's life; says once when the lease was lost", async () => {
    let now = 1_000_000;
    const { lease } = await t.store.leases.take({ host: "elsewhere", pid: 1, process: null }, now, 90_000);
    const timer = manualTimer();
    let lost = 0;
    const keeper = keepLease(t.store, lease.id, { ttlMs: 90_000, now: () => now, every: timer.every, onLost: () => lost++ });
    expect(timer.period).toBe(30_000);
    now += 30_000;
    timer.tick();
    await settle();
    expect((await t.store.leases.live(now + 89_999)).map((l) => l.id)).toEqual([lease.id]);
    // taken over by another batch after it expired: the keeper finds it gone
    await t.store.leases.release(lease.id);
    timer.tick();
    await settle();
    timer.tick();
    await settle();
    expect(lost).toBe(1);
    keeper.stop();
    expect(timer.stopped).toBe(true);
  });
});

describe("quota gate", () => {
  it("reserves in chunks, one reservation for many requests, and says no once the ledger grants none", async () => {
    const asked: number[] = [];
    let left = 60;
    const reserve = async (n: number) => {
      asked.push(n);
      const granted = Math.min(n, left);
      left -= granted;
      return { granted, left };
    };
    const gate = new QuotaGate({ reserve, giveBack: async () => {}, current: () => "2026-11-01" });
    const taken = await Promise.all(Array.from({ length: 70 }, () => gate.take()));
    expect(taken.filter(Boolean)).toHaveLength(60);
    expect(taken.slice(0, 60).every(Boolean)).toBe(true);
    // 60 granted in chunks of RESERVE_CHUNK, then one reservation that granted none
    expect(asked).toEqual([RESERVE_CHUNK, RESERVE_CHUNK, RESERVE_CHUNK, RESERVE_CHUNK]);
    expect(await gate.take()).toBe(false);
    expect(asked).toHaveLength(4);
  });
});
