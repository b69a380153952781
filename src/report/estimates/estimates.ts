// Estimates of the whole list's shares from the postcodes answered so far: the planner takes new
// postcodes in a stratified random order (plan/sample-order.ts), so the answered ones are, within
// each stratum, a simple random sample of its postcodes. A share of addresses is then a ratio of
// two totals over postcode clusters (figure count / addresses), estimated with the weights N_h/n_h,
// its variance by linearisation from the spread of the clusters' residuals y - R·x within each
// stratum, with the finite-population correction (1 - n_h/N_h), or, when larger, the variance a
// model of addresses correlated within their postcode predicts (the few very large postcodes make the
// sample's own spread too small until it meets them). Pure: docs/estimates.md.

import { stratumDistrict } from "../../plan/sample-order.js";
import { byLocale, naturalOrder } from "../../figures/name-order.js";
import { ClusterTable, type Cluster, type Domain } from "./cluster-table.js";

export type { Cluster, Domain } from "./cluster-table.js";

/** An estimated share of addresses (fraction), with its 95% interval; nulls when nothing can be said. */
export interface Interval {
  estimate: number | null;
  low: number | null;
  high: number | null;
  /** set when the auxiliary (a regression on it) gave a smaller variance than the plain ratio, and was used */
  auxiliary?: true;
}

export interface DomainEstimate {
  /** postcodes of the domain, and those with a current answer */
  postcodes: number;
  answeredPostcodes: number;
  /** addresses of the answered postcodes: what the estimate stands on */
  answeredAddresses: number;
  /** every postcode answered: the figures are the exact shares, not estimates */
  exact: boolean;
  shares: Interval[];
}

interface StratumSums {
  N: number;
  n: number;
  sx: number;
  sxx: number;
  /** Σ x·m over the answered postcodes, m the size moment of the postcode's stratum in the list (sizeMoments) */
  sxm: number;
  sy: number[];
  syy: number[];
  sxy: number[];
  /** the auxiliary's sums; null when no postcode of the domain has an auxiliary (no --open-data) */
  aux: AuxiliarySums | null;
}

/** Per figure, the auxiliary's sums: over every postcode (Z), and over the answered ones. */
interface AuxiliarySums {
  Z: number[];
  sz: number[];
  szz: number[];
  szy: number[];
  szx: number[];
}

const COLLAPSED = "\u0000collapsed";

/**
 * The effective stratum of each cluster: a stratum with fewer than two answered postcodes gives no
 * variance of its own, so it is pooled with the other such strata of its district (the stratum's
 * first part: stratumDistrict); when those are still fewer than two, it joins its district's
 * stratum with the most answered postcodes; failing that, the pool of all such strata, or the
 * domain's largest stratum, or its largest district pool. A stratum none of whose postcodes is answered (e.g. the single-band
 * postcodes the planner fetches last) is so represented by its district's answered postcodes.
 */
export function collapseStrata(clusters: readonly Cluster[]): string[] {
  const domain = ClusterTable.of(clusters, 0).all();
  const effective = effectiveStrata(domain);
  return clusters.map((_, i) => effective.get(domain.table.stratum[i]!)!);
}

/** collapseStrata for a domain: per stratum of its postcodes (by index, in order of first appearance), the effective stratum's name. */
function effectiveStrata({ table, members }: Domain): Map<number, string> {
  const answered = new Map<number, number>();
  for (let k = 0; k < members.length; k++) {
    const i = members[k]!;
    const s = table.stratum[i]!;
    answered.set(s, (answered.get(s) ?? 0) + table.answered[i]!);
  }
  const name = (s: number) => table.strata[s]!;
  const largestIn = new Map<string, number>();
  let largest: number | null = null;
  const districtPool = new Map<string, number>();
  for (const [s, n] of answered) {
    const d = stratumDistrict(name(s));
    if (n < 2) districtPool.set(d, (districtPool.get(d) ?? 0) + n);
    else {
      if (n > (answered.get(largestIn.get(d) ?? -1) ?? 0)) largestIn.set(d, s);
      if (largest === null || n > answered.get(largest)!) largest = s;
    }
  }
  let pool = 0;
  for (const [d, n] of districtPool) if (n < 2 && !largestIn.has(d)) pool += n;
  // with no stratum of two or more, the largest district pool takes a lone answered postcode in
  let largestPool: string | null = null;
  for (const [d, n] of districtPool) if (n >= 2 && (largestPool === null || n > districtPool.get(largestPool)!)) largestPool = d;
  const fallback = largest !== null ? name(largest) : largestPool === null ? COLLAPSED : `${COLLAPSED}${largestPool}`;
  const effective = new Map<number, string>();
  for (const [s, n] of answered) {
    const d = stratumDistrict(name(s));
    const inDistrict = largestIn.get(d);
    effective.set(s, n >= 2 ? name(s) : districtPool.get(d)! >= 2 ? `${COLLAPSED}${d}` : inDistrict !== undefined ? name(inDistrict) : pool >= 2 ? COLLAPSED : fallback);
  }
  return effective;
}

/** The sums of each effective stratum of the domain, in order of first appearance. */
function stratumSums(domain: Domain, moments?: ReadonlyMap<string, number>): StratumSums[] {
  const { table, members } = domain;
  const figures = table.figures;
  const zeros = () => new Array<number>(figures).fill(0);
  // a report of many groups sums each group's strata: without an auxiliary, its sums are not made
  const auxiliary = table.auxiliary;
  const byName = new Map<string, StratumSums>();
  const byStratum = new Map<number, { sums: StratumSums; moment: number | undefined }>();
  for (const [s, name] of effectiveStrata(domain)) {
    let sums = byName.get(name);
    if (!sums) byName.set(name, (sums = { N: 0, n: 0, sx: 0, sxx: 0, sxm: 0, sy: zeros(), syy: zeros(), sxy: zeros(), aux: auxiliary ? { Z: zeros(), sz: zeros(), szz: zeros(), szy: zeros(), szx: zeros() } : null }));
    byStratum.set(s, { sums, moment: moments?.get(table.strata[s]!) });
  }
  for (let k = 0; k < members.length; k++) {
    const i = members[k]!;
    const { sums: s, moment } = byStratum.get(table.stratum[i]!)!;
    const at = i * figures;
    s.N++;
    if (s.aux) for (let f = 0; f < figures; f++) s.aux.Z[f]! += auxiliary![at + f]!;
    if (!table.answered[i]) continue;
    const x = table.addresses[i]!;
    s.n++;
    s.sx += x;
    s.sxx += x * x;
    s.sxm += x * (moment ?? x);
    for (let f = 0; f < figures; f++) {
      const y = table.counts[at + f]!;
      s.sy[f]! += y;
      s.syy[f]! += y * y;
      s.sxy[f]! += y * x;
      if (!s.aux) continue;
      const z = auxiliary![at + f]!;
      s.aux.sz[f]! += z;
      s.aux.szz[f]! += z * z;
      s.aux.szy[f]! += z * y;
      s.aux.szx[f]! += z * x;
    }
  }
  return [...byName.values()];
}

/** The 97.5% point of Student's t with df degrees of freedom (Cornish-Fisher; 1.96 for large df). */
export function t975(df: number): number {
  const z = 1.959964;
  if (!Number.isFinite(df) || df > 1e6) return z;
  const d = Math.max(df, 1);
  return z + (z ** 3 + z) / (4 * d) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * d * d) + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * d ** 3);
}

const clip = (x: number) => Math.min(1, Math.max(0, x));

/**
 * Wilson's score interval on the effective number of addresses n = R(1 - R) / V: a cluster
 * sample's shares are skewed when they are small, and a symmetric R ± t·SE then misses low true
 * shares far more than 5% of the time. A point when nothing is left to estimate (n infinite).
 */
export function wilsonInterval(R: number, n: number, z: number): Interval {
  if (!Number.isFinite(n)) return { estimate: R, low: R, high: R };
  const z2 = z * z;
  const centre = (R + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((R * (1 - R)) / n + z2 / (4 * n * n));
  return { estimate: R, low: clip(centre - half), high: clip(centre + half) };
}

/**
 * The intracluster correlation of a figure: the share of its address-level variance that lies
 * between postcodes, 1 − Σ x·p_i(1 − p_i) / (Σx · p(1 − p)) over the answered postcodes (1 when
 * every postcode is all or nothing, 0 when postcodes are like random handfuls of addresses). One
 * per figure, from the whole list, so that a small group's interval does not rest on its own few
 * postcodes' spread. 1 (the cautious end) when the answered addresses are all in or all out.
 */
export function intraclusterCorrelation(clusters: readonly Cluster[], figures: number): number[] {
  return correlationIn(ClusterTable.of(clusters, figures).all());
}

/** intraclusterCorrelation of a domain's postcodes. */
export function correlationIn({ table, members }: Domain): number[] {
  const figures = table.figures;
  let x = 0;
  const y = new Array<number>(figures).fill(0);
  const within = new Array<number>(figures).fill(0);
  for (let k = 0; k < members.length; k++) {
    const i = members[k]!;
    const xi = table.addresses[i]!;
    if (!table.answered[i] || xi === 0) continue;
    x += xi;
    for (let f = 0; f < figures; f++) {
      const yi = table.counts[i * figures + f]!;
      y[f]! += yi;
      within[f]! += (yi * (xi - yi)) / xi;
    }
  }
  return y.map((yf, f) => {
    const p = x > 0 ? yf / x : 0;
    return p > 0 && p < 1 ? clip(1 - within[f]! / (x * p * (1 - p))) : 1;
  });
}

/**
 * Per stratum of the list, the size moment Σx²/Σx of its answered postcodes (the address-weighted
 * mean postcode size): the model's Σx² of a domain's answered postcodes in the stratum is read as
 * Σx·m. A group that cuts across the strata (a ward over districts) holds a handful of each
 * stratum's answered postcodes; their own Σx² swings with whether they met one of the few very
 * large postcodes, and swings down exactly when the estimate does (the large ones are where most
 * of a rare share lies), so its intervals were too narrow when they missed the truth. The
 * stratum's moment, from all its answered postcodes, is the same quantity known better. For the
 * list, and a group made of whole strata, Σx·m = Σx²: nothing changes.
 */
export function sizeMoments(clusters: readonly Cluster[]): Map<string, number> {
  return sizeMomentsIn(ClusterTable.of(clusters, 0).all());
}

/** sizeMoments of a domain's postcodes. */
export function sizeMomentsIn({ table, members }: Domain): Map<string, number> {
  const sums = new Map<number, { x: number; xx: number }>();
  for (let k = 0; k < members.length; k++) {
    const i = members[k]!;
    if (!table.answered[i]) continue;
    const stratum = table.stratum[i]!;
    const x = table.addresses[i]!;
    const s = sums.get(stratum) ?? { x: 0, xx: 0 };
    s.x += x;
    s.xx += x * x;
    sums.set(stratum, s);
  }
  return new Map([...sums].filter(([, s]) => s.x > 0).map(([k, s]) => [table.strata[k]!, s.xx / s.x]));
}

/**
 * The effective number of addresses under the model that each address of postcode i is counted
 * with the same chance, correlated ρ within the postcode: the ratio's prediction variance is then
 * p(1 − p) Σ_h (1 − f_h)(N_h/n_h)² Σ x_i(1 + (m_i − 1)ρ) / X² (m_i = x_i, or its stratum's size moment), and n = X² / Σ(...). It does not
 * depend on the sample's spread, so it stays honest when the sample has not yet met the few large,
 * badly served postcodes that most of the spread comes from.
 */
function modelEffectiveAddresses(strata: readonly StratumSums[], X: number, rho: number): number {
  let sum = 0;
  for (const s of strata) sum += (1 - s.n / s.N) * (s.N / s.n) ** 2 * ((1 - rho) * s.sx + rho * s.sxm);
  return sum > 0 ? (X * X) / sum : Infinity;
}

/**
 * One figure's ratio estimate and interval from the strata's sums: the variance is the larger of
 * the design's (linearised, from the spread of the answered postcodes) and the model's
 * (modelEffectiveAddresses), at Student's t on the design's degrees of freedom (postcodes − strata).
 */
function ratioInterval(strata: readonly StratumSums[], f: number, rho: number): Interval {
  let Y = 0;
  let X = 0;
  let n = 0;
  for (const s of strata) {
    Y += (s.N / s.n) * s.sy[f]!;
    X += (s.N / s.n) * s.sx;
    n += s.n;
  }
  if (X === 0) return { estimate: null, low: null, high: null };
  if (strata.some((s) => s.n < 2)) return { estimate: Y / X, low: null, high: null };
  const plain = { R: Y / X, variance: linearisedVariance(strata, f, Y / X, 0) / (X * X) };
  const regression = regressionEstimate(strata, f, X);
  const best = regression && regression.variance < plain.variance ? regression : plain;
  const design = best.variance > 0 && best.R > 0 && best.R < 1 ? (best.R * (1 - best.R)) / best.variance : Infinity;
  const interval = wilsonInterval(best.R, Math.min(design, modelEffectiveAddresses(strata, X, rho)), t975(n - strata.length));
  return best === plain ? interval : { ...interval, auxiliary: true };
}

/** Σ_h N_h²(1 − f_h) s²_e,h / n_h of the residuals e = y − b·z − R·x (b = 0: the plain ratio's). */
function linearisedVariance(strata: readonly StratumSums[], f: number, R: number, b: number): number {
  let variance = 0;
  for (const s of strata) {
    const sz = b === 0 ? 0 : s.aux!.sz[f]!;
    const se = s.sy[f]! - b * sz - R * s.sx;
    const cross = b === 0 ? 0 : b * b * s.aux!.szz[f]! - 2 * b * s.aux!.szy[f]! + 2 * b * R * s.aux!.szx[f]!;
    const see = s.syy[f]! - 2 * R * s.sxy[f]! + R * R * s.sxx + cross;
    const s2 = Math.max(0, see - (se * se) / s.n) / (s.n - 1);
    variance += ((s.N * s.N * (1 - s.n / s.N)) / s.n) * s2;
  }
  return variance;
}

/**
 * The regression estimator on the auxiliary z (known for every postcode): the figure's total
 * Ŷ + b(Z − Ẑ), b the within-strata weighted slope of y on z, over the estimated addresses X.
 * Null when some postcode lacks the auxiliary or it does not vary.
 */
function regressionEstimate(strata: readonly StratumSums[], f: number, X: number): { R: number; variance: number } | null {
  let Sxy = 0;
  let Sxx = 0;
  let Y = 0;
  let Zhat = 0;
  let Z = 0;
  for (const s of strata) {
    if (!s.aux) return null;
    const w = s.N / s.n;
    Sxy += w * (s.aux.szy[f]! - (s.aux.sz[f]! * s.sy[f]!) / s.n);
    Sxx += w * (s.aux.szz[f]! - (s.aux.sz[f]! * s.aux.sz[f]!) / s.n);
    Y += w * s.sy[f]!;
    Zhat += w * s.aux.sz[f]!;
    Z += s.aux.Z[f]!;
  }
  if (!Number.isFinite(Z) || !Number.isFinite(Sxx) || Sxx <= 0) return null;
  const b = Sxy / Sxx;
  const R = Math.min(1, Math.max(0, (Y + b * (Z - Zhat)) / X));
  return { R, variance: linearisedVariance(strata, f, R, b) / (X * X) };
}

/**
 * The shares of a domain (the list, or a group's postcodes) estimated from its answered clusters;
 * `rho` per figure, the list's intracluster correlation (its own when not given); `moments`, the
 * list's size moment per stratum (sizeMoments; the domain's own postcodes' when not given).
 */
export function estimateDomain(clusters: readonly Cluster[], figures: number, rho?: readonly number[], moments?: ReadonlyMap<string, number>): DomainEstimate {
  return estimateIn(ClusterTable.of(clusters, figures).all(), rho, moments);
}

/** estimateDomain of a domain's postcodes in the list's table. */
export function estimateIn(domain: Domain, rho: readonly number[] = correlationIn(domain), moments?: ReadonlyMap<string, number>): DomainEstimate {
  const { table, members } = domain;
  let answered = 0;
  let answeredAddresses = 0;
  for (let k = 0; k < members.length; k++) {
    const i = members[k]!;
    if (!table.answered[i]) continue;
    answered++;
    answeredAddresses += table.addresses[i]!;
  }
  const exact = answered === members.length;
  const facts = { postcodes: members.length, answeredPostcodes: answered, answeredAddresses, exact };
  if (exact) return { ...facts, shares: exactShares(domain, answeredAddresses) };
  // the strata with an answered postcode: the only ones an estimate stands on
  const strata = stratumSums(domain, moments).filter((s) => s.n > 0);
  return { ...facts, shares: Array.from({ length: table.figures }, (_, f) => ratioInterval(strata, f, rho[f] ?? 1)) };
}

/**
 * Every postcode answered: each share is its count over the addresses, a point. The same figures
 * the ratio estimate would give (each stratum's weight is 1 and the sums are of whole numbers, so
 * their order changes nothing), without the strata's sums: a night that answered the whole list
 * has thousands of groups, every one of them exact.
 */
function exactShares({ table, members }: Domain, addresses: number): Interval[] {
  const sums = new Float64Array(table.figures);
  for (let k = 0; k < members.length; k++) {
    const at = members[k]! * table.figures;
    for (let f = 0; f < table.figures; f++) sums[f]! += table.counts[at + f]!;
  }
  return Array.from(sums, (y) => (addresses === 0 ? { estimate: null, low: null, high: null } : { estimate: y / addresses, low: y / addresses, high: y / addresses }));
}

/** The domains of a dimension: its values, each with its clusters, sorted by value. */
export function clustersByGroup<T, C = Cluster>(items: readonly T[], groupOf: (item: T) => string, clusterOf: (item: T) => C): Map<string, C[]> {
  const groups = new Map<string, C[]>();
  for (const item of items) {
    const g = groupOf(item);
    let members = groups.get(g);
    if (!members) groups.set(g, (members = []));
    members.push(clusterOf(item));
  }
  return new Map([...groups].sort(([a], [b]) => naturalOrder(a, b, byLocale)));
}
