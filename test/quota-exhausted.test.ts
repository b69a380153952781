// `npm run status` with nothing left of the quota's period: it says so and names the day the next
// period starts, and promises no date the next night cannot keep (the next night sends nothing).
// The decision as a table, then the real pipeline against the simulator on one injected clock.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generatePostcodes, startSimulator } from "../src/simulator/index.js";
import { exhaustedWords, quotaExhausted, type PeriodLeft } from "../src/plan/quota-exhausted.js";
import { quotaStatus } from "../src/plan/quota-status.js";
import { formatQuotaStatus } from "../src/cli/status-text.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { FakeClock } from "./helpers/fake-clock.js";
import { withStore } from "./helpers/stored.js";
import { answerPaces } from "../src/plan/answer-pace.js";

const KEY = "qx-4b7e-Lm31-0a9c-Zt55";
const SEED = 29;
const HOUR = 3600 * 1000;
const at = (iso: string) => Date.parse(iso);
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("what status says of a period with nothing left", () => {
  const period: PeriodLeft = { remaining: 0, periodEndMs: at("2026-03-29T00:00:00Z"), nightMs: at("2026-03-11T02:00:00Z"), blockedUntilMs: null, newData: 20, outstanding: 3 };

  it.each([
    ["requests left: the next night can send", { remaining: 1 }, null],
    ["none left: the next period's first day", {}, "2026-03-29"],
    ["requests left, but the service's quota answer blocks past the night: the day it ends", { remaining: 5, blockedUntilMs: at("2026-03-20T06:00:00Z") }, "2026-03-20"],
    ["none left and blocked beyond the period's end: the later", { blockedUntilMs: at("2026-04-02T00:00:00Z") }, "2026-04-02"],
    ["a block that ended before the night blocks nothing", { remaining: 5, blockedUntilMs: at("2026-03-10T00:00:00Z") }, null],
  ] as const)("%s", (_, change, starts) => {
    const e = quotaExhausted({ ...period, ...change });
    expect(e?.nextPeriodStarts ?? null).toBe(starts);
  });

  it("names what waits, and promises no date", () => {
    expect(exhaustedWords("broadband", quotaExhausted(period)!)).toBe(
      "broadband: nothing is left of this period's quota: no request can be sent until the next period starts on 2026-03-29; 20 new postcodes and 3 refreshes wait for it",
    );
    expect(exhaustedWords("mobile", quotaExhausted({ ...period, newData: 1, outstanding: 1 })!)).toMatch(/; 1 new postcode and 1 refresh wait for it$/);
    expect(exhaustedWords("mobile", quotaExhausted({ ...period, newData: 0, outstanding: 0 })!)).toMatch(/2026-03-29; nothing waits for it$/);
  });
});

describe("npm run status after the quota is spent", () => {
  it("says so and when the next period starts, never 'by tomorrow', and the next night indeed sends nothing", async () => {
    const d = tempDir("pcc-exhausted-");
    dirs.push(d);
    const input = writeCsv(d, "in.csv", ["postcode", ...generatePostcodes(SEED, 30)]);
    const sim = await startSimulator({ port: 0, seed: SEED, key: KEY });
    const clock = new FakeClock(at("2026-03-10T02:00:00Z"));
    const flags = { in: input, baseUrl: sim.url, lookups: "broadband", monthlyQuota: "broadband=10", quotaPeriod: "28", quotaStart: "2026-03-01", probe: 0, reports: false };
    const env = { COVERAGE_API_KEY: KEY };
    const dbPath = join(d, "coverage.sqlite");
    const status = (nowMs: number) => withStore(dbPath, (store) => quotaStatus(store, nowMs));
    try {
      const first = await runIn(d, flags, env, { clock });
      expect(first.counts!.requests).toBe(10);
      for (const night of [0, 1]) {
        if (night === 1) {
          clock.t = at("2026-03-11T02:00:00Z");
          const second = await runIn(d, flags, env, { clock });
          // the night status spoke of: nothing sent
          expect(second.counts!.requests).toBe(0);
        }
        const q = await status(clock.t + HOUR);
        const text = formatQuotaStatus(q);
        expect(text).toContain("broadband: 10 of 10 used this period (2026-03-01 to 2026-03-28), 0 remaining\n");
        expect(text).toContain(
          "broadband: nothing is left of this period's quota: no request can be sent until the next period starts on 2026-03-29; 20 new postcodes and 0 refreshes wait for it",
        );
        expect(text).not.toMatch(/within --max-age by|new first/);
        expect(q[0]).toMatchObject({ remaining: 0, finishDate: null, exhausted: { nextPeriodStarts: "2026-03-29", newData: 20, refreshes: 0 } });
      }
      // the day the new period starts, before its night: the next night can send again
      const fresh = await status(at("2026-03-29T01:00:00Z"));
      expect(fresh[0]).toMatchObject({ remaining: 10, exhausted: null, nextNight: "2026-03-29" });
      expect(formatQuotaStatus(fresh)).toContain("night of 2026-03-29: 20 new first");
      clock.t = at("2026-03-29T02:00:00Z");
      expect((await runIn(d, flags, env, { clock })).counts!.requests).toBe(10);
      // the pace plans the last run's list: a report of every stored postcode, or of another run, is given no date
      const paces = (scope: { runId?: number; all?: boolean }) => withStore(dbPath, (store) => answerPaces(store, clock.t + HOUR, ["broadband"], scope));
      expect((await paces({})).broadband).toMatchObject({ quota: 10, source: "monthly-quota" });
      expect(await paces({ all: true })).toEqual({});
      expect(await paces({ runId: 1 })).toEqual({});
    } finally {
      await sim.close();
    }
  }, 60_000);
});
