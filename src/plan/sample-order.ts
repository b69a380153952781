// The order new postcodes are fetched in: a seeded, stratified random order, so that whatever
// prefix of it the quota allows tonight is close to a stratified random sample of the list (every
// district gets its share from the first night), and the reports can estimate the whole list's
// shares from it (report/estimates/estimates.ts). A pure function of (seed, postcode, stratum sizes): nothing
// per postcode is stored, only the database's seed (sample-strata.ts), so the order is the same
// every night and a run resumes where it stopped.
import { compactPostcode } from "../contract/postcode.js";

/** --order: the sample's order (default) or the input file's. */
export const FETCH_ORDERS = ["sample", "input"] as const;
export type FetchOrder = (typeof FETCH_ORDERS)[number];

/** The seed of a pure call's order (tests); a database keeps its own (sample-strata.ts), chosen by its first batch. */
export const SAMPLE_SEED = "postcode-coverage-sample-1";

/** murmur3's finaliser: every input bit moves every output bit. */
function fmix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Two 32-bit FNV-1a-style hashes of the text (different offsets), each finalised: a number in [0, 1), the same on every machine. */
export function uniformHash(text: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    a = Math.imul(a ^ k, 0x01000193);
    b = Math.imul(b ^ k, 0x5bd1e995);
  }
  const high = fmix32(a ^ Math.imul(b, 0x9e3779b1));
  const low = fmix32(b + 0x6a09e667) >>> 12;
  return (high * 2 ** 20 + low) / 2 ** 52;
}

/** The stratum of a postcode: its district (outward code), the finest postcode part every list has. */
export function postcodeStratum(postcode: string): string {
  const compact = compactPostcode(postcode) ?? postcode.toUpperCase().replace(/\s+/g, "");
  return compact.length > 3 ? compact.slice(0, -3) : compact;
}

/** Between a stratum's parts: the district first, then the --group-by values (sampleStratum). */
export const STRATUM_SEPARATOR = "\u0001";

/**
 * A postcode's stratum: its district, then its values of the --group-by input columns (and its
 * sector when asked): every group gets its share of any prefix, and so does every district.
 */
export function sampleStratum(postcode: string, parts: readonly string[] = []): string {
  return [postcodeStratum(postcode), ...parts].join(STRATUM_SEPARATOR);
}

/** The district a stratum belongs to: where a stratum with too few answered postcodes is pooled first. */
export function stratumDistrict(stratum: string): string {
  const end = stratum.indexOf(STRATUM_SEPARATOR);
  return end < 0 ? stratum : stratum.slice(0, end);
}

/**
 * The items in sample order. Within a stratum, by the hash of (seed, postcode): a simple random
 * sample's order. Across strata, interleaved by (rank + offset) / stratum size, the offset a hash of
 * (seed, stratum): proportional allocation, so any prefix of n holds n × Nh / N of stratum h, give
 * or take one. Ties (and equal scores) fall back to the postcode's own hash, then to the stratum
 * first met and the rank in it. Kept in typed arrays, one slot per item: an object or two per
 * item, for each lookup's 100,000 candidates, had been a batch's peak of memory.
 */
export function sampleOrder<T>(items: readonly T[], postcodeOf: (item: T) => string, stratumOf: (item: T) => string = (i) => postcodeStratum(postcodeOf(i)), seed = SAMPLE_SEED): T[] {
  const n = items.length;
  const key = new Float64Array(n);
  const stratum = new Int32Array(n);
  const strata = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const item = items[i]!;
    const name = stratumOf(item);
    let s = strata.get(name);
    if (s === undefined) strata.set(name, (s = strata.size));
    stratum[i] = s;
    key[i] = uniformHash(`${seed}\u0000${postcodeOf(item)}`);
  }
  const rank = ranksInStrata(key, stratum, strata.size);
  const size = new Int32Array(strata.size);
  for (let i = 0; i < n; i++) size[stratum[i]!]!++;
  const offset = new Float64Array(strata.size);
  for (const [name, s] of strata) offset[s] = uniformHash(`${seed}\u0001${name}`);
  const score = new Float64Array(n);
  for (let i = 0; i < n; i++) score[i] = (rank[i]! + offset[stratum[i]!]!) / size[stratum[i]!]!;
  const order = indexes(n).sort((a, b) => score[a]! - score[b]! || key[a]! - key[b]! || stratum[a]! - stratum[b]! || rank[a]! - rank[b]!);
  const out = new Array<T>(n);
  for (let j = 0; j < n; j++) out[j] = items[order[j]!]!;
  return out;
}

/** 0 .. n-1. */
function indexes(n: number): Uint32Array {
  const all = new Uint32Array(n);
  for (let i = 0; i < n; i++) all[i] = i;
  return all;
}

/** Each item's rank in its stratum by key, ties in the items' order. */
function ranksInStrata(key: Float64Array, stratum: Int32Array, strata: number): Int32Array {
  const byStratum = indexes(key.length).sort((a, b) => stratum[a]! - stratum[b]! || key[a]! - key[b]! || a - b);
  const rank = new Int32Array(key.length);
  const next = new Int32Array(strata);
  for (const i of byStratum) rank[i] = next[stratum[i]!]!++;
  return rank;
}
