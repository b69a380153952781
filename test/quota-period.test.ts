// The quota period the plan really has: the Basic plan's "50,000 requests in 28 days" as
// --quota-period 28 from --quota-start, over a month of nights on an injected clock, against the
// default calendar month.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { generatePostcodes, startSimulator } from "../src/simulator/index.js";
import { openStore } from "../src/store/open-store.js";
import { allowance, quotaPeriod, runsLeft, type PeriodRule } from "../src/plan/quota-plan.js";
import { quotaStatus } from "../src/plan/quota-status.js";
import { formatQuotaStatus } from "../src/cli/status-text.js";
import { buildConfig } from "../src/cli/batch-config.js";
import { storedRules } from "../src/plan/quota-period.js";
import { answerPaces } from "../src/plan/answer-pace.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { FakeClock } from "./helpers/fake-clock.js";
import { withStore } from "./helpers/stored.js";
import { dropPostgresDatabase, freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";
import { grantStep, QuotaGate, RESERVE_CHUNK, type Grant } from "../src/pipeline/quota-gate.js";
import { startRunQuota, type QuotaSettings } from "../src/pipeline/quota.js";
import { StopControl } from "../src/fetch/stop.js";
import { createLogger } from "../src/log/logger.js";
import type { Store } from "../src/store/store.js";

const KEY = "qp-7a1c-Hb20-93xe-L0pz";
const SEED = 17;
const QUOTA = 40;
const env = { COVERAGE_API_KEY: KEY };
const DAY = 24 * 3600 * 1000;
const MARCH_1 = Date.parse("2026-03-01T02:00:00Z");
const dirs: string[] = [];
const postgres = requiresPostgres();
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/**
 * Nights from March 1; per night, the requests the ledger recorded (in the period of that night
 * under `rule`, the rule the flags give); the periods whose ledger holds requests, when every
 * request the runs sent is in one of the periods the nights fell in.
 */
async function nights(count: number, period: Record<string, string>, rule: PeriodRule): Promise<{ sent: number[]; keys: string[]; status: string }> {
  const d = tempDir("pcc-period-");
  dirs.push(d);
  const input = writeCsv(d, "in.csv", ["postcode", ...generatePostcodes(SEED, 60)]);
  const sim = await startSimulator({ port: 0, seed: SEED, key: KEY });
  const clock = new FakeClock(MARCH_1);
  const sent: number[] = [];
  let requests = 0;
  const dbPath = join(d, "coverage.sqlite");
  const used = (key: string) => withStore(dbPath, (store) => store.ledger.used("broadband", key, clock.t));
  let status = "";
  try {
    for (let night = 0; night < count; night++) {
      clock.t = MARCH_1 + night * DAY;
      const flags = { in: input, baseUrl: sim.url, lookups: "broadband", monthlyQuota: String(QUOTA), probe: 0, reports: false, retention: "none", maxAge: "60d", ...period };
      const key = quotaPeriod(clock.t, rule).key;
      const before = night === 0 ? 0 : await used(key);
      const r = await runIn(d, flags, env, { clock });
      sent.push((await used(key)) - before);
      requests += r.counts!.requests;
      if (night === 0) status = await withStore(dbPath, async (store) => formatQuotaStatus(await quotaStatus(store, clock.t + 3600_000)));
    }
    const keys = [...new Set(Array.from({ length: count }, (_, night) => quotaPeriod(MARCH_1 + night * DAY, rule).key))];
    const spent = await Promise.all(keys.map(used));
    // every request sent is in the ledger, in these periods: no other period holds any
    expect(spent.reduce((a, b) => a + b, 0)).toBe(requests);
    return { sent, keys: keys.filter((_, i) => spent[i]! > 0), status };
  } finally {
    await sim.close();
  }
}

describe("--quota-period", () => {
  it("28 days from --quota-start: the second period starts on March 29, not April 1", async () => {
    const rolling = await nights(32, { quotaPeriod: "28", quotaStart: "2026-03-01" }, { days: 28, startMs: Date.parse("2026-03-01T00:00:00Z") });
    expect(rolling.sent[0]).toBe(QUOTA);
    // the 20 postcodes left wait for the next period, which starts on night 28 (March 29)
    expect(rolling.sent.slice(1, 28).every((n) => n === 0)).toBe(true);
    expect(rolling.sent[28]).toBe(20);
    expect(rolling.keys).toEqual(["2026-03-01", "2026-03-29"]);
    expect(rolling.status).toContain("broadband: 40 of 40 used this period (2026-03-01 to 2026-03-28), 0 remaining");

    const month = await nights(32, {}, 1);
    expect(month.sent[0]).toBe(QUOTA);
    expect(month.sent.slice(1, 31).every((n) => n === 0)).toBe(true);
    expect(month.sent[31]).toBe(20);
    expect(month.keys).toEqual(["2026-03-01", "2026-04-01"]);
    expect(month.status).toContain("broadband: 40 of 40 used this period (2026-03-01 to 2026-03-31), 0 remaining");
  }, 120_000);

  it("spreads refreshes over the nights left in the rolling period", () => {
    const rule = { days: 28, startMs: Date.parse("2026-03-01T00:00:00Z") };
    const at = Date.parse("2026-04-20T02:00:00Z");
    const p = quotaPeriod(at, rule);
    expect([p.key, new Date(p.endMs).toISOString()]).toEqual(["2026-03-29", "2026-04-26T00:00:00.000Z"]);
    expect(runsLeft(at, p)).toBe(6);
    expect(allowance(50_000, 20_000, 0, at, p, false).refreshShare).toBe(5_000);
  });

  it("takes the period's end from the replenish time the gateway's quota 403 names, and keeps it", async () => {
    const d = tempDir("pcc-period-");
    dirs.push(d);
    const clock = new FakeClock(MARCH_1);
    // the service's own 28-day period started on March 1 at 02:00; --quota-start says March 5
    const sim = await startSimulator({ port: 0, seed: SEED, key: KEY, quota: 10, quotaPeriodMs: 28 * DAY, now: () => clock.t });
    const input = writeCsv(d, "in.csv", ["postcode", ...generatePostcodes(SEED, 20)]);
    const flags = { in: input, baseUrl: sim.url, lookups: "broadband", monthlyQuota: "100", quotaPeriod: "28", quotaStart: "2026-03-05", probe: 0, reports: false, concurrency: 1 };
    try {
      const r = await runIn(d, flags, env, { clock });
      expect(r.exitCode).toBe(3);
      expect(r.logs.join("\n")).toContain("Quota will be replenished in 672:00:00");
    } finally {
      await sim.close();
    }
    const store = await openStore(join(d, "coverage.sqlite"), { readonly: true });
    try {
      const rules = await storedRules(store, { days: 28, startMs: Date.parse("2026-03-05T00:00:00Z") });
      const p = quotaPeriod(MARCH_1 + DAY, rules.broadband);
      // mobile's period is its own product's: broadband's 403 leaves it on --quota-start
      expect(rules.mobile).toEqual({ days: 28, startMs: Date.parse("2026-03-05T00:00:00Z") });
      // the replenish time is counted from the 403's arrival: the paced clock moved a few ms by then
      expect([new Date(p.startMs).toISOString().slice(0, 19), new Date(p.endMs).toISOString().slice(0, 19)]).toEqual(["2026-03-01T02:00:00", "2026-03-29T02:00:00"]);
      expect(formatQuotaStatus(await quotaStatus(store, MARCH_1 + 3600_000))).toContain("used this period (2026-03-01 to 2026-03-28)");
    } finally {
      await store.close();
    }
  });

  it("keeps each lookup's own period: broadband's quota 403 moves broadband's, never mobile's", async () => {
    const d = tempDir("pcc-period-");
    dirs.push(d);
    const all = generatePostcodes(SEED, 20);
    const first = writeCsv(d, "first.csv", ["postcode", ...all.slice(0, 10)]);
    const more = writeCsv(d, "more.csv", ["postcode", ...all]);
    // one clock for the scenario: broadband's own subscription, 5 requests a 28-day period from
    // February 10 (replenished on March 10), and a simulator without a quota for the other nights
    const clock = new FakeClock(Date.parse("2026-02-10T02:00:00Z"));
    const broadbandSpent = await startSimulator({ port: 0, seed: SEED, key: KEY, quota: 5, quotaPeriodMs: 28 * DAY, now: () => clock.t });
    const open = await startSimulator({ port: 0, seed: SEED, key: KEY, now: () => clock.t });
    const flags = { monthlyQuota: "15", quotaPeriod: "28", quotaStart: "2026-03-01", probe: 0, reports: false, concurrency: 1 };
    const dbPath = join(d, "coverage.sqlite");
    const used = (lookup: "broadband" | "mobile", key: string) => withStore(dbPath, (store) => store.ledger.used(lookup, key, clock.t));
    try {
      clock.t = MARCH_1;
      expect((await runIn(d, { in: first, baseUrl: open.url, lookups: "mobile", ...flags }, env, { clock })).exitCode).toBe(0);
      clock.t = MARCH_1 + DAY;
      const blocked = await runIn(d, { in: first, baseUrl: broadbandSpent.url, lookups: "broadband", ...flags }, env, { clock });
      expect(blocked.exitCode).toBe(3);
      expect(blocked.logs.join("\n")).toContain("Quota will be replenished in 192:00:00");
      clock.t = MARCH_1 + 2 * DAY;
      const both = await runIn(d, { in: more, baseUrl: open.url, lookups: "broadband,mobile", ...flags }, env, { clock });
      const logs = both.logs.join("\n");
      expect(logs).toContain("mobile: monthly quota 15, 10 used this period (since 2026-03-01) before this run");
      expect(logs).toContain("broadband: monthly quota 15, 0 used this period (since 2026-02-10) before this run");
      // mobile spends the 5 its period has left, and no request lands in broadband's period
      expect(await used("mobile", "2026-03-01")).toBe(15);
      expect(await used("mobile", "2026-02-10")).toBe(0);
    } finally {
      await broadbandSpent.close();
      await open.close();
    }
    await withStore(dbPath, async (store) => {
      const status = formatQuotaStatus(await quotaStatus(store, clock.t));
      expect(status).toContain("mobile: 15 of 15 used this period (2026-03-01 to 2026-03-28), 0 remaining");
      expect(status).toContain("used this period (2026-02-10 to 2026-03-09)");
      const paces = await answerPaces(store, clock.t, ["broadband", "mobile"]);
      expect(paces.mobile?.rule).toEqual({ days: 28, startMs: Date.parse("2026-03-01T00:00:00Z") });
      expect(paces.mobile?.remaining).toBe(0);
    });
  }, 120_000);

  it("refuses a number of days without --quota-start, and a bad period, in one line", () => {
    const flags = { in: "x.csv", simulate: true } as const;
    expect(() => buildConfig({ ...flags, quotaPeriod: "28" }, {})).toThrow(/^--quota-period 28 needs --quota-start YYYY-MM-DD/);
    expect(() => buildConfig({ ...flags, quotaPeriod: "fortnight" }, {})).toThrow(/^--quota-period: expected "month" or a whole number of days/);
    expect(() => buildConfig({ ...flags, quotaPeriod: "28", quotaStart: "1 March" }, {})).toThrow(/^--quota-start: expected a date YYYY-MM-DD/);
  });
});

describe("a quota period turning mid-run", () => {
  it.each<[string, Grant, string | null, string, ReturnType<typeof grantStep>]>([
    ["a grant in the period a request is sent in is spent", { period: "2026-11-01", left: 3 }, null, "2026-11-01", "take"],
    ["an earlier period's grant is given back first", { period: "2026-11-01", left: 3 }, null, "2026-12-01", "give back"],
    ["an earlier period's grant, though that period ran out", { period: "2026-11-01", left: 3 }, "2026-11-01", "2026-12-01", "give back"],
    ["no grant: reserve", { period: "2026-11-01", left: 0 }, null, "2026-11-01", "reserve"],
    ["no grant, the period ran out: spent", { period: "2026-11-01", left: 0 }, "2026-11-01", "2026-11-01", "spent"],
    ["an earlier period ran out: the new one is reserved in", { period: "2026-11-01", left: 0 }, "2026-11-01", "2026-12-01", "reserve"],
  ])("%s", (_, grant, spentIn, period, step) => {
    expect(grantStep(grant, spentIn, period)).toBe(step);
  });

  it("the gate gives back the old period's untaken grant and reserves in the new one before sending", async () => {
    const clock = new FakeClock(Date.parse("2026-11-30T23:59:50Z"));
    const calls: string[] = [];
    const gate = new QuotaGate({
      reserve: async (n, period) => (calls.push(`reserve ${n} in ${period}`), { granted: n, left: 100 }),
      giveBack: async (n, period) => void calls.push(`give back ${n} in ${period}`),
      current: () => quotaPeriod(clock.now(), 1).key,
    });
    expect(await gate.take()).toBe(true);
    clock.t = Date.parse("2026-12-01T00:00:05Z");
    expect(await Promise.all([gate.take(), gate.take()])).toEqual([true, true]);
    expect(calls).toEqual([`reserve ${RESERVE_CHUNK} in 2026-11-01`, `give back ${RESERVE_CHUNK - 1} in 2026-11-01`, `reserve ${RESERVE_CHUNK} in 2026-12-01`]);
  });

  describe.skipIf(postgres.skip)("two machines on one PostgreSQL ledger", () => {
    const stores: Store[] = [];
    let url = "";
    afterEach(async () => {
      for (const s of stores.splice(0)) await s.close();
      await dropPostgresDatabase(url);
    });

    it("send no more than --monthly-quota in the new period, and leave no reservation in the old one", async () => {
      url = await freshPostgresDatabase({ schema: true });
      const clock = new FakeClock(Date.parse("2026-11-30T23:59:50Z"));
      const settings: QuotaSettings = { lookups: ["broadband"], monthlyQuota: { broadband: 30 }, quotaResetDay: 1, quotaPeriod: null, quotaStart: null, spendAll: false, simulate: false, retention: 30 * DAY, maxAge: 30 * DAY };
      const log = createLogger({ format: "json", quiet: true, verbose: false, write: () => {} });
      const machine = async (host: string) => {
        const store = await openStore(url, { isAlive: () => true });
        stores.push(store);
        const { lease } = await store.leases.take({ host, pid: 1, process: null }, clock.now(), 3_600_000);
        const runId = await store.runs.create({ startedAt: new Date(clock.now()).toISOString(), simulated: false, inputName: host, args: {}, lookups: ["broadband"], providers: [], leaseId: lease.id });
        const quota = await startRunQuota(store, settings, { runId, leaseId: lease.id }, () => clock.now(), new StopControl(() => {}), log);
        const writer = await store.answers.openWriter({ providers: [], lease: { id: lease.id, now: () => clock.now() } });
        // takes and sends until the gate says no, or `most` are sent
        const send = async (most = Infinity) => {
          let sent = 0;
          while (sent < most && (await quota.budget("broadband")!.take())) {
            quota.onRequest("broadband", writer)({ status: 200, quotaMessage: null });
            sent++;
          }
          await writer.flush();
          return sent;
        };
        return { store, send };
      };
      const a = await machine("a");
      // a sends one in November, holding the rest of a chunk; then the period turns
      expect(await a.send(1)).toBe(1);
      clock.t = Date.parse("2026-12-01T00:00:05Z");
      const b = await machine("b");
      const december = (await b.send()) + (await a.send());
      expect(december).toBe(30);
      expect(await a.store.ledger.used("broadband", "2026-12-01", clock.now())).toBe(30);
      expect(await a.store.ledger.used("broadband", "2026-11-01", clock.now())).toBe(1);
    });
  });
});
