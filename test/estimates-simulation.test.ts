// The estimates' 95% intervals, tried on the simulator's data (coverage varies by district): many
// samples are drawn in memory in the planner's sample order (each draw its own seed), and the share
// of draws whose interval holds the true share is measured, for the list and for its districts.
import { describe, expect, it } from "vitest";
import { DEFAULT_PROVIDERS, mobileField, mobileFields } from "../src/contract/fields.js";
import { compactPostcode } from "../src/contract/postcode.js";
import { generateCompact } from "../src/simulator/data.js";
import { openDataRow } from "../src/simulator/open-data.js";
import { PUBLISHED_HEADER_2026 } from "../src/contract/open-data.js";
import { tierOf } from "../src/figures/definitions.js";
import { sampleOrder, postcodeStratum, uniformHash } from "../src/plan/sample-order.js";
import { ClusterTable, everySlot } from "../src/report/estimates/cluster-table.js";
import { clustersByGroup, correlationIn, estimateDomain, estimateIn, sizeMoments, sizeMomentsIn, type Cluster } from "../src/report/estimates/estimates.js";

const SEED = "estimates";
const GOOD = 3;
const FIGURES = ["BelowSuperfast", "IndoorVoiceTotalNotspots"] as const;
/** 400 draws: a cell's coverage is measured to ±2.1 points (binomial 95% range at 95%), in ~15 s on two loaded cores. */
const DRAWS = Number(process.env.DRAWS ?? 400);

interface Unit {
  postcode: string;
  district: string;
  addresses: number;
  counts: number[];
  /** Ofcom's share of the postcode's premises without superfast (its open data), 0-1 */
  ofcomBelowSuperfast: number | null;
}
const SUPERFAST = PUBLISHED_HEADER_2026.indexOf("SFBB availability (% premises)");

/** 30 districts of 100 postcodes each, sorted by district as councils' files are. */
export function simulatedList(districts = 30, perDistrict = 100): Unit[] {
  const fields = mobileFields(DEFAULT_PROVIDERS);
  const voice = DEFAULT_PROVIDERS.map((p) => fields.indexOf(mobileField(p, "Voice", "Indoor")));
  const units: Unit[] = [];
  const letters = [..."ABDEFGHJLNPQRSTUWXYZ"];
  for (let d = 0; d < districts; d++) {
    const outward = `${["CF", "LD", "SA", "NP", "HR", "SY"][d % 6]}${1 + Math.floor(d / 6)}`;
    for (let i = 0; i < perDistrict; i++) {
      const compact = compactPostcode(`${outward} ${i % 10}${letters[Math.floor(i / 10) % 20]}${letters[(i * 7) % 20]}`)!;
      const answer = generateCompact(SEED, compact, DEFAULT_PROVIDERS);
      const addresses = answer?.addresses ?? [];
      const below = addresses.filter((a) => ["Below decent", "Decent"].includes(tierOf(a.speeds.MaxPredictedDown, a.speeds.MaxPredictedUp))).length;
      const notspot = addresses.filter((a) => voice.every((v) => a.ratings[v]! < GOOD)).length;
      const ofcom = openDataRow(compact, addresses);
      const ofcomBelowSuperfast = ofcom ? 1 - Number(ofcom[SUPERFAST]) / 100 : null;
      units.push({ postcode: compact, district: postcodeStratum(compact), addresses: addresses.length, counts: [below, notspot], ofcomBelowSuperfast });
    }
  }
  return units;
}

/** Ofcom's files lack postcodes without premises: their share is 0 (nothing to count), as the report reads them. */
const cluster = (u: Unit, answered: boolean, openData = false): Cluster => ({
  stratum: u.district,
  answered,
  addresses: answered ? u.addresses : 0,
  counts: answered ? u.counts : [0, 0],
  ...(openData ? { auxiliary: [u.ofcomBelowSuperfast ?? 0, null] } : {}),
});

function trueShares(units: readonly Unit[]): number[] {
  const x = units.reduce((t, u) => t + u.addresses, 0);
  return FIGURES.map((_, f) => units.reduce((t, u) => t + u.counts[f]!, 0) / x);
}

interface Measured {
  coverage: number;
  width: number;
  draws: number;
}

/** The DRAWS sample orders of a list (each draw its own seed), drawn once: every measure takes prefixes of the same draws. */
const drawn = new WeakMap<readonly Unit[], Unit[][]>();
function draws(units: readonly Unit[]): Unit[][] {
  let orders = drawn.get(units);
  if (!orders) drawn.set(units, (orders = Array.from({ length: DRAWS }, (_, draw) => sampleOrder(units, (u) => u.postcode, (u) => u.district, `draw-${draw}`))));
  return orders;
}

/** Each domain's slots in the list's table (the list's order): every slot, or each group's. */
function domainSlots(units: readonly Unit[], groupOf: ((u: Unit) => string) | null): Int32Array[] {
  if (!groupOf) return [everySlot(units.length)];
  const slots = clustersByGroup([...everySlot(units.length)], (i) => groupOf(units[i]!), (i) => i);
  return [...slots.values()].map((s) => Int32Array.from(s));
}

/**
 * Over DRAWS samples of n postcodes in sample order: for each way of grouping, how often each
 * domain's interval held the truth, and its mean width. As the report does: one table of the list
 * per draw, the intracluster correlation and the strata's size moments the list's, each domain a
 * set of the table's slots.
 */
export function measure(units: readonly Unit[], n: number, groupings: readonly (((u: Unit) => string) | null)[], openData = false): Measured[][] {
  const domains = groupings.map((groupOf) => domainSlots(units, groupOf));
  const truths = groupings.map((_, g) => domains[g]!.map((slots) => trueShares(Array.from(slots, (i) => units[i]!))));
  const held = groupings.map(() => FIGURES.map(() => ({ hit: 0, tried: 0, width: 0 })));
  for (const order of draws(units)) {
    const answered = new Set(order.slice(0, n));
    const table = ClusterTable.of(units.map((u) => cluster(u, answered.has(u), openData)), FIGURES.length);
    const list = table.all();
    const rho = correlationIn(list);
    const moments = sizeMomentsIn(list);
    groupings.forEach((_, g) =>
      domains[g]!.forEach((members, d) => {
        const e = estimateIn({ table, members }, rho, moments);
        e.shares.forEach((s, f) => {
          if (s.low === null || s.high === null) return;
          const h = held[g]![f]!;
          h.tried++;
          h.width += s.high - s.low;
          if (s.low <= truths[g]![d]![f]! && truths[g]![d]![f]! <= s.high) h.hit++;
        });
      }),
    );
  }
  return held.map((figures) => figures.map((h) => ({ coverage: h.hit / h.tried, width: h.width / h.tried, draws: h.tried })));
}

/** Half the binomial 95% range of a coverage measured over `draws` draws: 2.1 points at 400 draws. */
export const binomialRange = (draws: number, p = 0.95) => 1.96 * Math.sqrt((p * (1 - p)) / draws);

/**
 * 95% intervals: over the sampled fractions and figures the cells' coverage averages 93–97% (the mean
 * of 10 cells of DRAWS draws each is measured to about ±0.7 points, a fair test), and each cell is
 * within 93–97% give or take its own binomial range (±2.1 points at 400 draws; a group's cell counts
 * its draws, not draws × groups, as the groups of one draw share its sample): a cell outside that is
 * off by more than chance.
 */
function expectCalibrated(measured: readonly Measured[][]) {
  const all = measured.flat();
  const mean = all.reduce((t, m) => t + m.coverage, 0) / all.length;
  expect(mean).toBeGreaterThanOrEqual(0.93);
  expect(mean).toBeLessThanOrEqual(0.97);
  const range = binomialRange(DRAWS);
  for (const m of all) expect(m.coverage).toBeGreaterThanOrEqual(0.93 - range);
  for (const m of all) expect(m.coverage).toBeLessThanOrEqual(0.97 + range);
}

describe("estimates on the simulator's data", () => {
  const units = simulatedList();

  it("coverage varies by district in the simulator (else stratifying would not matter)", () => {
    const byDistrict = [...clustersByGroup(units, (u) => u.district, (u) => u)].map(([, us]) => trueShares(us)[0]!);
    expect(Math.max(...byDistrict) - Math.min(...byDistrict)).toBeGreaterThan(0.2);
  });

  const DISTRICT_SIZES = [300, 750, 1500];
  const sizes = [60, 150, 300, 750, 1500];
  // groups that are not strata: 6 "wards" cutting across the districts (as an input column's groups do when the sample is not stratified by it)
  const wardOf = (u: Unit) => `W${Math.floor(uniformHash(`ward ${u.postcode}`) * 6)}`;
  // each size's draws measured once for every grouping at that size
  const bySize = sizes.map((n) => measure(units, n, DISTRICT_SIZES.includes(n) ? [null, (u) => u.district, wardOf] : [null]));
  const list = bySize.map((m) => m[0]!);
  const districts = DISTRICT_SIZES.map((n) => bySize[sizes.indexOf(n)]![1]!);
  const wards = DISTRICT_SIZES.map((n) => bySize[sizes.indexOf(n)]![2]!);

  it("the list's 95% intervals hold the true share in 93–97% of draws (2% to 50% answered), and narrow as answers fill in", () => {
    sizes.forEach((n, i) => console.log(`list n=${n}`, FIGURES.map((f, j) => `${f} coverage ${list[i]![j]!.coverage.toFixed(3)} width ${list[i]![j]!.width.toFixed(4)}`).join("; ")));
    expectCalibrated(list);
    for (let i = 1; i < sizes.length; i++) FIGURES.forEach((_, f) => expect(list[i]![f]!.width).toBeLessThan(list[i - 1]![f]!.width));
  });

  it("each district's intervals hold its true share in 93–97% of draws, and narrow as answers fill in", () => {
    districts.forEach((m, i) => console.log(`districts n=${DISTRICT_SIZES[i]}`, FIGURES.map((f, j) => `${f} coverage ${m[j]!.coverage.toFixed(3)} width ${m[j]!.width.toFixed(4)}`).join("; ")));
    expectCalibrated(districts);
    for (let i = 1; i < DISTRICT_SIZES.length; i++) FIGURES.forEach((_, f) => expect(districts[i]![f]!.width).toBeLessThan(districts[i - 1]![f]!.width));
  });

  it("each ward's intervals (groups across the strata) hold its true share in 93–97% of draws, and narrow as answers fill in", () => {
    wards.forEach((m, i) => console.log(`wards n=${DISTRICT_SIZES[i]}`, FIGURES.map((f, j) => `${f} coverage ${m[j]!.coverage.toFixed(3)} width ${m[j]!.width.toFixed(4)}`).join("; ")));
    // before the strata's size moments were read from the whole list, these held 90–92% at 25–50% answered
    expectCalibrated(wards);
    for (let i = 1; i < DISTRICT_SIZES.length; i++) FIGURES.forEach((_, f) => expect(wards[i]![f]!.width).toBeLessThan(wards[i - 1]![f]!.width));
  });

  const withOpenData = sizes.map((n) => measure(units, n, [null], true)[0]!);

  it("with open data, Ofcom's share narrows the broadband intervals and they still hold the true share", () => {
    sizes.forEach((n, i) => console.log(`list n=${n} with open data: BelowSuperfast coverage ${withOpenData[i]![0]!.coverage.toFixed(3)} width ${withOpenData[i]![0]!.width.toFixed(4)} (without: ${list[i]![0]!.width.toFixed(4)})`));
    withOpenData.forEach((m, i) => {
      expect(m[0]!.coverage).toBeGreaterThanOrEqual(0.92);
      expect(m[0]!.width).toBeLessThan(list[i]![0]!.width);
      // no auxiliary for mobile: the same intervals
      expect(m[1]!.width).toBeCloseTo(list[i]![1]!.width, 10);
    });
  });

  it("every postcode answered: the figure is exact, the interval a point", () => {
    const e = estimateDomain(units.map((u) => cluster(u, true)), FIGURES.length);
    expect(e.exact).toBe(true);
    trueShares(units).forEach((t, f) => expect(e.shares[f]).toEqual({ estimate: t, low: t, high: t }));
  });
});

describe("the strata's size moments (the model variance of groups across strata)", () => {
  const c = (stratum: string, answered: boolean, addresses: number, count: number): Cluster => ({ stratum, answered, addresses: answered ? addresses : 0, counts: answered ? [count] : [0] });

  it.each([
    { name: "Σx²/Σx of the answered postcodes per stratum", clusters: [c("A", true, 2, 0), c("A", true, 8, 0), c("A", false, 50, 0), c("B", true, 5, 0)], moments: [["A", 6.8], ["B", 5]] },
    { name: "a stratum without answered addresses has none", clusters: [c("A", true, 0, 0), c("A", false, 9, 0), c("B", true, 3, 0)], moments: [["B", 3]] },
  ])("$name", ({ clusters, moments }) => expect([...sizeMoments(clusters)]).toEqual(moments));

  // a district of 1 large (100 addresses, all counted) and 19 small postcodes (10 addresses, 1 counted each)
  const district = (answered: (i: number) => boolean) => Array.from({ length: 20 }, (_, i) => c("D", answered(i), i === 0 ? 100 : 10, i === 0 ? 100 : 1));

  it("for the list, and a group of whole strata, the list's moments change nothing", () => {
    const list = district((i) => i < 10);
    expect(estimateDomain(list, 1, [0.5], sizeMoments(list))).toEqual(estimateDomain(list, 1, [0.5]));
  });

  it("a group across the strata whose few answered postcodes missed the stratum's large one gets the stratum's spread of sizes: a wider interval", () => {
    const list = district((i) => i < 10);
    // the group: the district's odd postcodes (the large one is postcode 0, not in it)
    const group = list.filter((_, i) => i % 2 === 1);
    const own = estimateDomain(group, 1, [0.5]).shares[0]!;
    const borrowed = estimateDomain(group, 1, [0.5], sizeMoments(list)).shares[0]!;
    expect(borrowed.estimate).toBe(own.estimate);
    expect(borrowed.high! - borrowed.low!).toBeGreaterThan(own.high! - own.low!);
  });
});

describe("a domain whose every postcode is answered", () => {
  const c = (stratum: string, addresses: number, counts: number[]): Cluster => ({ stratum, answered: true, addresses, counts });

  it.each([
    { name: "strata of one postcode each: each share is the counts over the addresses", clusters: [c("A", 4, [1, 4]), c("B", 6, [0, 3]), c("C", 10, [5, 0])], shares: [6 / 20, 7 / 20] },
    { name: "one stratum", clusters: [c("A", 3, [3, 1]), c("A", 1, [0, 1])], shares: [3 / 4, 2 / 4] },
    { name: "no addresses at all: no figure", clusters: [c("A", 0, [0, 0]), c("B", 0, [0, 0])], shares: [null, null] },
    { name: "no postcodes: no figure", clusters: [], shares: [null, null] },
  ])("$name", ({ clusters, shares }) => {
    const e = estimateDomain(clusters, 2, [0.5, 0.5]);
    expect(e).toMatchObject({ exact: true, postcodes: clusters.length, answeredPostcodes: clusters.length });
    expect(e.shares).toEqual(shares.map((s) => ({ estimate: s, low: s, high: s })));
  });
});
