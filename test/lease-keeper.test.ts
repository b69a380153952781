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

describe("lease keeper asked between a stage's steps", () => {
  it("renews once a third of the lease's life has passed since the last renewal, and at once after one that failed", async () => {
    let now = 1_000_000;
    const { lease } = await t.store.leases.take({ host: "elsewhere", pid: 1, process: null }, now, 90_000);
    const sent: number[] = [];
    let failNext = false;
    const leases: typeof t.store.leases = {
      ...t.store.leases,
      renew: (id, nowMs, ttlMs) => {
        sent.push(nowMs);
        if (failNext) {
          failNext = false;
          return Promise.reject(new Error("database is locked"));
        }
        return t.store.leases.renew(id, nowMs, ttlMs);
      },
    };
    const errors: unknown[] = [];
    const keeper = keepLease({ leases }, lease.id, { ttlMs: 90_000, now: () => now, every: manualTimer().every, onLost: () => {}, onError: (e) => errors.push(e) });
    now += 29_999;
    await keeper.renewIfDue();
    expect(sent).toEqual([]);
    now += 1;
    await keeper.renewIfDue();
    expect(sent).toEqual([1_030_000]);
    now += 30_000;
    failNext = true;
    await keeper.renewIfDue();
    expect(errors).toHaveLength(1);
    now += 1;
    await keeper.renewIfDue();
    expect(sent).toEqual([1_030_000, 1_060_000, 1_060_001]);
    expect((await t.store.leases.live(1_060_001 + 89_999)).map((l) => l.id)).toEqual([lease.id]);
    keeper.stop();
    now += 60_000;
    await keeper.renewIfDue();
    expect(sent).toHaveLength(3);
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
