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

const fromNumber = (x: number) => (Number.isNaN(x) ? null : x);

export class PackedDomain implements GroupEstimate {
  readonly postcodes: number;
  readonly answeredPostcodes: number;
  readonly answeredPerLookup: EstimatedDomain["answeredPerLookup"];
  readonly exact: boolean;
  /** estimate, low, high of each share in the keys' order */
  private readonly values: Float64Array;
  /** the keys' places whose interval used the auxiliary (estimates.ts); null when none did */
  private readonly auxiliary: readonly number[] | null;

  constructor(
    domain: EstimatedDomain,
    private readonly keys: ShareKeys,
  ) {
    this.postcodes = domain.postcodes;
    this.answeredPostcodes = domain.answeredPostcodes;
    this.answeredPerLookup = domain.answeredPerLookup;
    this.exact = domain.exact;
    this.values = new Float64Array(keys.keys.length * 3).fill(NaN);
    const auxiliary: number[] = [];
    for (const [key, interval] of Object.entries(domain.shares)) {
      const i = keys.at(key);
      if (i === undefined) throw new Error(`estimates: no place for the share ${key}`);
      this.values.set([interval.estimate ?? NaN, interval.low ?? NaN, interval.high ?? NaN], 3 * i);
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
    const interval: Interval = { estimate: fromNumber(v[3 * i]!), low: fromNumber(v[3 * i + 1]!), high: fromNumber(v[3 * i + 2]!) };
    return this.auxiliary?.includes(i) ? { ...interval, auxiliary: true } : interval;
  }

  toJSON(): EstimatedDomain {
    const shares = Object.fromEntries(this.keys.keys.map((key, i) => [key, this.interval(i)]));
    return { postcodes: this.postcodes, answeredPostcodes: this.answeredPostcodes, answeredPerLookup: this.answeredPerLookup, exact: this.exact, shares };
  }
}
