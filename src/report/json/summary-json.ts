// summary.json: the summary's figures as JSON, in the shape schema/summary.schema.json documents,
// written in chunks (json-pieces.ts). Its groups are a bounded few per dimension (listed-groups.ts),
// so the file stays small whatever the list; the summary in memory keeps every group for the
// other files. A lookup without answers (hasAnswers) gives null counts, never 0.
import { writeAtomically } from "../set/atomic-file.js";
import type { Summary } from "../summary/summary.js";
import type { BroadbandKey, BroadbandSummary, MobileSummary, ProviderSummary, Spread } from "../summary/types.js";
import type { RatingShare } from "../scale/scale-figures.js";
import type { MobileScale } from "../../contract/mobile-scales.js";
import { hasAnswers } from "../summary/without-answers.js";
import type { EstimatesSummary } from "../estimates/types.js";
import { estimateKey } from "../estimates/estimate-summary.js";
import { ESTIMATED_GROUP_FIGURES } from "../estimates/group-estimates.js";
import { prettyJsonChunks } from "./json-pieces.js";
import { listDimension, type ListedDimension } from "./listed-groups.js";

/** The version of summary.json's shape: schema/summary.schema.json's `$id` ends with it. A field added or changed raises it. */
export const SUMMARY_SCHEMA_VERSION = 1;

/** summary.json's estimates: the list's, and per dimension its listed groups. */
export type EstimatesJson = Omit<EstimatesSummary, "groups"> & { groups: Record<string, ListedDimension> };

/** A count, or null when no answer stands behind it. */
type Known = number | null;
type Counts<K extends string> = Record<K, Known>;

/** summary.json's broadband: the summary's, its counts null when the lookup has no answer. */
export type BroadbandJson = Omit<BroadbandSummary, BroadbandKey | "addresses"> & Counts<BroadbandKey | "addresses">;

/** summary.json's mobile: the summary's, its address counts null when the lookup has no answer. */
export type MobileJson = Omit<MobileSummary, "addresses" | "providers" | "indoorVoice" | "indoorData" | "ratings" | "scaleAddresses" | "unrated"> & {
  addresses: Known;
  providers: Record<string, Counts<keyof ProviderSummary>>;
  indoorVoice: Counts<keyof Spread>;
  indoorData: Counts<keyof Spread>;
  ratings: Record<string, Record<string, (Omit<RatingShare, "addresses"> & { addresses: Known })[]>>;
  scaleAddresses?: Counts<MobileScale> | undefined;
  unrated?: Record<string, Known> | undefined;
};

/** summary.json as read back. */
export type SummaryJson = Omit<Summary, "estimates" | "broadband" | "mobile"> & {
  schemaVersion: number;
  broadband: BroadbandJson | null;
  mobile: MobileJson | null;
  estimates?: EstimatesJson | null | undefined;
};

/** The value summary.json holds for a summary. */
export function summaryJson(summary: Summary): SummaryJson {
  const { estimates, ...rest } = summary;
  return {
    schemaVersion: SUMMARY_SCHEMA_VERSION,
    ...rest,
    broadband: rest.broadband && broadbandJson(rest.broadband),
    mobile: rest.mobile && mobileJson(rest.mobile),
    ...(estimates === undefined ? {} : { estimates: estimates && estimatesJson(estimates) }),
  };
}

/** Every count of a record null: what a lookup without answers gives (its shares are null already). */
const nulls = <K extends string>(counts: Record<K, number>): Counts<K> => Object.fromEntries(Object.keys(counts).map((k) => [k, null])) as Counts<K>;

function broadbandJson(b: BroadbandSummary): BroadbandJson {
  if (hasAnswers(b)) return b;
  const { postcodes, shares, ...counts } = b;
  return { postcodes, ...nulls(counts), shares };
}

function mobileJson(m: MobileSummary): MobileJson {
  if (hasAnswers(m)) return m;
  const unknownRatings = (places: Record<string, RatingShare[]>) => Object.fromEntries(Object.entries(places).map(([place, list]) => [place, list.map((r) => ({ ...r, addresses: null }))]));
  const ratings = Object.fromEntries(Object.entries(m.ratings).map(([p, places]) => [p, unknownRatings(places)]));
  return {
    ...m,
    addresses: null,
    providers: Object.fromEntries(Object.entries(m.providers).map(([p, counts]) => [p, nulls(counts)])),
    indoorVoice: nulls(m.indoorVoice),
    indoorData: nulls(m.indoorData),
    ratings,
    ...(m.scaleAddresses ? { scaleAddresses: nulls(m.scaleAddresses) } : {}),
    ...(m.unrated ? { unrated: nulls(m.unrated) } : {}),
  };
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
