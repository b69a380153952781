// Team cases of the store contract, for every engine that lets many batches hold leases at once
// (PostgreSQL): several stores (as several machines would open them) on one database, working at
// once. Claims never overlap, an expired lease's claims go back, reserves never pass the limit
// together, and the shared pace never gives two slots closer than its interval.
import { afterEach, describe, expect, test } from "vitest";
import type { Store } from "../../src/store/store.js";
import { LeaseLostError } from "../../src/store/types.js";
import { ENGINES, type OpenedEngine } from "./engines.js";

const TEAM_ENGINES = ENGINES.filter((e) => !e.exclusiveLeases);
// without PostgreSQL no engine here qualifies: the file still names what it would test
if (TEAM_ENGINES.length === 0) test.skip("several machines on one store (no engine here lets batches hold leases side by side)", () => {});
const T0 = Date.parse("2026-11-23T02:17:00.000Z");
/** A clock read first at T0 (a transaction's start, in the lease), then at `resumedAt` (after a pause). */
function pausedClock(resumedAt: number): () => number {
  let calls = 0;
  return () => (calls++ === 0 ? T0 : resumedAt);
}
const postcodes = Array.from({ length: 300 }, (_, i) => `AB1${String(i).padStart(3, "0")}`);

describe.runIf(TEAM_ENGINES.length > 0).each(TEAM_ENGINES)("several machines on one store: $name", (engine) => {
  const opened: OpenedEngine[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((e) => e.cleanup()));
  });

  /** `n` stores on one new database, each with a lease (host machine-<i>, so none is judged by pid) and a run. */
  async function machines(n: number, ttlMs = 60_000) {
    const e = await engine.open({ isAlive: () => true });
    opened.push(e);
    const out: { store: Store; leaseId: number; runId: number }[] = [];
    for (let i = 0; i < n; i++) {
      const store = i === 0 ? e.store : await e.second();
      const { lease } = await store.leases.take({ host: `machine-${i}`, pid: 1000 + i, process: null }, T0, ttlMs);
      const runId = await store.runs.create({ startedAt: new Date(T0).toISOString(), simulated: true, inputName: "in.csv", args: {}, lookups: ["broadband"], providers: [], leaseId: lease.id });
      out.push({ store, leaseId: lease.id, runId });
    }
    return out;
  }

  test("three machines claiming one list at once never hold the same pair, and between them hold all of it", async () => {
    const team = await machines(3);
    const plannedAt = new Date(T0).toISOString();
    // each claims in chunks of 50, in its own order, all at once
    const claimed = await Promise.all(
      team.map(async (m, i) => {
        const mine: string[] = [];
        const order = i === 1 ? [...postcodes].reverse() : postcodes;
        for (let c = 0; c < order.length; c += 50) {
          const r = await m.store.claims.claim({ leaseId: m.leaseId, runId: m.runId, lookup: "broadband", postcodes: order.slice(c, c + 50), plannedAt, nowMs: T0 + 1 });
          expect(r.fetchedSince).toEqual([]);
          expect([...r.claimed, ...r.heldElsewhere].sort()).toEqual(order.slice(c, c + 50).sort());
          mine.push(...r.claimed);
        }
        return mine;
      }),
    );
    const all = claimed.flat();
    expect(all.length).toBe(postcodes.length);
    expect(new Set(all).size).toBe(postcodes.length);
  });

  test("a lease that expires gives its claims back: another machine claims them then, not before", async () => {
    const [a, b] = await machines(2, 30_000);
    const plannedAt = new Date(T0).toISOString();
    const list = postcodes.slice(0, 20);
    expect((await a!.store.claims.claim({ leaseId: a!.leaseId, runId: a!.runId, lookup: "broadband", postcodes: list, plannedAt, nowMs: T0 })).claimed).toEqual(list);
    const before = await b!.store.claims.claim({ leaseId: b!.leaseId, runId: b!.runId, lookup: "broadband", postcodes: list, plannedAt, nowMs: T0 + 29_999 });
    expect(before).toEqual({ claimed: [], heldElsewhere: list, fetchedSince: [] });
    // b renews its own lease; a (killed) does not
    expect(await b!.store.leases.renew(b!.leaseId, T0 + 29_999, 30_000)).toBe(true);
    const after = await b!.store.claims.claim({ leaseId: b!.leaseId, runId: b!.runId, lookup: "broadband", postcodes: list, plannedAt, nowMs: T0 + 30_001 });
    expect(after).toEqual({ claimed: list, heldElsewhere: [], fetchedSince: [] });
    expect((await b!.store.leases.live(T0 + 30_001)).map((l) => l.holder.host)).toEqual(["machine-1"]);
    // and a's run is abandoned once its lease is gone; b's runs on
    expect(await b!.store.runs.abandonOrphans(new Date(T0 + 30_001).toISOString(), T0 + 30_001)).toBe(1);
    expect((await b!.store.runs.facts(a!.runId))!.state).toBe("abandoned");
    expect((await b!.store.runs.facts(b!.runId))!.state).toBe("running");
  });

  test("two machines storing the same answers at once (pairs neither claimed) both succeed, and each pair has one version", async () => {
    const [a, b] = await machines(2);
    const list = postcodes.slice(0, 60);
    const record = (postcode: string, runId: number) => ({
      postcode, lookup: "broadband" as const, status: "ok" as const, httpStatus: 200, attempts: 1, lastError: null, fetchedAt: new Date(T0 + 1).toISOString(), runId,
      answer: { lookup: "broadband" as const, dataset: null, addresses: [1, 2, 3].map((u) => ({ uprn: u, address: `${u} Mill Lane`, speeds: [10, 1, 10, 1, -1, -1, 10, 1] })) },
    });
    await Promise.all(
      [a!, b!].map(async (m, i) => {
        const w = await m.store.answers.openWriter({ providers: [] });
        // in opposite orders, several turns each
        for (const [n, p] of (i === 0 ? list : [...list].reverse()).entries()) {
          w.write(record(p, m.runId));
          if (n % 7 === 6) await new Promise((r) => setImmediate(r));
        }
        await w.flush();
      }),
    );
    for (const p of [list[0]!, list[29]!, list[59]!]) {
      expect((await a!.store.answers.versions(p, "broadband")).map((v) => v.addressCount)).toEqual([3]);
      expect(await b!.store.answers.get(p, "broadband")).toMatchObject({ status: "ok", addressCount: 3, versionId: expect.any(Number) });
    }
  });

  test("a machine paused in the middle of a group's transaction, past its lease, commits nothing when it resumes: the COMMIT carries the fence", async () => {
    const [a, b] = await machines(2);
    const expiresMs = T0 + 60_000;
    const record = (runId: number) => ({
      postcode: "AB1000", lookup: "broadband" as const, status: "ok" as const, httpStatus: 200, attempts: 1, lastError: null, fetchedAt: new Date(T0 + 1).toISOString(), runId,
      answer: { lookup: "broadband" as const, dataset: null, addresses: [{ uprn: 1, address: "1 Mill Lane", speeds: [10, 1, 10, 1, -1, -1, 10, 1] }] },
    });
    // the group's first statement is made at T0, in the lease; its COMMIT after a pause past the lease
    const pausedAt = (resumedAt: number) => ({ id: a!.leaseId, now: pausedClock(resumedAt) });
    const w = await a!.store.answers.openWriter({ providers: [], lease: pausedAt(expiresMs) });
    w.write(record(a!.runId));
    await expect(w.flush()).rejects.toBeInstanceOf(LeaseLostError);
    expect(await b!.store.answers.get("AB1000", "broadband")).toBeNull();
    // the same group resumed a millisecond before the lease's end commits
    const inTime = await a!.store.answers.openWriter({ providers: [], lease: pausedAt(expiresMs - 1) });
    inTime.write(record(a!.runId));
    await inTime.flush();
    expect(await b!.store.answers.get("AB1000", "broadband")).toMatchObject({ status: "ok", runId: a!.runId });
  });

  test("a machine paused while accepting its input, past its lease, keeps none of it when it resumes", async () => {
    const [a] = await machines(1);
    const expiresMs = T0 + 60_000;
    const accepting = async (resumedAt: number) => {
      const w = await a!.store.inputRows.openWriter(a!.runId);
      for (const [i, p] of postcodes.slice(0, 5).entries()) await w.add({ line: i + 2, value: p, postcode: p, reason: null, cells: [p] });
      return w.accept({ id: a!.leaseId, now: pausedClock(resumedAt) });
    };
    await expect(accepting(expiresMs)).rejects.toBeInstanceOf(LeaseLostError);
    expect(await a!.store.inputRows.counts(a!.runId)).toEqual({ input: 0, invalid: 0 });
    await accepting(expiresMs - 1);
    expect(await a!.store.inputRows.counts(a!.runId)).toEqual({ input: 5, invalid: 0 });
  });

  test("four machines reserving at once never pass the month's limit together, and what one gives back unsent returns", async () => {
    const team = await machines(4);
    const grants = await Promise.all(
      team.map(async (m) => {
        let got = 0;
        for (let i = 0; i < 15; i++) got += (await m.store.ledger.reserve({ leaseId: m.leaseId, lookup: "mobile", period: "2026-11-01", n: 7, limit: 250, nowMs: T0 })).granted;
        return got;
      }),
    );
    expect(grants.reduce((a, b) => a + b, 0)).toBe(250);
    expect(await team[0]!.store.ledger.used("mobile", "2026-11-01", T0)).toBe(250);
    // one machine sends 3 of what it reserved, then ends giving back the rest: free again, and its release keeps the 3
    const w = await team[0]!.store.answers.openWriter({ providers: [], simulated: true });
    for (let i = 0; i < 3; i++) w.request({ lookup: "mobile", status: 200, at: new Date(T0).toISOString(), period: "2026-11-01", runId: team[0]!.runId, leaseId: team[0]!.leaseId });
    await w.flush();
    expect(await team[1]!.store.ledger.used("mobile", "2026-11-01", T0)).toBe(250);
    await team[0]!.store.ledger.giveBack({ leaseId: team[0]!.leaseId, lookup: "mobile", n: grants[0]! - 3 });
    await team[0]!.store.leases.release(team[0]!.leaseId);
    expect(await team[1]!.store.ledger.used("mobile", "2026-11-01", T0)).toBe(250 - grants[0]! + 3);
    expect((await team[1]!.store.ledger.figures("2026-11-01", T0)).used).toEqual({ broadband: 0, mobile: 250 - grants[0]! + 3 });
  });

  test("two machines sharing a key get start slots at least the interval apart; a 429 or a quota block seen by one holds the other", async () => {
    const [a, b] = await machines(2);
    const interval = 600; // 100 a minute
    const slots = (
      await Promise.all([a!, b!].map(async (m) => {
        const mine: number[] = [];
        for (let i = 0; i < 40; i++) mine.push((await m.store.pace.nextSlot("broadband", "k1", interval, T0)).startAtMs);
        return mine;
      }))
    ).flat().sort((x, y) => x - y);
    expect(slots[0]).toBe(T0);
    for (let i = 1; i < slots.length; i++) expect(slots[i]! - slots[i - 1]!).toBe(interval);
    // a fast --rate's interval is a fraction of a millisecond, and is kept as one
    const fast = [await a!.store.pace.nextSlot("broadband", "k3", 0.606, T0), await b!.store.pace.nextSlot("broadband", "k3", 0.606, T0)];
    expect(fast[1]!.startAtMs - fast[0]!.startAtMs).toBeCloseTo(0.606, 3);
    // another key has its own pace
    expect((await a!.store.pace.nextSlot("broadband", "k2", interval, T0)).startAtMs).toBe(T0);
    // a 429 seen by a: b's next slot waits for it
    const last = slots.at(-1)!;
    await a!.store.pace.slowDown("broadband", "k1", last + 60_000);
    expect(await b!.store.pace.nextSlot("broadband", "k1", interval, T0)).toEqual({ startAtMs: last + 60_000, blockedUntilMs: null });
    // a 403 "replenished in": nobody sends before it
    await b!.store.pace.block("mobile", "k1", T0 + 3_600_000);
    expect(await a!.store.pace.nextSlot("mobile", "k1", interval, T0 + 1000)).toEqual({ startAtMs: T0 + 3_600_000, blockedUntilMs: T0 + 3_600_000 });
  });
});
