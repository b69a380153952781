// Benchmark input: a CSV of distinct valid postcodes, generated with the simulator's own generator
// so every one is a postcode the simulator answers deterministically.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { normalisePostcode } from "../../src/contract/postcode.js";
import { generatePostcodes } from "../../src/simulator/index.js";

export const BENCH_SEED = "bench";

/** Writes `postcode` then n postcodes in display form (`SW1A 2AA`); returns the path. */
export function writePostcodeCsv(dir: string, n: number, name = "postcodes.csv"): string {
  const path = join(dir, name);
  writeFileSync(path, ["postcode", ...generatePostcodes(BENCH_SEED, n)].join("\n") + "\n");
  return path;
}

/** The same postcodes normalised as the batch's input reader does: the form sent to the API. */
export function compactPostcodes(n: number): string[] {
  return generatePostcodes(BENCH_SEED, n).map((p) => {
    const normalised = normalisePostcode(p);
    if (!normalised.ok) throw new Error(`generated postcode ${p} is not valid: ${normalised.reason}`);
    return normalised.compact;
  });
}
