// The quota arithmetic: periods (calendar month or a reset day), the even share, the pace
// prediction, and the parsing of --monthly-quota and of the service's "replenished in".
import { describe, expect, it } from "vitest";
import { allowance, parseMonthlyQuota, predictFinish, quotaPeriod, replenishMs, runsLeft } from "../src/plan/quota-plan.js";
import { buildConfig, type BatchFlags } from "../src/cli/batch-config.js";

const at = (iso: string) => Date.parse(iso);

describe("quota periods", () => {
  it("is the calendar month (UTC) by default, or the month from --quota-reset-day", () => {
    expect(quotaPeriod(at("2026-03-31T23:59:59Z")).key).toBe("2026-03-01");
    expect(quotaPeriod(at("2026-01-10T00:00:00Z"), 15).key).toBe("2025-12-15");
    expect(quotaPeriod(at("2026-01-15T00:00:00Z"), 15).key).toBe("2026-01-15");
    const p = quotaPeriod(at("2026-02-10T02:00:00Z"));
    expect(new Date(p.endMs).toISOString()).toBe("2026-03-01T00:00:00.000Z");
    // one run a day, today included
    expect(runsLeft(at("2026-02-10T02:00:00Z"), p)).toBe(19);
    expect(runsLeft(at("2026-02-28T23:00:00Z"), p)).toBe(1);
  });

  it("gives new data all that is left and refreshes an even share of the rest (all with --spend-all)", () => {
    const p = quotaPeriod(at("2026-03-01T02:00:00Z"));
    expect(allowance(300, 0, 0, at("2026-03-01T02:00:00Z"), p, false)).toEqual({ remaining: 300, refreshShare: 9 });
    expect(allowance(300, 100, 50, at("2026-03-22T02:00:00Z"), p, false)).toEqual({ remaining: 200, refreshShare: 15 });
    expect(allowance(300, 100, 50, at("2026-03-22T02:00:00Z"), p, true)).toEqual({ remaining: 200, refreshShare: 150 });
    expect(allowance(300, 320, 0, at("2026-03-22T02:00:00Z"), p, false)).toEqual({ remaining: 0, refreshShare: 0 });
  });

  it("predicts the night the outstanding refreshes are done, across a new period", () => {
    // March 30 and 31 spend 10 + 10 of 20 left; April 10 a night: 50 more take 5 nights
    expect(predictFinish({ quota: 300, used: 280, outstanding: 70, firstNightMs: at("2026-03-30T02:00:00Z"), resetDay: 1, spendAll: false }).finishDate).toBe("2026-04-05");
    expect(predictFinish({ quota: 0, used: 0, outstanding: 1, firstNightMs: at("2026-03-30T02:00:00Z"), resetDay: 1, spendAll: false })).toEqual({ finishDate: null, quotaNeeded: 1 });
  });
});

describe("parsing", () => {
  it("--monthly-quota takes N or broadband=N,mobile=M; anything else is a one-line error", () => {
    expect(parseMonthlyQuota("50000")).toEqual({ broadband: 50000, mobile: 50000 });
    expect(parseMonthlyQuota("broadband=50000, mobile=150000")).toEqual({ broadband: 50000, mobile: 150000 });
    expect(() => parseMonthlyQuota("lots")).toThrow(/neither N nor broadband=N/);
    expect(() => parseMonthlyQuota("mobile=1.5")).toThrow(/not a whole number/);
    const flags: BatchFlags = {
      in: "x.csv", db: "x", out: "x", lookups: "broadband", providers: "ProvA", concurrency: 1, rate: 1, retries: 0, timeout: 5,
      maxAge: "30d", refresh: false, simulate: true, logFormat: "text", quiet: false, reports: false,
    };
    expect(buildConfig(flags, { COVERAGE_MONTHLY_QUOTA: "mobile=7" }).monthlyQuota).toEqual({ mobile: 7 });
    expect(() => buildConfig({ ...flags, monthlyQuota: "x" }, {})).toThrow(/^--monthly-quota: "x" is neither N nor broadband=N/);
    // a value from the environment is named by its variable and never echoed
    expect(() => buildConfig(flags, { COVERAGE_MONTHLY_QUOTA: "x" })).toThrow(
      /^COVERAGE_MONTHLY_QUOTA: not a valid value for --monthly-quota: \*\*\* is neither N nor broadband=N \/ mobile=N \(value not shown\)$/,
    );
    expect(() => buildConfig({ ...flags, quotaResetDay: 31 }, {})).toThrow(/^--quota-reset-day: expected a whole number from 1 to 28, got 31$/);
    expect(() => buildConfig({ ...flags, release: "a b" }, {})).toThrow(/--release: "a b" is not a release name/);
  });

  it("reads the wait from the gateway's quota answer", () => {
    expect(replenishMs("Out of call volume quota. Quota will be replenished in 523:10:07.")).toBe(((523 * 60 + 10) * 60 + 7) * 1000);
    expect(replenishMs("Out of call volume quota.")).toBeNull();
    // a .NET time span with days: 21 days 19:10:07, not 19 hours
    expect(replenishMs("Quota will be replenished in 21.19:10:07.")).toBe((((21 * 24 + 19) * 60 + 10) * 60 + 7) * 1000);
  });
});
