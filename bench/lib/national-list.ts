// A synthetic whole-UK list for the national scenario: 1,741,096 postcodes over about 2,500
// districts and 12,000 sectors whose sizes are heavy-tailed (a few large, many small, as the real
// country's are), in 121 areas. Deterministic, and streamed: only the sectors' sizes are held.
import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { UK_AREAS, UK_POSTCODES, ukAreaCodes } from "./open-data-archive.js";

export const NATIONAL_DISTRICTS = 2_500;
export const NATIONAL_SECTORS = 12_000;
/** Units a sector can hold: two letters of the 20 an inward code's unit uses. */
const UNIT_LETTERS = "ABDEFGHJLNPQRSTUWXYZ";
const UNITS_PER_SECTOR = UNIT_LETTERS.length ** 2;

/** mulberry32: a small seeded generator, so every run builds the same list. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Pareto draws (shape alpha): heavy-tailed weights. */
const paretoWeights = (n: number, alpha: number, next: () => number) => Array.from({ length: n }, () => (1 - next()) ** (-1 / alpha));

/** `total` split in proportion to `weights`, each share within [min, max] (water-filling), summing to total. */
export function allocate(total: number, weights: readonly number[], min: number, max: number): number[] {
  const counts = weights.map(() => min);
  let left = total - min * weights.length;
  if (left < 0 || total > max * weights.length) throw new Error(`cannot split ${total} into ${weights.length} parts of ${min} to ${max}`);
  while (left > 0) {
    const open = weights.map((w, i) => [w, i] as const).filter(([, i]) => counts[i]! < max);
    const sum = open.reduce((s, [w]) => s + w, 0);
    let given = 0;
    for (const [w, i] of open) {
      const add = Math.min(max - counts[i]!, Math.floor((left * w) / sum));
      counts[i]! += add;
      given += add;
    }
    if (given === 0)
      for (const [, i] of open.sort(([a], [b]) => b - a).slice(0, left)) {
        counts[i]! += 1;
        given++;
      }
    left -= given;
  }
  return counts;
}

/** Per district (area, number) its sectors' sizes. */
export interface NationalShape {
  districts: { area: string; number: number; sectors: number[] }[];
  postcodes: number;
}

export function nationalShape(postcodes = UK_POSTCODES, districts = NATIONAL_DISTRICTS, sectors = NATIONAL_SECTORS): NationalShape {
  const next = random(2026);
  const sectorsPer = allocate(sectors, paretoWeights(districts, 1.5, next), 1, 10);
  const sizes = allocate(postcodes, paretoWeights(sectors, 1.3, next), 1, UNITS_PER_SECTOR);
  const areas = ukAreaCodes(UK_AREAS);
  let at = 0;
  return {
    postcodes,
    districts: sectorsPer.map((k, d) => {
      const own = sizes.slice(at, at + k);
      at += k;
      return { area: areas[d % areas.length]!, number: 1 + Math.floor(d / areas.length), sectors: own };
    }),
  };
}

/** Per area, its postcodes (compact: "AB123CD"), the areas in order. */
export function* postcodesByArea(shape: NationalShape): Generator<[string, Generator<string>]> {
  const areas = [...new Set(shape.districts.map((d) => d.area))];
  for (const area of areas) {
    const districts = shape.districts.filter((d) => d.area === area);
    yield [
      area,
      (function* () {
        for (const d of districts)
          for (const [s, size] of d.sectors.entries())
            for (let u = 0; u < size; u++) yield `${area}${d.number}${s}${UNIT_LETTERS[Math.floor(u / 20)]}${UNIT_LETTERS[u % 20]}`;
      })(),
    ];
  }
}

/** The list as the batch reads it: `postcode` then each in display form; returns the path. */
export function writeNationalList(dir: string, shape: NationalShape): string {
  const path = join(dir, "national.csv");
  const fd = openSync(path, "w");
  try {
    writeSync(fd, "postcode\n");
    let lines: string[] = [];
    for (const [, postcodes] of postcodesByArea(shape))
      for (const compact of postcodes) {
        lines.push(`${compact.slice(0, -3)} ${compact.slice(-3)}`);
        if (lines.length === 10_000) {
          writeSync(fd, lines.join("\n") + "\n");
          lines = [];
        }
      }
    if (lines.length > 0) writeSync(fd, lines.join("\n") + "\n");
  } finally {
    closeSync(fd);
  }
  return path;
}
