// The list's postcodes as the estimates read them: a slot per postcode in typed arrays (its stratum,
// whether it is answered, its addresses, per figure its count and auxiliary), not an object each:
// as objects, a list of 100,000 postcodes held some 60 MB through the estimates. A domain (the list,
// or one group) is the slots of its postcodes.

/** One postcode of the list, as a caller writes it: a ClusterTable holds many without an object each. */
export interface Cluster {
  stratum: string;
  answered: boolean;
  /** addresses of the answer (0 when unanswered or not found) */
  addresses: number;
  /** per figure, the addresses it counts (aligned with the caller's figure list): whole numbers */
  counts: readonly number[];
  /**
   * per figure, an auxiliary known for every postcode, answered or not (Ofcom's share of its
   * premises below superfast, 0-1); null where unknown. A figure uses it only when every postcode has it.
   */
  auxiliary?: readonly (number | null)[];
}

/** The list, or one of its groups: its postcodes' slots in the list's table. */
export interface Domain {
  table: ClusterTable;
  members: ArrayLike<number>;
}

const FIRST_CAPACITY = 1024;

/** The slots 0 to n - 1: a domain of every postcode (filled in a loop: `Int32Array.from` with a mapper was 40 times slower). */
export function everySlot(n: number): Int32Array {
  const slots = new Int32Array(n);
  for (let i = 0; i < n; i++) slots[i] = i;
  return slots;
}

export class ClusterTable {
  /** stratum names; `stratum[i]` is the index of postcode i's */
  readonly strata: string[] = [];
  private readonly strataIndex = new Map<string, number>();
  size = 0;
  stratum: Int32Array;
  answered: Uint8Array;
  addresses: Float64Array;
  /** postcode i's count of figure f at [i * figures + f] */
  counts: Int32Array;
  /** as counts, NaN where unknown; null when no postcode has an auxiliary */
  auxiliary: Float64Array | null;

  constructor(
    readonly figures: number,
    withAuxiliary: boolean,
    capacity = FIRST_CAPACITY,
  ) {
    this.stratum = new Int32Array(capacity);
    this.answered = new Uint8Array(capacity);
    this.addresses = new Float64Array(capacity);
    this.counts = new Int32Array(capacity * figures);
    this.auxiliary = withAuxiliary ? new Float64Array(capacity * figures) : null;
  }

  /** The table of these clusters, in their order. */
  static of(clusters: readonly Cluster[], figures: number): ClusterTable {
    const table = new ClusterTable(figures, clusters.some((c) => c.auxiliary !== undefined), Math.max(clusters.length, 1));
    for (const c of clusters) table.add(c.stratum, c.answered, c.addresses, (f) => c.counts[f] ?? 0, (f) => c.auxiliary?.[f] ?? null);
    return table;
  }

  /** Appends a postcode; returns its slot. */
  add(stratum: string, answered: boolean, addresses: number, count: (f: number) => number, auxiliary?: (f: number) => number | null): number {
    if (this.size === this.stratum.length) this.grow();
    const i = this.size++;
    let s = this.strataIndex.get(stratum);
    if (s === undefined) this.strataIndex.set(stratum, (s = this.strata.push(stratum) - 1));
    this.stratum[i] = s;
    this.answered[i] = answered ? 1 : 0;
    this.addresses[i] = addresses;
    const at = i * this.figures;
    for (let f = 0; f < this.figures; f++) {
      this.counts[at + f] = count(f);
      if (this.auxiliary) this.auxiliary[at + f] = auxiliary?.(f) ?? NaN;
    }
    return i;
  }

  /** Every slot: the whole list as a domain. */
  all(): Domain {
    return { table: this, members: everySlot(this.size) };
  }

  /** Gives back the room past the last postcode (the arrays grow by half as they fill). */
  trim(): this {
    const n = this.size;
    if (n === this.stratum.length) return this;
    const f = this.figures;
    this.stratum = this.stratum.slice(0, n);
    this.answered = this.answered.slice(0, n);
    this.addresses = this.addresses.slice(0, n);
    this.counts = this.counts.slice(0, n * f);
    this.auxiliary = this.auxiliary?.slice(0, n * f) ?? null;
    return this;
  }

  private grow(): void {
    const capacity = Math.max(FIRST_CAPACITY, Math.ceil(this.stratum.length * 1.5));
    const f = this.figures;
    const widen = <A extends Int32Array | Uint8Array | Float64Array>(a: A, length: number, make: (n: number) => A): A => {
      const wider = make(length);
      wider.set(a);
      return wider;
    };
    this.stratum = widen(this.stratum, capacity, (n) => new Int32Array(n));
    this.answered = widen(this.answered, capacity, (n) => new Uint8Array(n));
    this.addresses = widen(this.addresses, capacity, (n) => new Float64Array(n));
    this.counts = widen(this.counts, capacity * f, (n) => new Int32Array(n));
    if (this.auxiliary) this.auxiliary = widen(this.auxiliary, capacity * f, (n) => new Float64Array(n));
  }
}
