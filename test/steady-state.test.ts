// A year of nights for a list beyond its capacity, planned by the planner's own pure parts
// (sampleOrder, markExpiring, orderNeeds with the quota's allowance) over the simulator's data:
// every night the answered postcodes are the ones the estimates stand on. Every night they hold each
// district's share of them (whatever the quota), and over many draws (each its own sample seed) the
// whole list's and each district's 95% intervals hold the simulator's truth (as
// test/estimates-simulation.test.ts measures it) on at least 93% of the draws, every night.
// A night's answered set is one of a few (the quota's first unanswered postcodes in sample order,
// and for a few days the next period's beside them), so a night's coverage is measured on its draws
// alone: at 100 draws it swung by 1.5 points (one standard deviation) from one hundred draws to the
// next, and the first hundred's night one was 91.5% where 6,000 draws measured 95.9%. At 400 draws
// (0.7 points): the list's 94.4-98.5% a night, the districts' 97.1-97.3%; at 3,000 draws the
// list's 95.6-98.8%, the districts' 97.3-97.4%.
import { describe, expect, it } from "vitest";
import { DEFAULT_PROVIDERS, mobileField, mobileFields } from "../src/contract/fields.js";
import { compactPostcode } from "../src/contract/postcode.js";
import { generateCompact } from "../src/simulator/data.js";
import { tierOf } from "../src/figures/definitions.js";
import { postcodeStratum, sampleOrder } from "../src/plan/sample-order.js";
import { orderNeeds } from "../src/plan/plan.js";
import { allowance, quotaPeriod } from "../src/plan/quota-plan.js";
import { expiringBefore, expiryCutoff, markExpiring } from "../src/plan/retention.js";
import { capacity } from "../src/plan/capacity.js";
import { ClusterTable, everySlot } from "../src/report/estimates/cluster-table.js";
import { clustersByGroup, correlationIn, estimateIn, sizeMomentsIn } from "../src/report/estimates/estimates.js";
import type { Candidate } from "../src/store/types.js";

const DAY = 24 * 3600 * 1000;
/** 400 draws: a night's coverage measured to 0.7 points (one standard deviation), in under 10 s. */
const DRAWS = Number(process.env.DRAWS ?? 400);
const NIGHTS = 365;
const QUOTA = 100;
const RULE = { days: 28, startMs: Date.UTC(2027, 0, 1) };
const T0 = Date.UTC(2027, 0, 1) + 2 * 3600 * 1000;
const RETENTION = 30 * DAY;
const MAX_AGE = 30 * DAY;
const GOOD = 3;

interface Unit {
  postcode: string;
  district: string;
  addresses: number;
  counts: number[];
}

/** 8 districts of 40 postcodes, sorted by district as councils' files are. */
function simulatedList(districts = 8, perDistrict = 40): Unit[] {
  const fields = mobileFields(DEFAULT_PROVIDERS);
  const voice = DEFAULT_PROVIDERS.map((p) => fields.indexOf(mobileField(p, "Voice", "Indoor")));
  const letters = [..."ABDEFGHJLNPQRSTUWXYZ"];
  const units: Unit[] = [];
  for (let d = 0; d < districts; d++) {
    const outward = `${["CF", "LD", "SA", "NP"][d % 4]}${1 + Math.floor(d / 4)}`;
    for (let i = 0; i < perDistrict; i++) {
      const compact = compactPostcode(`${outward} ${i % 10}${letters[Math.floor(i / 10) % 20]}${letters[(i * 7) % 20]}`)!;
      const addresses = generateCompact("steady", compact, DEFAULT_PROVIDERS)?.addresses ?? [];
      const below = addresses.filter((a) => ["Below decent", "Decent"].includes(tierOf(a.speeds.MaxPredictedDown, a.speeds.MaxPredictedUp))).length;
      const notspot = addresses.filter((a) => voice.every((v) => a.ratings[v]! < GOOD)).length;
      units.push({ postcode: compact, district: postcodeStratum(compact), addresses: addresses.length, counts: [below, notspot] });
    }
  }
  return units;
}

const shares = (us: readonly Unit[]) => [0, 1].map((f) => us.reduce((t, u) => t + u.counts[f]!, 0) / us.reduce((t, u) => t + u.addresses, 0));

/** One night of a draw: the postcodes holding an answer after the night's run, and whether they changed since the night before. */
interface Night {
  answered: Set<string>;
  changed: boolean;
}

/**
 * One draw's nights, planned by the planner's pure parts. The list is the same every night, so is
 * its sample order: drawn once, as the planner draws it each night, and the candidates are built in
 * it (what the planner's sort gives); a candidate whose state did not change is the same object.
 */
function* nights(units: readonly Unit[], seed: string, quota = QUOTA, order: "sample" | "input" = "sample"): Generator<Night> {
  const at = new Map<string, number>();
  let used = 0;
  let period = quotaPeriod(T0, RULE).key;
  const lines = new Map(units.map((u, i) => [u.postcode, i + 1]));
  const inOrder = (order === "sample" ? sampleOrder(units, (u) => u.postcode, (u) => u.district, seed) : units).map((u) => ({ postcode: u.postcode, line: lines.get(u.postcode)! }));
  const iso = new Map<number, string>();
  const isoOf = (ms: number) => iso.get(ms) ?? iso.set(ms, new Date(ms).toISOString()).get(ms)!;
  let stored: Candidate[] = [];
  for (let n = 0; n < NIGHTS; n++) {
    const t = T0 + n * DAY;
    const p = quotaPeriod(t, RULE);
    if (p.key !== period) [period, used] = [p.key, 0];
    // the run's start deletes what the retention no longer allows
    const cutoff = Date.parse(expiryCutoff(t, RETENTION)!);
    let changed = n === 0;
    for (const [pc, a] of at) if (a < cutoff) changed = at.delete(pc);
    stored = inOrder.map(({ postcode, line }, i) => {
      const a = at.get(postcode);
      const state = a === undefined ? "new" : a < t - MAX_AGE ? "age" : "fresh";
      const fetchedAt = a === undefined ? null : isoOf(a);
      const before = stored[i];
      return before && before.state === state && before.fetchedAt === fetchedAt ? before : { postcode, line, state, fetchedAt, releaseRank: 0 };
    });
    const ordered = orderNeeds(markExpiring(stored, expiringBefore(t, RETENTION)), () => 0, (first) => allowance(quota, used, first, t, p, false));
    // a night's answers come back in the order they were asked, a few milliseconds apart
    ordered.needs.slice(0, ordered.fetch).forEach((need, i) => at.set(need.postcode, t + 60_000 + i * 50));
    used += ordered.fetch;
    yield { answered: new Set(at.keys()), changed: changed || ordered.fetch > 0 };
  }
}

/** The most any district's answered postcodes stray from its share of the night's answered ones. */
function strayFromShares(units: readonly Unit[], answered: ReadonlySet<string>): number {
  const size = new Map<string, number>();
  const held = new Map<string, number>();
  for (const u of units) {
    size.set(u.district, (size.get(u.district) ?? 0) + 1);
    if (answered.has(u.postcode)) held.set(u.district, (held.get(u.district) ?? 0) + 1);
  }
  return Math.max(...[...size].map(([d, n]) => Math.abs((held.get(d) ?? 0) - (answered.size * n) / units.length)));
}

describe("a year of nights beyond the capacity", () => {
  const units = simulatedList();
  const c = capacity({ quota: QUOTA, periodDays: RULE.days, maxAgeMs: MAX_AGE, retentionMs: RETENTION, listSize: units.length });
  const districts = [...clustersByGroup(units.map((_, i) => i), (i) => units[i]!.district, (i) => i).values()].map((s) => Int32Array.from(s));
  const truth = { list: shares(units), districts: districts.map((s) => shares(Array.from(s, (i) => units[i]!))) };
  const within = (s: { low: number | null; high: number | null }, x: number) => s.low !== null && s.high !== null && s.low <= x && x <= s.high;

  /** Of one answered set, the intervals that hold the truth, and those tried: the list's, and the districts' with an estimate. */
  function held(answered: ReadonlySet<string>) {
    const table = ClusterTable.of(units.map((u) => ({ stratum: u.district, answered: answered.has(u.postcode), addresses: answered.has(u.postcode) ? u.addresses : 0, counts: answered.has(u.postcode) ? u.counts : [0, 0] })), 2);
    const all = table.all();
    const rho = correlationIn(all);
    const moments = sizeMomentsIn(all);
    const out = { list: 0, listTried: 0, groups: 0, groupsTried: 0 };
    estimateIn({ table, members: everySlot(units.length) }, rho, moments).shares.forEach((s, f) => {
      out.listTried++;
      if (within(s, truth.list[f]!)) out.list++;
    });
    districts.forEach((members, d) =>
      estimateIn({ table, members }, rho, moments).shares.forEach((s, f) => {
        if (s.low === null) return;
        out.groupsTried++;
        if (within(s, truth.districts[d]![f]!)) out.groups++;
      }),
    );
    return out;
  }

  // Whatever the quota, the answered postcodes of every night hold each district's share of them, give
  // or take what whole postcodes allow: an expired answer's postcode goes back in its place in the
  // sample order, and a period's quota takes the first unanswered ones, a run of that order. The file's
  // order (sorted by district) is the case the check exists to catch.
  it.each([
    { quota: 37, order: "sample" },
    { quota: QUOTA, order: "sample" },
    { quota: 170, order: "sample" },
    { quota: 250, order: "sample" },
    { quota: QUOTA, order: "input" },
  ] as const)("keeps the answered postcodes a stratified sample every night: quota $quota, $order order", (row) => {
    let most = 0;
    let fewest = Infinity;
    for (let draw = 0; draw < 5; draw++)
      for (const { answered } of nights(units, `draw-${draw}`, row.quota, row.order)) {
        if (answered.size === 0) continue;
        most = Math.max(most, strayFromShares(units, answered));
        fewest = Math.min(fewest, answered.size);
      }
    expect(fewest).toBeLessThan(units.length);
    // within a postcode and a half of its share; the file's order misses whole districts
    if (row.order === "sample") expect(most).toBeLessThanOrEqual(1.5);
    else expect(most).toBeGreaterThanOrEqual(10);
  });

  it("holds the truth in at least 93% of the intervals, the list's and the districts', every night", () => {
    expect(c.exceeded).toBe(true);
    const nightly = Array.from({ length: NIGHTS }, () => ({ list: 0, listTried: 0, groups: 0, groupsTried: 0, answered: 0 }));
    for (let draw = 0; draw < DRAWS; draw++) {
      // a draw's nights hold a few answered sets in turn: each is estimated once
      const seen = new Map<string, ReturnType<typeof held>>();
      let last = held(new Set());
      let n = 0;
      for (const { answered, changed } of nights(units, `draw-${draw}`)) {
        if (changed) {
          const key = [...answered].sort().join();
          last = seen.get(key) ?? seen.set(key, held(answered)).get(key)!;
        }
        const h = nightly[n++]!;
        h.answered += answered.size / DRAWS;
        h.list += last.list;
        h.listTried += last.listTried;
        h.groups += last.groups;
        h.groupsTried += last.groupsTried;
      }
    }
    const list = nightly.map((h) => h.list / h.listTried);
    const groups = nightly.map((h) => h.groups / h.groupsTried);
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const range = (xs: number[]) => `${Math.min(...xs).toFixed(3)}-${Math.max(...xs).toFixed(3)}`;
    console.log(`capacity ${c.postcodes} of ${units.length}; answered on average ${range(nightly.map((h) => h.answered))}; list coverage ${range(list)} (mean ${avg(list).toFixed(3)}), districts ${range(groups)} (mean ${avg(groups).toFixed(3)})`);
    list.forEach((x, n) => expect(x, `night ${n}: the list's intervals`).toBeGreaterThanOrEqual(0.93));
    groups.forEach((x, n) => expect(x, `night ${n}: the districts' intervals`).toBeGreaterThanOrEqual(0.93));
  }, 120_000);
});
