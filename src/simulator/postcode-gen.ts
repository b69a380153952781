// Realistic-looking, valid UK postcodes for demo input, benchmarks and soak runs.
import { isValid } from "postcode";
import { rngFor } from "./hash.js";

// Real postcode areas, so generated input reads like a real list.
const AREAS = [
  "AB", "AL", "B", "BA", "BB", "BD", "BH", "BL", "BN", "BR", "BS", "CA", "CB", "CF", "CH", "CM", "CO", "CR", "CT",
  "CV", "CW", "DA", "DD", "DE", "DG", "DH", "DL", "DN", "DT", "DY", "E", "EH", "EN", "EX", "FK", "FY", "G", "GL",
  "GU", "HA", "HD", "HG", "HP", "HR", "HU", "HX", "IG", "IP", "IV", "KA", "KT", "KW", "KY", "L", "LA", "LD", "LE",
  "LL", "LN", "LS", "LU", "M", "ME", "MK", "ML", "N", "NE", "NG", "NN", "NP", "NR", "NW", "OL", "OX", "PA", "PE",
  "PH", "PL", "PO", "PR", "RG", "RH", "RM", "S", "SA", "SE", "SG", "SK", "SL", "SM", "SN", "SO", "SP", "SR", "SS",
  "ST", "SW", "SY", "TA", "TD", "TF", "TN", "TQ", "TR", "TS", "TW", "UB", "W", "WA", "WD", "WF", "WN", "WR", "WS",
  "WV", "YO",
] as const;
// Central London districts that carry a letter (EC1A, SW1A, W1D, ...).
const LETTERED = ["EC1A", "EC2M", "EC4V", "SW1A", "SW1P", "SW1W", "W1D", "W1T", "WC1E", "WC2N", "N1C", "E1W"] as const;
// Letters used in the inward code's unit (never C, I, K, M, O, V).
const UNIT_LETTERS = [..."ABDEFGHJLNPQRSTUWXYZ"];

/**
 * n distinct valid UK postcodes in display form (`SW1A 2AA`), the same list for the same seed.
 * Each is checked with the `postcode` package.
 */
export function generatePostcodes(seed: number | string, n: number): string[] {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`generatePostcodes: n must be a whole number >= 0, got ${n}`);
  const rng = rngFor(String(seed), "postcodes");
  const seen = new Set<string>();
  const out: string[] = [];
  while (out.length < n) {
    const outward = rng.chance(0.03) ? rng.pick(LETTERED) : `${rng.pick(AREAS)}${rng.int(1, rng.chance(0.7) ? 29 : 99)}`;
    const inward = `${rng.int(0, 9)}${rng.pick(UNIT_LETTERS)}${rng.pick(UNIT_LETTERS)}`;
    const postcode = `${outward} ${inward}`;
    if (seen.has(postcode) || !isValid(postcode)) continue;
    seen.add(postcode);
    out.push(postcode);
  }
  return out;
}
