// The sample's design for a run: the database's seed (chosen by its first batch and kept, so the
// order is the same every night and a run resumes where the last stopped) and each postcode's
// stratum, from --group-by: its district, then its input cells of the --group-by input columns
// (the first row of a postcode that appears twice), then its sector when asked. Area-file columns
// are not strata (the batch reads the area file only for its reports). The reports rebuild the
// same strata from their own --group-by (report/estimates/estimate-summary.ts); docs/estimates.md.
import type { Store } from "../store/store.js";
import { compactPostcode } from "../contract/postcode.js";
import { sampleStratum } from "./sample-order.js";

export interface SampleDesign {
  seed: string;
  stratumOf: (postcode: string) => string;
}

/** A postcode's sector as groups.csv names it ("CF10 1"). */
export function postcodeSector(postcode: string): string {
  const compact = compactPostcode(postcode) ?? postcode.toUpperCase().replace(/\s+/g, "");
  return `${compact.slice(0, -3)} ${compact.charAt(compact.length - 3)}`;
}

/** Which --group-by names are input columns (their indexes, in --group-by order), and whether the sector is asked for. */
export function strataColumns(groupBy: readonly string[], inputColumns: readonly string[]): { indexes: number[]; sector: boolean } {
  const wanted = groupBy.map((g) => g.trim().toLowerCase()).filter((g) => g !== "");
  const indexes = wanted.flatMap((g) => {
    if (g === "area" || g === "district" || g === "sector") return [];
    const i = inputColumns.findIndex((c) => c.toLowerCase() === g);
    return i >= 0 ? [i] : [];
  });
  return { indexes, sector: wanted.includes("sector") };
}

/**
 * The run's design: the stored seed (`candidate` stored when the database has none: the planner
 * passes the first batch's start time, so databases differ and a test's injected clock decides it) and the strata.
 */
export async function sampleDesign(store: Store, runId: number, groupBy: readonly string[], candidate: string): Promise<SampleDesign> {
  const seed = await store.sample.seed(candidate);
  const run = await store.runs.read(runId);
  const { indexes, sector } = strataColumns(groupBy, run?.inputColumns ?? []);
  const cells = await store.sample.inputCells(runId, indexes);
  return {
    seed,
    stratumOf: (postcode) => sampleStratum(postcode, [...(cells.get(postcode) ?? indexes.map(() => "")), ...(sector ? [postcodeSector(postcode)] : [])]),
  };
}
