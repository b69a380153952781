// The pipeline's side of fencing: once the run's lease is lost, its claimed chunk and its quota
// grant are spent no more, and a refusal by the database or a pause past the lease loses it.
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ClaimedPairs } from "../src/pipeline/claimed-pairs.js";
import { LeaseFence } from "../src/pipeline/lease-fence.js";
import { QuotaGate } from "../src/pipeline/quota-gate.js";
import { DEFAULT_PROVIDERS } from "../src/contract/fields.js";
import { openStore } from "../src/store/open-store.js";
import { LeaseLostError } from "../src/store/types.js";
import { tempDir } from "./helpers/batch-harness.js";
import { FakeClock } from "./helpers/fake-clock.js";

function fenceAt(ttlMs: number) {
  let t = 0;
  const lost: string[] = [];
  const fence = new LeaseFence(ttlMs, (why) => lost.push(why), () => t);
  return { fence, lost, advance: (ms: number) => (t += ms) };
}

describe("LeaseFence", () => {
  test("holds while renewed within the lease's time to live; a pause past it loses the lease, said once", () => {
    const f = fenceAt(3_000);
    f.advance(2_000);
    f.fence.renewed(f.fence.mark());
    f.advance(2_999);
    expect(f.fence.lost).toBe(false);
    f.advance(2_000);
    expect(f.fence.lost).toBe(true);
    expect(f.fence.lost).toBe(true);
    expect(f.lost).toEqual([expect.stringMatching(/not renewed within its time to live/)]);
  });

  test("a write the database refused loses the lease and stands in the fallback; other failures pass through", async () => {
    const f = fenceAt(60_000);
    await expect(f.fence.guard(() => Promise.reject(new Error("disk full")), 0)).rejects.toThrow("disk full");
    expect(f.fence.knownLost).toBe(false);
    expect(await f.fence.guard(() => Promise.reject(new LeaseLostError(7)), 0)).toBe(0);
    expect(f.fence.knownLost).toBe(true);
    expect(f.lost).toEqual([expect.stringMatching(/database refused a write/)]);
  });
});

test("the quota gate spends no more of its grant once the lease is lost, and reserves no more", async () => {
  const f = fenceAt(60_000);
  const asked: number[] = [];
  const gate = new QuotaGate({ reserve: async (n) => (asked.push(n), { granted: n, left: 100 }), giveBack: async () => {}, current: () => "2026-11-01" }, f.fence);
  expect(await gate.take()).toBe(true);
  expect(await gate.take()).toBe(true);
  f.fence.lose("taken over");
  expect(await gate.take()).toBe(false);
  expect(asked).toEqual([25]);
});

test("the claimed pairs' source hands out no more of its chunk once the lease is lost", async () => {
  const store = await openStore(join(tempDir(), "c.sqlite"));
  try {
    const clock = new FakeClock();
    const { lease } = await store.leases.take({ host: "here", pid: 1, process: null }, clock.now(), 60_000);
    const runId = await store.runs.create({ startedAt: new Date(clock.now()).toISOString(), simulated: false, inputName: "in.csv", args: {}, lookups: ["broadband"], providers: [...DEFAULT_PROVIDERS], leaseId: lease.id });
    await store.answers.prepareProviders(DEFAULT_PROVIDERS);
    const writer = await store.answers.openWriter({ providers: DEFAULT_PROVIDERS });
    const f = fenceAt(60_000);
    const pairs = new ClaimedPairs(["AA11AA", "BB11BB", "CC11CC", "DD11DD"], {
      store,
      writer,
      leaseId: lease.id,
      runId,
      lookup: "broadband",
      plannedAt: new Date(clock.now()).toISOString(),
      clock,
      pollMs: 100,
      signal: new AbortController().signal,
      fence: f.fence,
    });
    const handed: string[] = [];
    for await (const p of pairs) {
      handed.push(p);
      if (handed.length === 2) f.fence.lose("taken over");
    }
    expect(handed).toEqual(["AA11AA", "BB11BB"]);
  } finally {
    await store.close();
  }
});
