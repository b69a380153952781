import { describe, expect, it } from "vitest";
import { postcodeStratum, sampleOrder, STRATUM_SEPARATOR, uniformHash } from "../src/plan/sample-order.js";
import { orderNeeds } from "../src/plan/plan.js";
import type { Candidate } from "../src/store/types.js";

// 28 districts of different sizes, sorted by district as a council's file is.
const sorted = Array.from({ length: 28 }, (_, d) => Array.from({ length: 20 + d * 5 }, (_, i) => `CF${d + 1} ${i % 10}${"ABDEFGHJLNPQRSTUWXYZ"[Math.floor(i / 10) % 20]}${"ABDEFGHJLNPQRSTUWXYZ"[Math.floor(i / 200)]}`)).flat();

describe("sample order", () => {
  it("any prefix is close to a proportional stratified sample: 150 of 2,450 postcodes reach every district, each within one of its share", () => {
    const order = sampleOrder(sorted, (p) => p);
    const head = order.slice(0, 150);
    const districts = new Set(head.map(postcodeStratum));
    expect(districts.size).toBe(28);
    for (const d of districts) {
      const size = sorted.filter((p) => postcodeStratum(p) === d).length;
      const taken = head.filter((p) => postcodeStratum(p) === d).length;
      expect(Math.abs(taken - (150 * size) / sorted.length)).toBeLessThanOrEqual(1);
    }
    // the file's head reaches only the first districts
    expect(new Set(sorted.slice(0, 100).map(postcodeStratum)).size).toBeLessThan(5);
  });

  it("is the same every night and for any subset's relative order (resumable), and changes with the seed", () => {
    const order = sampleOrder(sorted, (p) => p);
    expect(sampleOrder([...sorted].reverse(), (p) => p)).toEqual(order);
    expect(sampleOrder(sorted, (p) => p, undefined, "another")).not.toEqual(order);
    expect(uniformHash("x")).toBe(uniformHash("x"));
    expect(uniformHash("x")).toBeGreaterThanOrEqual(0);
    expect(uniformHash("x")).toBeLessThan(1);
  });

  it("is the order earlier versions drew: a database part-way through its list goes on in the same order after an upgrade", () => {
    // pinned from the version that kept an object per item: the order is a promise across versions, not only across nights
    const order = sampleOrder(sorted, (p) => p);
    expect(order.slice(0, 10)).toEqual(["CF19 6PA", "CF27 9JA", "CF18 2GA", "CF13 0DA", "CF20 7BA", "CF16 5LA", "CF17 7NA", "CF28 8NA", "CF7 3FA", "CF8 7DA"]);
    expect(order.slice(-3)).toEqual(["CF21 1NA", "CF22 2LA", "CF25 7PA"]);
    const bySeed = sampleOrder(sorted, (p) => p, (p) => p.slice(0, 3), "another");
    expect(bySeed.slice(0, 6)).toEqual(["CF26 7EA", "CF17 4NA", "CF7 7AA", "CF26 1FA", "CF13 2BA", "CF20 7JA"]);
    expect([...order].sort()).toEqual([...sorted].sort());
  });

  it("orderNeeds keeps the order it is given for new postcodes: the planner's hook", () => {
    const candidates = sorted.slice(0, 50).map((postcode, line) => ({ postcode, line, state: "new", fetchedAt: null, releaseRank: 0 }) as unknown as Candidate);
    const sampled = sampleOrder(candidates, (c) => c.postcode);
    expect(orderNeeds(sampled, () => 0).needs.map((n) => n.postcode)).toEqual(sampled.map((c) => c.postcode));
  });
});

describe("estimates at the edges", () => {
  it("a stratum with one answered postcode is pooled; a domain with one answered postcode has an estimate but no interval", async () => {
    const { collapseStrata, estimateDomain } = await import("../src/report/estimates/estimates.js");
    const c = (stratum: string, answered: boolean, addresses = 10, y = 5) => ({ stratum, answered, addresses: answered ? addresses : 0, counts: answered ? [y] : [0] });
    expect(collapseStrata([c("A", true), c("A", true), c("B", true), c("C", true), c("C", false)])).toEqual(["A", "A", "\u0000collapsed", "\u0000collapsed", "\u0000collapsed"]);
    // a stratum none of whose postcodes is answered (single-band, fetched last) joins its district's
    const D = (part: string) => `D1${STRATUM_SEPARATOR}${part}`;
    expect(collapseStrata([c(D("x"), true), c(D("x"), true), c(D("x"), true), c(D("single-band"), false), c("E", true), c("E", true)])).toEqual([D("x"), D("x"), D("x"), D("x"), "E", "E"]);
    // small strata of one district with two answered between them are pooled in their district, not with the others
    expect(collapseStrata([c(D("x"), true), c(D("y"), true), c("E", true), c("E", true)])).toEqual(["\u0000collapsedD1", "\u0000collapsedD1", "E", "E"]);
    // a lone answered postcode of a district, with no stratum of two anywhere, joins the largest district pool (not a pool of one)
    const F = (part: string) => `F1${STRATUM_SEPARATOR}${part}`;
    expect(collapseStrata([c(D("x"), true), c(D("y"), true), c(F("x"), true), c(F("y"), false)])).toEqual(["\u0000collapsedD1", "\u0000collapsedD1", "\u0000collapsedD1", "\u0000collapsedD1"]);
    const one = estimateDomain([c("A", true), c("A", false), c("A", false)], 1);
    expect(one.shares[0]).toEqual({ estimate: 0.5, low: null, high: null });
    const none = estimateDomain([c("A", false), c("A", false)], 1);
    expect(none.shares[0]).toEqual({ estimate: null, low: null, high: null });
    const most = estimateDomain([c("A", true, 10, 2), c("A", true, 20, 10), c("A", true, 5, 0), c("A", false)], 1);
    expect(most.exact).toBe(false);
    expect(most.shares[0]!.low!).toBeLessThan(most.shares[0]!.estimate!);
    expect(most.shares[0]!.high!).toBeGreaterThan(most.shares[0]!.estimate!);
  });
});
