// The one place that names the coverage API's fields (the API documentation, §2; summarised in docs/api-notes.md).
// Columns, SQL, CSV headers, validators and the simulator are all generated from here.

export const LOOKUPS = ["broadband", "mobile"] as const;
export type Lookup = (typeof LOOKUPS)[number];

/** The 8 broadband speed fields, in spec order (§2.2). Mbit/s; -1 = no prediction. */
export const SPEED_FIELDS = [
  "MaxBbPredictedDown",
  "MaxBbPredictedUp",
  "MaxSfbbPredictedDown",
  "MaxSfbbPredictedUp",
  "MaxUfbbPredictedDown",
  "MaxUfbbPredictedUp",
  "MaxPredictedDown",
  "MaxPredictedUp",
] as const;
export type SpeedField = (typeof SPEED_FIELDS)[number];

/** Speeds per category, ordered from slowest to fastest; the overall maximum is separate. */
export const SPEED_CATEGORIES = [
  { name: "Bb", down: "MaxBbPredictedDown", up: "MaxBbPredictedUp" },
  { name: "Sfbb", down: "MaxSfbbPredictedDown", up: "MaxSfbbPredictedUp" },
  { name: "Ufbb", down: "MaxUfbbPredictedDown", up: "MaxUfbbPredictedUp" },
] as const satisfies readonly { name: string; down: SpeedField; up: SpeedField }[];

export const DEFAULT_PROVIDERS = ["ProvA", "ProvB", "ProvC", "ProvD"] as const;

export const CHANNELS = ["Voice", "Data"] as const;
export type Channel = (typeof CHANNELS)[number];
export const LOCATIONS = ["Outdoor", "Indoor"] as const;
export type Location = (typeof LOCATIONS)[number];
export const VARIANTS = ["", "No4g"] as const;
export type Variant = (typeof VARIANTS)[number];

/** `<Prov><Channel><Location><Variant>`, e.g. ProvAVoiceIndoorNo4g. */
export function mobileField(provider: string, channel: Channel, location: Location, variant: Variant = ""): string {
  return `${provider}${channel}${location}${variant}`;
}

/** The 32 mobile fields (for 4 providers) in spec order: provider, channel, location, variant (§2.4). */
export function mobileFields(providers: readonly string[] = DEFAULT_PROVIDERS): string[] {
  const out: string[] = [];
  for (const p of providers)
    for (const c of CHANNELS) for (const l of LOCATIONS) for (const v of VARIANTS) out.push(mobileField(p, c, l, v));
  return out;
}

/** Mobile coverage ratings (§2.5). */
export const RATING_MIN = 0;
export const RATING_MAX = 4;
// Their labels and meanings depend on the scale: contract/mobile-scales.ts.

/** The fields every address carries in both lookups (§2.2, §2.4), before its speeds or ratings. */
export const ADDRESS_FIELDS = ["UPRN", "AddressShortDescription", "PostCode"] as const;

/** Real UPRNs have up to 12 digits (as the production service sends them): beyond int32, exact in a double. */
export const MAX_UPRN = 999_999_999_999;

/** Lowest valid speed value; -1 means "no prediction for this category". */
export const SPEED_MIN = -1;
export const NO_PREDICTION = -1;

/** Provider codes are identifiers that become SQL column and CSV header names. */
export const PROVIDER_CODE = /^[A-Za-z][A-Za-z0-9]{0,15}$/;

export function parseProviders(list: string): string[] {
  const providers = list
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (providers.length === 0) throw new Error("--providers: at least one provider code is needed");
  for (const p of providers)
    if (!PROVIDER_CODE.test(p)) throw new Error(`--providers: "${p}" is not a provider code (letters and digits, starting with a letter)`);
  // SQLite column names ignore case, so ProvA and provA would be one column.
  if (new Set(providers.map((p) => p.toLowerCase())).size !== providers.length)
    throw new Error("--providers: a provider code is listed twice");
  return providers;
}
