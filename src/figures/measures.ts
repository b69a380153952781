// The names of the per-postcode counts and what each counts, as definitions (definitions.ts's
// words): the columns of postcodes.csv, the summary and the groups. The store counts them (the
// engines, in src/store/sql/measures.ts); the reports only name them.
import { mobileField } from "../contract/fields.js";
import type { Tier } from "./definitions.js";

/** Broadband counts, cumulative as the summary defines them: each counts the addresses of these tiers. */
export const BROADBAND_COUNTS: readonly { column: string; tiers: readonly Tier[] }[] = [
  { column: "NoData", tiers: ["No data"] },
  { column: "BelowDecent", tiers: ["Below decent"] },
  { column: "BelowSuperfast", tiers: ["Below decent", "Decent"] },
  { column: "Superfast", tiers: ["Superfast", "Ultrafast", "Gigabit"] },
  { column: "Ultrafast", tiers: ["Ultrafast", "Gigabit"] },
  { column: "Gigabit", tiers: ["Gigabit"] },
];

export type ProviderMetric = "IndoorVoiceNotspots" | "IndoorDataNotspots" | "OutdoorVoiceNotspots" | "OutdoorDataNotspots" | "IndoorDataNeeds4g";
export const PROVIDER_METRICS: readonly ProviderMetric[] = [
  "IndoorVoiceNotspots",
  "IndoorDataNotspots",
  "OutdoorVoiceNotspots",
  "OutdoorDataNotspots",
  "IndoorDataNeeds4g",
];
export type SpreadMetric = "IndoorVoiceTotalNotspots" | "IndoorVoicePartialNotspots" | "IndoorDataTotalNotspots" | "IndoorDataPartialNotspots";
export const SPREAD_METRICS: readonly SpreadMetric[] = [
  "IndoorVoiceTotalNotspots",
  "IndoorVoicePartialNotspots",
  "IndoorDataTotalNotspots",
  "IndoorDataPartialNotspots",
];

export function providerColumn(provider: string, metric: ProviderMetric): string {
  return `${provider}${metric}`;
}

/** The mobile counts' columns: per provider (PROVIDER_METRICS), then across providers (SPREAD_METRICS). */
export function mobileCountColumns(providers: readonly string[]): string[] {
  return [...providers.flatMap((p) => PROVIDER_METRICS.map((m) => providerColumn(p, m))), ...SPREAD_METRICS];
}

/** The per-provider yes/no columns of mobile.csv: indoor voice, indoor data. */
export function goodColumns(providers: readonly string[]): { column: string; rating: string }[] {
  return providers.flatMap((p) => [
    { column: `${p}IndoorVoiceGood`, rating: mobileField(p, "Voice", "Indoor") },
    { column: `${p}IndoorDataGood`, rating: mobileField(p, "Data", "Indoor") },
  ]);
}
