// The lookup registry: what each of the API's lookups is, declared once, so the code loops over
// LOOKUP_SPECS instead of spelling out "broadband" and "mobile"; code outside src/contract and the
// simulator asks a lookup's properties here, never its name (test/lookup-names.test.ts). What stays
// per lookup elsewhere is keyed by Lookup, so the compiler names every place a third lookup must fill
// in (docs/architecture.md): its entry here, its validator (fetch/validate-body.ts), its address
// table's columns (store/sqlite/schema.ts) and its report figures (figures/measures.ts,
// report/groups/groups.ts).
import { LOOKUPS, SPEED_FIELDS, mobileFields, type Lookup } from "./fields.js";

export interface LookupSpec {
  name: Lookup;
  /** as a heading or a sentence's start: "Broadband" */
  label: string;
  /** the API's path of this lookup for a postcode (compact, upper case) */
  path(postcode: string): string;
  /** the store's table of the latest answer's addresses */
  table: string;
  /** the environment variable holding this lookup's own key (COVERAGE_API_KEY serves both) */
  keyEnv: string;
  /** the value fields an address carries after UPRN and address, in spec order */
  valueFields(providers: readonly string[]): string[];
  /** its fields depend on --providers: an answer records which providers it holds ratings for */
  perProvider: boolean;
  /** its answers name their dataset release (mobile's DBName), so a run's own answers tell a new one */
  namesRelease: boolean;
  /** Ofcom's open postcode data has figures for it (docs/open-data.md) */
  openData: boolean;
  /** its values are ratings on one of Ofcom's mobile scales (mobile-scales.ts): each release records
   * which, from its answers' rating evidence, and status names it */
  ratingScale: boolean;
}

export const LOOKUP_SPECS: Readonly<Record<Lookup, LookupSpec>> = {
  broadband: {
    name: "broadband",
    label: "Broadband",
    path: (postcode) => `/broadband/coverage/${encodeURIComponent(postcode)}`,
    table: "broadband_addresses",
    keyEnv: "COVERAGE_BROADBAND_KEY",
    valueFields: () => [...SPEED_FIELDS],
    perProvider: false,
    namesRelease: false,
    openData: true,
    ratingScale: false,
  },
  mobile: {
    name: "mobile",
    label: "Mobile",
    path: (postcode) => `/mobile/coverage/${encodeURIComponent(postcode)}`,
    table: "mobile_addresses",
    keyEnv: "COVERAGE_MOBILE_KEY",
    valueFields: (providers) => mobileFields(providers),
    perProvider: true,
    namesRelease: true,
    openData: false,
    ratingScale: true,
  },
};

/** The registry's entries, in LOOKUPS order. */
export const LOOKUP_LIST: readonly LookupSpec[] = LOOKUPS.map((l) => LOOKUP_SPECS[l]);

/** One value per lookup, from the registry's order: { broadband: f("broadband"), mobile: f("mobile") }. */
export function perLookup<T>(f: (lookup: Lookup) => T): Record<Lookup, T> {
  return Object.fromEntries(LOOKUPS.map((l) => [l, f(l)])) as Record<Lookup, T>;
}

/** A list in words, as messages name several lookups or variables: "a", "a and b", "a, b and c". */
export function inWords(words: readonly string[]): string {
  return words.length <= 2 ? words.join(" and ") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}
