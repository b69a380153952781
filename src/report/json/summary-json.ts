// summary.json: the summary's figures as JSON, in the shape schema/summary.schema.json documents,
// written in chunks (json-pieces.ts). Its groups are a bounded few per dimension (listed-groups.ts),
// so the file stays small whatever the list; the summary in memory keeps every group for the
// other files.
import { writeAtomically } from "../set/atomic-file.js";
import type { Summary } from "../summary/summary.js";
import type { EstimatesSummary } from "../estimates/types.js";
import { estimateKey } from "../estimates/estimate-summary.js";
import { ESTIMATED_GROUP_FIGURES } from "../estimates/group-estimates.js";
import { prettyJsonChunks } from "./json-pieces.js";
import { listDimension, type ListedDimension } from "./listed-groups.js";

/** The version of summary.json's shape: schema/summary.schema.json's `$id` ends with it. A field added or changed raises it. */
export const SUMMARY_SCHEMA_VERSION = 1;

/** summary.json's estimates: the list's, and per dimension its listed groups. */
export type EstimatesJson = Omit<EstimatesSummary, "groups"> & { groups: Record<string, ListedDimension> };

/** summary.json as read back. */
export type SummaryJson = Omit<Summary, "estimates"> & { schemaVersion: number; estimates?: EstimatesJson | null | undefined };

/** The value summary.json holds for a summary. */
export function summaryJson(summary: Summary): SummaryJson {
  const { estimates, ...rest } = summary;
  return { schemaVersion: SUMMARY_SCHEMA_VERSION, ...rest, ...(estimates === undefined ? {} : { estimates: estimates && estimatesJson(estimates) }) };
}

function estimatesJson(e: EstimatesSummary): EstimatesJson {
  const headline = ESTIMATED_GROUP_FIGURES.map(estimateKey).filter((key) => key in e.shares);
  const groups = Object.fromEntries(Object.entries(e.groups).map(([dimension, values]) => [dimension, listDimension(values, headline)]));
  return { ...e, groups };
}

export function writeSummaryJson(summary: Summary, path: string): Promise<void> {
  return writeAtomically(path, summaryJsonText(summary));
}

function* summaryJsonText(summary: Summary): Generator<string> {
  yield* prettyJsonChunks(summaryJson(summary));
  yield "\n";
}
