// A list the quota only partly answers: when the rest will be answered, what the estimates assume and
// where the list's own data doubts it, and the attribution as a sentence. Pure functions, no clock.
import { describe, expect, it } from "vitest";
import { answeredBy, type AnswerPace } from "../src/plan/answer-pace.js";
import { estimateCaveats, type CaveatPostcode } from "../src/report/estimates/estimate-caveats.js";
import { apiAttribution } from "../src/report/summary/attribution.js";
import { estimateDomain, type Cluster } from "../src/report/estimates/estimates.js";

const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);

describe("when the rest of the list is answered at the current quota", () => {
  const monthly: AnswerPace = { quota: 25_000, remaining: 10_000, nextNightMs: day("2026-11-28"), rule: 1, source: "monthly-quota", maxAgeMs: 30 * 86_400_000, retentionMs: 30 * 86_400_000 };

  it("is the next night when what the period has left covers it", () => {
    expect(answeredBy(10_000, monthly)).toBe("2026-11-28");
    expect(answeredBy(0, monthly)).toBe("2026-11-28");
  });

  it("takes a new period's whole quota on its first night, period after period", () => {
    expect(answeredBy(10_001, monthly)).toBe("2026-12-01");
    expect(answeredBy(35_000, monthly)).toBe("2026-12-01");
    expect(answeredBy(35_001, monthly)).toBe("2027-01-01");
    // a rolling 28-day period as the service's quota has
    const rolling: AnswerPace = { quota: 60, remaining: 60, nextNightMs: day("2026-12-01"), rule: { days: 28, startMs: day("2026-12-01") }, source: "service", maxAgeMs: 30 * 86_400_000, retentionMs: 30 * 86_400_000 };
    expect(answeredBy(228, rolling)).toBe("2027-02-23");
  });

  it("is null when no quota answers any", () => {
    expect(answeredBy(5, { ...monthly, quota: 0, remaining: 0 })).toBeNull();
  });
});

describe("what the estimates assume, and where the list doubts it", () => {
  const postcode = (answered: boolean, addresses: number, expected: number | null = null, belowSuperfast: number | null = null): CaveatPostcode => ({ answered, addresses, expected, belowSuperfast });

  it("flags a lopsided list: three unanswered postcodes of 2,500 addresses each, 90% of its addresses", () => {
    // 100 small postcodes of 8 or 9 input rows (833 rows), 30 of them answered; three of 2,500 rows, none answered
    const small = Array.from({ length: 100 }, (_, i) => postcode(i < 30, i < 30 ? 8 : 0, i % 3 === 0 ? 9 : 8));
    const big = Array.from({ length: 3 }, () => postcode(false, 0, 2_500));
    const caveats = estimateCaveats([...small, ...big]);
    expect(caveats).toHaveLength(1);
    expect(caveats[0]).toMatch(/^Your input's rows show the unanswered postcodes to be unlike the answered ones: they are 71% of the list's postcodes but hold 9\d% of its rows/);
    // the same list without the big three: nothing to say
    expect(estimateCaveats(small)).toEqual([]);
  });

  it("flags an answered sample whose sizes are heavy-tailed", () => {
    const list = [...Array.from({ length: 12 }, () => postcode(true, 10)), postcode(true, 400), ...Array.from({ length: 20 }, () => postcode(false, 0))];
    expect(estimateCaveats(list)).toEqual([
      "The answered postcodes' sizes are heavy-tailed: the largest (400 addresses) holds 77% of the answered addresses, so the interval may be too narrow.",
    ]);
  });

  it("checks a list of 200,000 answered postcodes, more than one call's arguments can hold", () => {
    const list = [...Array.from({ length: 200_000 }, (_, i) => postcode(true, i === 0 ? 2_000_000 : 10)), postcode(false, 0)];
    expect(estimateCaveats(list)).toEqual([
      "The answered postcodes' sizes are heavy-tailed: the largest (2,000,000 addresses) holds 50% of the answered addresses, so the interval may be too narrow.",
    ]);
  });

  it("flags unanswered postcodes that Ofcom's open data shows to differ", () => {
    const list = [...Array.from({ length: 10 }, () => postcode(true, 10, null, 0.1)), ...Array.from({ length: 10 }, () => postcode(false, 0, null, 0.7))];
    expect(estimateCaveats(list)).toEqual([
      "Ofcom's open data shows the unanswered postcodes to be unlike the answered ones: on average 70% of their premises are below superfast, against 10% of the answered ones', so the estimates may be far off until they are answered.",
    ]);
  });

  it("says nothing of a fully answered list, nor of one whose parts look alike", () => {
    expect(estimateCaveats(Array.from({ length: 20 }, () => postcode(true, 10, 10, 0.2)))).toEqual([]);
    expect(estimateCaveats(Array.from({ length: 20 }, (_, i) => postcode(i < 10, i < 10 ? 10 : 0, 10, 0.2)))).toEqual([]);
  });

  it("the lopsided list's estimate is far from the truth: what the caution is for", () => {
    // the true share counts the three big postcodes, where most addresses are below superfast
    const clusters: Cluster[] = [
      ...Array.from({ length: 100 }, (_, i): Cluster => ({ stratum: `AB1${i % 2}`, answered: i < 30, addresses: 8, counts: [i % 6 === 0 ? 8 : 1] })),
      ...Array.from({ length: 3 }, (_, i): Cluster => ({ stratum: `AB1${i % 2}`, answered: false, addresses: 2_500, counts: [2_000] })),
    ];
    const truth = (clusters.reduce((t, c) => t + c.counts[0]!, 0)) / clusters.reduce((t, c) => t + c.addresses, 0);
    const e = estimateDomain(clusters.map((c) => (c.answered ? c : { ...c, addresses: 0, counts: [0] })), 1).shares[0]!;
    expect(truth).toBeGreaterThan(e.high!);
  });
});

describe("the attribution of the API's data", () => {
  const release = (r: string | null, from: string, to = from) => ({ release: r, fetchedFrom: `${from}T01:00:00Z`, fetchedTo: `${to}T02:00:00Z`, postcodes: 1, addresses: 1 });

  it("is a sentence: the release as the API names it, or when an unnamed one was fetched", () => {
    expect(apiAttribution({ broadband: [release(null, "2026-11-27")], mobile: [release("MobileAvailability-202406041254", "2026-11-27")] }, null)).toBe(
      "Source: Ofcom. Broadband data fetched 2026-11-27 (the API names no release); mobile data from release MobileAvailability-202406041254.",
    );
    expect(apiAttribution({ broadband: [release(null, "2026-11-01", "2026-11-03"), release(null, "2026-11-27")], mobile: [release("A", "2026-11-01"), release("B", "2026-11-27")] }, null)).toBe(
      "Source: Ofcom. Broadband data fetched 2026-11-01 to 2026-11-27 (the API names no release); mobile data from releases A and B.",
    );
    expect(apiAttribution({ broadband: [], mobile: [] }, null)).toBe("Source: Ofcom.");
    expect(apiAttribution({ broadband: [release(null, "2026-11-27")] }, "Contains Ofcom data")).toBe("Contains Ofcom data");
  });
});
