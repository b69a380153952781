// The team's clock offset from a few readings of the server's time: the surest reading (the
// shortest round trip) decides, and a difference the readings cannot tell is none.
import { describe, expect, test } from "vitest";
import type { Clock } from "../src/fetch/clock.js";
import { serverOffsetMs } from "../src/pipeline/team-clock.js";

/**
 * A local clock and a server whose time is `skewMs` ahead of it; each reading takes `trips[i]` ms
 * in all, the server's time read `at[i]` ms into it (the rest is the way back).
 */
function readings(skewMs: number, trips: number[], at: number[]) {
  let local = 1_800_000_000_000;
  let i = 0;
  const clock: Clock = { now: () => local, sleep: async () => {} };
  const store = {
    leases: {
      serverNow: async () => {
        const n = i++;
        local += at[n]!;
        const server = Math.floor(local + skewMs);
        local += trips[n]! - at[n]!;
        return server;
      },
    },
  } as unknown as Parameters<typeof serverOffsetMs>[0];
  return { clock, store, asked: () => i };
}

describe("serverOffsetMs", () => {
  test.each([
    // a first reading that opened the connection (40 ms, the server's time read at its end) misleads; the quick ones do not
    { what: "same clock, the first reading slow", skewMs: 0, trips: [40, 1, 1], at: [39, 0, 1], offset: 0 },
    { what: "same clock, every reading quick", skewMs: 0, trips: [2, 1, 2], at: [2, 1, 0], offset: 0 },
    { what: "a server 10 s ahead", skewMs: 10_000, trips: [40, 1, 1], at: [39, 0, 1], offset: 10_000 },
    { what: "a server 9.5 min behind", skewMs: -570_000, trips: [3, 2, 4], at: [1, 1, 2], offset: -570_000 },
    // 20 ms is more than any quick round trip hides: a real difference, kept
    { what: "a server 20 ms ahead", skewMs: 20, trips: [40, 2, 2], at: [39, 1, 1], offset: 20 },
  ])("$what: $offset ms", async ({ skewMs, trips, at, offset }) => {
    const { clock, store, asked } = readings(skewMs, trips, at);
    expect(await serverOffsetMs(store, clock)).toBe(offset);
    expect(asked()).toBe(3);
  });

  test("without a server's clock (SQLite): null, after one question", async () => {
    let asked = 0;
    const store = { leases: { serverNow: async () => (asked++, null) } } as unknown as Parameters<typeof serverOffsetMs>[0];
    expect(await serverOffsetMs(store, { now: () => 0, sleep: async () => {} })).toBeNull();
    expect(asked).toBe(1);
  });
});
