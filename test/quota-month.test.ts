// Issue 12 end to end: the nightly batch over simulated months (an injected clock, no sleeping)
// with --monthly-quota 100 on a 140-postcode list fetched the month before, 10 postcodes added on
// March 8 and a new release arriving on March 12.
import { copyFileSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generatePostcodes, startSimulator, type Simulator } from "../src/simulator/index.js";
import { openStore } from "../src/store/open-store.js";
import { quotaPeriod } from "../src/plan/quota-plan.js";
import { quotaStatus } from "../src/plan/quota-status.js";
import { LOOKUPS, type Lookup } from "../src/contract/fields.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { FakeClock } from "./helpers/fake-clock.js";
import { storedTable, withStore } from "./helpers/stored.js";

const KEY = "quota-key-71c0-Tw5";
const SEED = 13;
const QUOTA = 100;
const env = { COVERAGE_API_KEY: KEY };
const DAY = 24 * 3600 * 1000;
const d = tempDir("pcc-quota-");
afterAll(() => rmSync(d, { recursive: true, force: true }));

describe("quota planner over a month", () => {
  it("never exceeds the quota, fetches new postcodes the night they appear, spreads refreshes, moves to a new release oldest first as status predicted", async () => {
    const all = generatePostcodes(SEED, 140);
    const [initial, added] = [all.slice(0, 130), all.slice(130)];
    const input = (list: string[]) => writeCsv(d, "in.csv", ["postcode", ...list]);
    const dbPath = join(d, "coverage.sqlite");
    /** Requests the ledger counts for the lookup in the calendar-month period starting `key`. */
    const used = (lookup: Lookup, key: string) => withStore(dbPath, (store) => store.ledger.used(lookup, key, clock.t));
    const clock = new FakeClock(Date.parse("2026-02-01T02:00:00Z"));
    let sim: Simulator = await startSimulator({ port: 0, seed: SEED, key: KEY, release: 1 });
    try {
      // the month before: everything fetched without a quota
      expect((await runIn(d, { in: input(initial), baseUrl: sim.url, probe: 0, reports: false }, env, { clock })).exitCode).toBe(0);

      /** The stored answers of the lookup not on its newest release. */
      const stale = (lookup: Lookup) =>
        withStore(dbPath, async (store) => {
          const newest = (await store.releases.newest(lookup))?.name ?? null;
          const out: { postcode: string; fetched_at: string }[] = [];
          for (const p of all) {
            const answer = await store.answers.get(p.replace(" ", ""), lookup);
            if (answer && answer.release !== newest) out.push({ postcode: answer.postcode, fetched_at: answer.fetchedAt });
          }
          return out;
        });
      const releases = async (lookup: Lookup) => (await storedTable(dbPath, "releases")).filter((r) => r.lookup === lookup).length;
      const detected: Partial<Record<Lookup, string>> = {};
      const predicted: Partial<Record<Lookup, string>> = {};
      const finished: Partial<Record<Lookup, string>> = {};
      const refreshSpend: Record<Lookup, number[]> = { broadband: [], mobile: [] };
      const nightsDeferring: Record<Lookup, number> = { broadband: 0, mobile: 0 };

      for (let night = 0; night < 75 && !(finished.broadband && finished.mobile); night++) {
        clock.t = Date.parse("2026-03-01T02:00:00Z") + night * DAY;
        const date = new Date(clock.t).toISOString().slice(0, 10);
        if (date === "2026-03-12") {
          await sim.close();
          sim = await startSimulator({ port: 0, seed: SEED, key: KEY, release: 2 });
        }
        const list = date >= "2026-03-08" ? all : initial;
        const before = { broadband: await stale("broadband"), mobile: await stale("mobile") };
        const period = quotaPeriod(clock.t).key;
        const usedBefore = { broadband: await used("broadband", period), mobile: await used("mobile", period) };
        const r = await runIn(d, { in: input(list), baseUrl: sim.url, monthlyQuota: String(QUOTA), maxAge: "60d", retention: "none", reports: false }, env, { clock });
        // every postcode has an answer: deferred refreshes do not make a failure; the summary counts them
        expect(r.exitCode, `exit on ${date}`).toBe(0);
        const summary = r.logs.map((l) => JSON.parse(l) as { event?: string; deferredRefreshes?: Record<Lookup, number> }).find((e) => e.event === "summary")!;
        for (const lookup of LOOKUPS) nightsDeferring[lookup] += summary.deferredRefreshes![lookup] > 0 ? 1 : 0;

        for (const lookup of LOOKUPS) {
          // what the ledger recorded tonight (one run at a time, all in tonight's period)
          const sent = (await used(lookup, period)) - usedBefore[lookup];
          if (date === "2026-03-08") {
            // the 20 new postcodes are fetched the night they appear
            const fetched = (await storedTable(dbPath, "postcodes")).filter((x) => x.lookup === lookup && x.run_id === r.runId).map((x) => x.postcode);
            for (const p of added) expect(fetched).toContain(p.replace(" ", ""));
            refreshSpend[lookup].push(sent - added.length);
          } else refreshSpend[lookup].push(sent);

          // the new release: oldest answers first, then exactly as status predicted
          const was = before[lookup];
          const now = new Set((await stale(lookup)).map((x) => x.postcode));
          if ((await releases(lookup)) === 2 && was.length > 0) {
            const moved = was.filter((x) => !now.has(x.postcode));
            const waiting = was.filter((x) => now.has(x.postcode));
            if (moved.length > 0 && waiting.length > 0)
              expect(moved.map((x) => x.fetched_at).sort().at(-1)! <= waiting.map((x) => x.fetched_at).sort()[0]!).toBe(true);
          }
          if (!detected[lookup] && (await releases(lookup)) === 2) {
            detected[lookup] = date;
            const store = await openStore(dbPath, { readonly: true });
            try {
              predicted[lookup] = (await quotaStatus(store, clock.t + 3600_000)).find((q) => q.lookup === lookup)!.finishDate!;
            } finally {
              await store.close();
            }
          }
          if (detected[lookup] && !finished[lookup] && now.size === 0) finished[lookup] = date;
        }
      }

      // the ledger never exceeds the quota in any period
      const months = [...new Set(Array.from({ length: Math.round((clock.t - Date.parse("2026-03-01T02:00:00Z")) / DAY) + 1 }, (_, i) => quotaPeriod(Date.parse("2026-03-01T02:00:00Z") + i * DAY).key))];
      const periods: { period: string; lookup: string; n: number }[] = [];
      for (const period of months) for (const lookup of LOOKUPS) periods.push({ period, lookup, n: await used(lookup, period) });
      // every request of these nights is in one of their periods
      expect(periods.reduce((sum, p) => sum + p.n, 0)).toBe(LOOKUPS.reduce((sum, l) => sum + refreshSpend[l].reduce((a, b) => a + b, 0), 0) + 2 * added.length);
      expect(periods.length).toBeGreaterThanOrEqual(4);
      for (const p of periods) expect(p.n, `${p.lookup} in ${p.period}`).toBeLessThanOrEqual(QUOTA);
      // and spends nearly all of March's
      for (const p of periods.filter((x) => x.period === "2026-03-01")) expect(p.n).toBeGreaterThanOrEqual(QUOTA - 31);

      // refreshes spread evenly: each night spends about quota / days
      // the night the new postcodes appear (8 March), their mobile answers name the release: no probe that night
      expect(refreshSpend.mobile[7]).toBe(0);
      for (const lookup of LOOKUPS) {
        const march = refreshSpend[lookup].slice(0, 31).filter((_, i) => lookup === "broadband" || i !== 7);
        // within one of the even share (3.2), the nights after the new postcodes a little less
        expect(Math.min(...march), `${lookup} March nights ${march.join(",")}`).toBeGreaterThanOrEqual(Math.floor(QUOTA / 31) - 1);
        expect(Math.max(...march)).toBeLessThanOrEqual(Math.ceil(QUOTA / 31));
      }

      // the release's refreshes did not fit one night: the summaries said so on the nights they waited
      for (const lookup of LOOKUPS) expect(nightsDeferring[lookup], lookup).toBeGreaterThan(0);

      // the release was seen (mobile the night it arrived), and status predicted the last night within a day
      expect(detected.mobile).toBe("2026-03-12");
      for (const lookup of LOOKUPS) {
        expect(finished[lookup], lookup).toBeDefined();
        const gap = Math.abs(Date.parse(finished[lookup]!) - Date.parse(predicted[lookup]!)) / DAY;
        expect(gap, `${lookup}: predicted ${predicted[lookup]}, finished ${finished[lookup]}`).toBeLessThanOrEqual(1);
      }
    } finally {
      await sim.close();
    }
  }, 120_000);

  it("exits 3 while postcodes wait for the quota, sends nothing once the period's quota is spent, and 0 when all have an answer", async () => {
    const e = tempDir("pcc-quota3-");
    try {
      const file = writeCsv(e, "in.csv", ["postcode", ...generatePostcodes(SEED + 1, 30)]);
      const clock = new FakeClock(Date.parse("2026-05-30T02:00:00Z"));
      const sim = await startSimulator({ port: 0, seed: SEED, key: KEY });
      try {
        const flags = { in: file, baseUrl: sim.url, monthlyQuota: "broadband=20", lookups: "broadband", reports: false };
        const first = await runIn(e, flags, env, { clock });
        expect(first.exitCode).toBe(3);
        expect(first.counts).toMatchObject({ requests: 20, pending: 10 });
        expect(first.logs.join("\n")).toMatch(/broadband: monthly quota 20, 0 used this period \(since 2026-05-01\).*10 postcodes without an answer wait for the quota/);
        clock.t += DAY;
        const spent = await runIn(e, flags, env, { clock });
        expect(spent.exitCode).toBe(3);
        expect(spent.counts!.requests).toBe(0);
        expect(sim.counters.total).toBe(20);
        // June: a new period; the 10 first, then the even share for probes (10 left over 30 nights: none)
        clock.t += 2 * DAY;
        const june = await runIn(e, flags, env, { clock });
        expect(june.exitCode).toBe(0);
        expect(june.counts).toMatchObject({ requests: 10, pending: 0 });
      } finally {
        await sim.close();
      }
    } finally {
      rmSync(e, { recursive: true, force: true });
    }
  });

  it("a --refresh under the quota is spread over the nights and continues where it stopped", async () => {
    const e = tempDir("pcc-quota-refresh-");
    try {
      const file = writeCsv(e, "in.csv", ["postcode", ...generatePostcodes(SEED + 2, 30)]);
      const clock = new FakeClock(Date.parse("2026-05-25T02:00:00Z"));
      const sim = await startSimulator({ port: 0, seed: SEED, key: KEY });
      try {
        const base = { in: file, baseUrl: sim.url, lookups: "broadband", reports: false };
        expect((await runIn(e, { ...base, probe: 0 }, env, { clock })).counts!.requests).toBe(30);
        // 60 a month, 30 used: 30 left over the 6 nights from 26 May, 5 a night, each postcode once
        const nights: number[] = [];
        for (let night = 1; night <= 6; night++) {
          clock.t += DAY;
          const r = await runIn(e, { ...base, refresh: true, monthlyQuota: "60" }, env, { clock });
          expect(r.exitCode).toBe(0);
          nights.push(r.counts!.requests);
        }
        expect(nights).toEqual([5, 5, 5, 5, 5, 5]);
        expect((await storedTable(join(e, "coverage.sqlite"), "postcodes")).filter((l) => (l.fetched_at as string) < "2026-05-26")).toHaveLength(0);
        // no refresh is left in progress: asked on a copy, the store starts a new one now rather than continuing one
        for (const end of ["", "-wal"]) if (existsSync(join(e, `coverage.sqlite${end}`))) copyFileSync(join(e, `coverage.sqlite${end}`), join(e, `copy.sqlite${end}`));
        expect(await withStore(join(e, "copy.sqlite"), (store) => store.plan.refreshMark("broadband", "now", 1), {})).toBe("now");
      } finally {
        await sim.close();
      }
    } finally {
      rmSync(e, { recursive: true, force: true });
    }
  });
});
