// The names of each postcode's figures (the snapshot's PostcodeColumn): statuses, address counts,
// best and worst download, the counts of measures.ts, coordinates and Ofcom's open data. The store
// computes them; postcodes.csv, enriched.csv, the summary, the groups and the map name them.
import type { Lookup } from "../contract/fields.js";
import type { MobileScale } from "../contract/mobile-scales.js";
import { LOOKUP_SPECS, perLookup } from "../contract/lookups.js";
import { OPEN_DATA_COLUMNS, OPEN_DATA_MONTH_COLUMN } from "../contract/open-data.js";
import { BROADBAND_COUNTS, mobileCountColumns } from "./measures.js";

export const STATUS_COLUMN: Record<Lookup, string> = perLookup((l) => `${LOOKUP_SPECS[l].label}Status`);
export const ADDRESSES_COLUMN: Record<Lookup, string> = perLookup((l) => `${LOOKUP_SPECS[l].label}Addresses`);

/** Per mobile scale, a postcode's mobile addresses whose answer's release is on that scale (whatever scale the figures read them on). */
export const SCALE_ADDRESSES_COLUMN: Readonly<Record<MobileScale, string>> = { legacy: "LegacyScaleAddresses", current: "CurrentScaleAddresses" };
/** The report's postcode table: the scale of the postcode's mobile answer, and the good rating it is judged by. */
export const MOBILE_SCALE_COLUMN = "MobileScale";
export const MOBILE_GOOD_COLUMN = "MobileGood";
/** Best and worst MaxPredictedDown among a postcode's addresses that have data. */
export const DOWNLOAD_RANGE_COLUMNS = ["BestMaxPredictedDown", "WorstMaxPredictedDown"] as const;
/** The Status of an input row whose postcode was found but whose UPRN is in no answer for it (--uprn-column). */
export const UPRN_NOT_FOUND = "uprn_not_found";
/** Each postcode's latest answer's release per lookup (postcodes.geojson). */
export const RELEASE_COLUMN: Record<Lookup, string> = perLookup((l) => `${LOOKUP_SPECS[l].label}Release`);

/** The per-postcode address counts of each lookup, in postcodes.csv order. */
export function countColumns(providers: readonly string[]): Record<Lookup, string[]> {
  return { broadband: BROADBAND_COUNTS.map((m) => m.column), mobile: mobileCountColumns(providers) };
}

/** The postcode figures' columns of Ofcom's open data, when the store holds a release (docs/open-data.md). */
export function openDataColumns(scope: { readonly openData?: object | null }): string[] {
  return scope.openData ? [OPEN_DATA_MONTH_COLUMN, ...OPEN_DATA_COLUMNS] : [];
}
