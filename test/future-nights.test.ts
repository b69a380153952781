// The nights ahead, as a table: from the stored answers, the quota and its period, the first night
// every postcode holds an answer (and every answer is fresh), with expiries and new periods on the way.
import { describe, expect, it } from "vitest";
import { futureNights, type FutureNightsInput } from "../src/plan/future-nights.js";
import { firstRehearsedNight, nightAtRunHour } from "../src/plan/night-promise.js";
import type { LastRunSettings } from "../src/store/types.js";

const DAY = 24 * 3600 * 1000;
const T0 = Date.UTC(2027, 0, 1) + 2 * 3600 * 1000;
const night = (n: number) => new Date(T0 + n * DAY).toISOString().slice(0, 10);
const base: FutureNightsInput = {
  listSize: 10,
  answers: [],
  quota: 10,
  used: 0,
  rule: { days: 28, startMs: Date.UTC(2027, 0, 1) },
  spendAll: false,
  maxAgeMs: 30 * DAY,
  retentionMs: 30 * DAY,
  firstNightMs: T0,
  probe: 0,
  namesRelease: true,
};
const held = (n: number, ageDays: number) => Array.from({ length: n }, () => ({ at: T0 - ageDays * DAY, stale: false }));

describe("the nights ahead", () => {
  it.each([
    { name: "a list the period's quota answers tonight", p: {}, answered: night(0) },
    { name: "the rest on the next period's first night, while the first answers still hold", p: { listSize: 15 }, answered: night(28) },
    {
      // 10 answers 25 days old expire on night 5; the next period (night 10) answers 10 of the 12, and
      // the other 2 wait for the period after (night 38), when the night-10 answers still hold
      name: "answers expiring before the rest is answered",
      p: { listSize: 12, answers: held(10, 25), used: 10, rule: { days: 28, startMs: T0 - 18 * DAY - 2 * 3600 * 1000 } },
      answered: night(38),
    },
    { name: "a list no period can hold at once: never", p: { listSize: 25 }, answered: null },
    { name: "no quota left, none ever: never", p: { quota: 0 }, answered: null },
  ])("$name", ({ p, answered }) => {
    expect(futureNights({ ...base, ...p }, "answered").allAnsweredOn).toBe(answered);
  });

  it("every answer fresh: stale answers are refreshed from the even share", () => {
    // 10 answers on an older release and 280 requests a period: 10 a night, all tonight
    const r = futureNights({ ...base, answers: Array.from({ length: 10 }, () => ({ at: T0 - DAY, stale: true })), quota: 280 });
    expect(r.allAnsweredOn).toBe(night(0));
    expect(r.allFreshOn).toBe(night(0));
    const slow = futureNights({ ...base, listSize: 100, answers: Array.from({ length: 100 }, () => ({ at: T0 - DAY, stale: true })), quota: 56 });
    // 2 a night (56 ÷ 28) through the first period and its next nights; on night 30 the retention
    // deletes the 42 still stale, and as new postcodes they take what the second period has left
    expect(slow.allFreshOn).toBe(night(30));
    // without a retention, refreshes alone: 2 a night for 50 nights
    expect(futureNights({ ...base, listSize: 100, answers: Array.from({ length: 100 }, () => ({ at: T0 - DAY, stale: true })), quota: 56, retentionMs: null, maxAgeMs: 90 * DAY }).allFreshOn).toBe(night(49));
  });
});

describe("the rehearsal's first night", () => {
  const last = { startedAt: "2027-01-01T02:00:00.000Z" } as LastRunSettings;
  const at = (iso: string) => Date.parse(iso);
  const iso = (ms: number) => new Date(ms).toISOString();
  it.each([
    // [what, nextNightMs, earliestMs, first night]
    ["tomorrow's night after a run today", "2027-01-02T00:00:00.000Z", undefined, "2027-01-02T02:00:00.000Z"],
    ["today's night, not yet started", "2027-01-02T00:00:00.000Z", "2027-01-02T01:30:00.000Z", "2027-01-02T02:00:00.000Z"],
    ["today's night already past: tomorrow's, never one gone by", "2027-01-02T00:00:00.000Z", "2027-01-02T10:00:00.000Z", "2027-01-03T02:00:00.000Z"],
    ["the service's block ends after the run's hour: the next day's night", "2027-01-05T00:00:00.000Z", "2027-01-05T07:00:00.000Z", "2027-01-06T02:00:00.000Z"],
    ["a night exactly at the run's hour is that night", "2027-01-02T02:00:00.000Z", undefined, "2027-01-02T02:00:00.000Z"],
  ] as const)("%s", (_what, next, earliest, expected) => {
    const pace = { quota: 10, used: 0, rule: { days: 28, startMs: 0 }, maxAgeMs: 30 * DAY, retentionMs: 30 * DAY, nextNightMs: at(next), earliestMs: earliest === undefined ? undefined : at(earliest) };
    expect(iso(firstRehearsedNight(pace, last))).toBe(expected);
    expect(iso(nightAtRunHour(at(earliest ?? next), last.startedAt)) >= (earliest ?? next)).toBe(true);
  });
});
