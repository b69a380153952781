// The order new postcodes are fetched in: a seeded, stratified random order, so that whatever
// prefix of it the quota allows tonight is close to a stratified random sample of the list (every
// district gets its share from the first night), and the reports can estimate the whole list's
// shares from it (report/estimates.ts). A pure function of (seed, postcode, stratum sizes): nothing
// per postcode is stored, so the order is the same every night and a run resumes where it stopped.
import { compactPostcode } from "../spec/postcode.js";

/** --order: the sample's order (default) or the input file's. */
export const FETCH_ORDERS = ["sample", "input"] as const;
export type FetchOrder = (typeof FETCH_ORDERS)[number];

/** The seed of every list's order: fixed, so the order never changes between nights or machines. */
export const SAMPLE_SEED = "postcode-coverage-sample-1";

/** A 52-bit FNV-1a hash of the text as a number in [0, 1): the same on every machine. */
export function uniformHash(text: string): number {
  let lo = 0x9dc5;
  let hi = 0x811c;
  for (let i = 0; i < text.length; i++) {
    lo ^= text.charCodeAt(i);
    // FNV prime 0x01000193 on a 32-bit value kept in two 16-bit halves
    const l = lo * 0x0193;
    const h = hi * 0x0193 + lo * 0x0100 + (l >>> 16);
    lo = l & 0xffff;
    hi = h & 0xffff;
  }
  // mix the 32 bits into a double with a second, differently seeded round for the low bits
  const a = ((hi << 16) | lo) >>> 0;
  let b = a ^ 0x5bd1e995;
  b = Math.imul(b ^ (b >>> 15), 0x2c1b3c6d) >>> 0;
  b = Math.imul(b ^ (b >>> 12), 0x297a2d39) >>> 0;
  return (a * 2 ** 20 + (b >>> 12)) / 2 ** 52;
}

/** The stratum of a postcode: its district (outward code), the finest postcode part every list has. */
export function postcodeStratum(postcode: string): string {
  const compact = compactPostcode(postcode) ?? postcode.toUpperCase().replace(/\s+/g, "");
  return compact.length > 3 ? compact.slice(0, -3) : compact;
}

/**
 * The items in sample order. Within a stratum, by the hash of (seed, postcode): a simple random
 * sample's order. Across strata, interleaved by (rank + offset) / stratum size, the offset a hash of
 * (seed, stratum): proportional allocation, so any prefix of n holds n × Nh / N of stratum h, give
 * or take one. Ties (and equal scores) fall back to the postcode's own hash.
 */
export function sampleOrder<T>(items: readonly T[], postcodeOf: (item: T) => string, stratumOf: (item: T) => string = (i) => postcodeStratum(postcodeOf(i)), seed = SAMPLE_SEED): T[] {
  const strata = new Map<string, { item: T; key: number }[]>();
  for (const item of items) {
    const stratum = stratumOf(item);
    let members = strata.get(stratum);
    if (!members) strata.set(stratum, (members = []));
    members.push({ item, key: uniformHash(`${seed}\u0000${postcodeOf(item)}`) });
  }
  const scored: { item: T; key: number; score: number }[] = [];
  for (const [stratum, members] of strata) {
    members.sort((a, b) => a.key - b.key);
    const offset = uniformHash(`${seed}\u0001${stratum}`);
    members.forEach((m, rank) => scored.push({ ...m, score: (rank + offset) / members.length }));
  }
  return scored.sort((a, b) => a.score - b.score || a.key - b.key).map((s) => s.item);
}
