// The capacity, as a table: from a lookup's quota and period, the retention and --max-age, how many
// postcodes hold a young answer at once, whether a list exceeds it, and the quota it would need.
import { describe, expect, it } from "vitest";
import { answerLifeNights, capacity, largestPlanCapacity, listCapacity, periodDays } from "../src/plan/capacity.js";
import { capacityStatement } from "../src/plan/capacity-words.js";
import { restWords } from "../src/report/summary/list-lead.js";
import type { LookupBasis } from "../src/report/estimates/types.js";
import { expiryShortfall } from "../src/plan/retention.js";

const DAY = 24 * 3600 * 1000;

describe("the capacity", () => {
  it.each([
    // the defaults: a month's retention, --max-age 30d; an answer is refreshed on its 29th night
    { name: "Basic key, 28-day period, the whole UK", quota: 50_000, days: 28, maxAge: 30, retention: 30, list: 1_740_000, postcodes: 51_785, life: 29, exceeded: true, needed: 1_680_000 },
    { name: "3,000 a calendar month (31 days at most), 5,000 postcodes", quota: 3_000, days: 31, maxAge: 30, retention: 30, list: 5_000, postcodes: 2_806, life: 29, exceeded: true, needed: 5_345 },
    { name: "1,000 a 28-day period, 2,500 postcodes", quota: 1_000, days: 28, maxAge: 30, retention: 30, list: 2_500, postcodes: 1_035, life: 29, exceeded: true, needed: 2_414 },
    { name: "a list the quota keeps", quota: 1_000, days: 28, maxAge: 30, retention: 30, list: 1_000, postcodes: 1_035, life: 29, exceeded: false, needed: 966 },
    { name: "a shorter --max-age shortens an answer's life", quota: 1_000, days: 28, maxAge: 7, retention: 30, list: 1_000, postcodes: 250, life: 7, exceeded: true, needed: 4_000 },
    { name: "no retention: --max-age alone", quota: 1_000, days: 28, maxAge: 90, retention: null, list: 3_000, postcodes: 3_214, life: 90, exceeded: false, needed: 934 },
    { name: "a long retention with the default --max-age", quota: 1_000, days: 28, maxAge: 30, retention: 365, list: 1_071, postcodes: 1_071, life: 30, exceeded: false, needed: 1_000 },
    { name: "a one-day period", quota: 100, days: 1, maxAge: 30, retention: 30, list: 2_901, postcodes: 2_900, life: 29, exceeded: true, needed: 101 },
  ])("$name", ({ quota, days, maxAge, retention, list, postcodes, life, exceeded, needed }) => {
    const c = capacity({ quota, periodDays: days, maxAgeMs: maxAge * DAY, retentionMs: retention === null ? null : retention * DAY, listSize: list });
    expect(c).toEqual({ postcodes, lifeNights: life, listSize: list, exceeded, quotaNeeded: needed });
    // the quota it names keeps the list: the capacity at that quota holds the whole list
    expect(capacity({ quota: c.quotaNeeded, periodDays: days, maxAgeMs: maxAge * DAY, retentionMs: retention === null ? null : retention * DAY, listSize: list }).exceeded).toBe(false);
  });

  it("an answer's life: --max-age's whole days, or the nights before the retention makes it due", () => {
    expect(answerLifeNights(30 * DAY, 30 * DAY)).toBe(29);
    expect(answerLifeNights(30 * DAY, null)).toBe(30);
    expect(answerLifeNights(12 * 3600 * 1000, null)).toBe(1);
    expect(answerLifeNights(30 * DAY, 2 * DAY)).toBe(1);
  });

  it("a month rule counts its longest month; a rolling period its days", () => {
    expect(periodDays(1)).toBe(31);
    expect(periodDays(15)).toBe(31);
    expect(periodDays({ days: 28, startMs: 0 })).toBe(28);
  });

  it("the list's capacity is its smallest lookup's; none without a quota", () => {
    const of = (quota: number) => capacity({ quota, periodDays: 28, maxAgeMs: 30 * DAY, retentionMs: 30 * DAY, listSize: 2_000 });
    expect(listCapacity([of(1_000), of(3_000)])?.postcodes).toBe(1_035);
    expect(listCapacity([null, of(3_000)])?.postcodes).toBe(3_107);
    expect(listCapacity([null, undefined])).toBeNull();
  });
});

describe("what a list beyond its capacity says", () => {
  const basis = (answered: number, listSize: number, c: ReturnType<typeof capacity> | null, quota: LookupBasis["quota"]): LookupBasis => ({
    answeredPostcodes: answered,
    answeredAddresses: answered * 15,
    exact: false,
    unanswered: listSize - answered,
    answeredBy: null,
    quota,
    capacity: c && { postcodes: c.postcodes, exceeded: c.exceeded, quotaNeeded: c.quotaNeeded },
  });

  it("the whole UK on no known quota: at most the largest plan's capacity, never 'at the next runs'", () => {
    const uk = 1_740_000;
    const lookups = [["broadband", basis(987, uk, largestPlanCapacity(uk), null)]] as const;
    const s = capacityStatement(uk, lookups)!;
    expect(s.sentences).toEqual([
      "At most about 155,357 of the list's 1,740,000 postcodes hold an answer at any time: no quota is known, and even the service's largest plan (Premium, 150,000 requests per lookup every 28 days) keeps no more answered at once.",
      "The whole list's figures are estimates with 95% intervals, and stay so for as long as the list and the quota stay this size.",
      "Answering it all within a month needs --monthly-quota 1680000 per lookup (more than any plan offers), or a list of at most 155,357 postcodes.",
    ]);
    expect(restWords({ lookups: lookups.map(([l, b]) => [l, b] as [typeof l, LookupBasis]), capacity: s })).toBe("at most about 155,357 hold an answer at any time, never all at once at any plan's quota");
  });

  it("the whole UK on a Basic key: about 51,785 at any time", () => {
    const uk = 1_740_000;
    const c = capacity({ quota: 50_000, periodDays: 28, maxAgeMs: 30 * DAY, retentionMs: 30 * DAY, listSize: uk });
    const s = capacityStatement(uk, [["broadband", basis(50_000, uk, c, { perPeriod: 50_000, source: "monthly-quota" })], ["mobile", basis(50_000, uk, c, { perPeriod: 50_000, source: "monthly-quota" })]])!;
    expect(s.sentences[0]).toBe("About 51,785 of the list's 1,740,000 postcodes hold an answer at any time: the quota (50,000 requests a quota period) keeps no more answered at once, as answers expire.");
    expect(s.sentences[2]).toBe("Answering it all within a month needs --monthly-quota 1680000 per lookup, or a list of at most 51,785 postcodes.");
  });

  it("a list within its capacity, or of unknown quota and below the largest plan's, says nothing of it", () => {
    const c = capacity({ quota: 1_000, periodDays: 28, maxAgeMs: 30 * DAY, retentionMs: 30 * DAY, listSize: 900 });
    expect(capacityStatement(900, [["broadband", basis(100, 900, c, { perPeriod: 1_000, source: "monthly-quota" })]])).toBeNull();
    expect(capacityStatement(100_000, [["broadband", basis(100, 100_000, largestPlanCapacity(100_000), null)]])).toBeNull();
  });
});

describe("the answers a quota lets expire", () => {
  const DAY = 24 * 3600 * 1000;
  it.each([
    // [list, quota, --max-age days, postcodes that expire unanswered]
    [800, 1000, 7, 0], // a short --max-age refreshes sooner but deletes nothing: the retention alone does
    [800, 1000, 30, 0],
    [60_000, 50_000, 30, 60_000 - 51_785],
    [60_000, 50_000, 7, 60_000 - 51_785],
  ])("a list of %i on %i requests in 28 days, --max-age %i days: %i expire", (listSize, quota, maxAgeDays, lost) => {
    const s = expiryShortfall({ listSize, quota, periodDays: 28, maxAgeMs: maxAgeDays * DAY, retentionMs: 30 * DAY, oldestAnswer: "2027-01-01T02:00:00Z" });
    expect(s.postcodes).toBe(lost);
    expect(s.from).toBe(lost > 0 ? "2027-01-31" : null);
  });
});
