// A group's estimates, packed: a report of tens of thousands of groups held thirty-odd interval
// objects for each, most of its live memory through every file of the set. Here a group keeps its
// shares as numbers in one typed array (null as NaN, which JSON writes as null too), reads them one
// at a time (share), and summary.json gets the EstimatedDomain it always had (toJSON).
import type { Interval } from "./estimates.js";
import type { EstimatedDomain, GroupEstimate } from "./types.js";

/** The shares' keys in order, with each one's place: one for all the groups of a report. */
export class ShareKeys {
  private readonly index: ReadonlyMap<string, number>;
  constructor(readonly keys: readonly string[]) {
    this.index = new Map(keys.map((k, i) => [k, i]));
  }
  at(key: string): number | undefined {
    return this.index.get(key);
  }
}

const isOrdered = (shares: EstimatedDomain["shares"] | readonly Interval[]): shares is readonly Interval[] => Array.isArray(shares);

const fromNumber = (x: number) => (Number.isNaN(x) ? null : x);

/** A share whose interval is its estimate alone (every exact share, and one with no figure): one number holds it. */
const isPoint = (i: Interval) => !i.auxiliary && i.low === i.estimate && i.high === i.estimate;

export class PackedDomain implements GroupEstimate {
  readonly postcodes: number;
  readonly answeredPostcodes: number;
  readonly answeredPerLookup: EstimatedDomain["answeredPerLookup"];
  readonly exact: boolean;
  /** per share in the keys' order: estimate, low, high; or the estimate alone when every share is a point (`width` 1) */
  private readonly values: Float64Array;
  private readonly width: 1 | 3;
  /** the keys' places whose interval used the auxiliary (estimates.ts); null when none did */
  private readonly auxiliary: readonly number[] | null;

  /** `domain.shares` by key, or as an array in the keys' order (what estimate-summary.ts computes: no key looked up per share). */
  constructor(
    domain: Omit<EstimatedDomain, "shares"> & { shares: EstimatedDomain["shares"] | readonly Interval[] },
    private readonly keys: ShareKeys,
  ) {
    this.postcodes = domain.postcodes;
    this.answeredPostcodes = domain.answeredPostcodes;
    this.answeredPerLookup = domain.answeredPerLookup;
    this.exact = domain.exact;
    const placed = placedShares(domain.shares, keys);
    // a list answered in full has thousands of groups, every share of them a point
    this.width = placed.every(([, interval]) => isPoint(interval)) ? 1 : 3;
    this.values = new Float64Array(keys.keys.length * this.width).fill(NaN);
    const auxiliary: number[] = [];
    for (const [i, interval] of placed) {
      const at = i * this.width;
      this.values[at] = interval.estimate ?? NaN;
      if (this.width === 3) {
        this.values[at + 1] = interval.low ?? NaN;
        this.values[at + 2] = interval.high ?? NaN;
      }
      if (interval.auxiliary) auxiliary.push(i);
    }
    this.auxiliary = auxiliary.length > 0 ? auxiliary : null;
  }

  share(key: string): Interval | undefined {
    const i = this.keys.at(key);
    return i === undefined ? undefined : this.interval(i);
  }

  private interval(i: number): Interval {
    const v = this.values;
    if (this.width === 1) {
      const point = fromNumber(v[i]!);
      return { estimate: point, low: point, high: point };
    }
    const interval: Interval = { estimate: fromNumber(v[3 * i]!), low: fromNumber(v[3 * i + 1]!), high: fromNumber(v[3 * i + 2]!) };
    return this.auxiliary?.includes(i) ? { ...interval, auxiliary: true } : interval;
  }

  toJSON(): EstimatedDomain {
    const shares = Object.fromEntries(this.keys.keys.map((key, i) => [key, this.interval(i)]));
    return { postcodes: this.postcodes, answeredPostcodes: this.answeredPostcodes, answeredPerLookup: this.answeredPerLookup, exact: this.exact, shares };
  }
}

/** Each share with its place among the keys; a share the keys have no place for is refused. */
function placedShares(shares: EstimatedDomain["shares"] | readonly Interval[], keys: ShareKeys): [number, Interval][] {
  const place = (i: number | undefined, name: string) => {
    if (i === undefined || i >= keys.keys.length) throw new Error(`estimates: no place for the share ${name}`);
    return i;
  };
  return isOrdered(shares) ? shares.map((interval, i) => [place(i, `number ${i + 1}`), interval]) : Object.entries(shares).map(([key, interval]) => [place(keys.at(key), key), interval]);
}
