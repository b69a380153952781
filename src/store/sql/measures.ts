// The definitions of src/figures/definitions.ts and measures.ts as SQL over one address row, so
// that every figure is counted by SQLite in one pass (per postcode, then summed) instead of rows
// travelling to JavaScript. Mobile expressions compare a rating with `good`: the report passes its
// postcode table's MobileGood, the good rating of that postcode's answer on its own scale (a bound
// @good, which PostgreSQL's dialect.ts binds as $n, where one rating judges every answer).
// Standard SQL (CASE, COUNT, IN, COALESCE): both engines take these as they are.
import { mobileField, type Channel, type Location, type SpeedField, type Variant } from "../../contract/fields.js";
import { TIER_RULES, type Tier } from "../../figures/definitions.js";
import { BROADBAND_COUNTS, PROVIDER_METRICS, providerColumn, SPREAD_METRICS, type ProviderMetric, type SpreadMetric } from "../../figures/measures.js";

const DOWN: SpeedField = "MaxPredictedDown";
const UP: SpeedField = "MaxPredictedUp";

/** An address's broadband tier (TIER_RULES as SQL); the tiers nest, so each address has exactly one. */
export function tierSql(alias: string): string {
  const down = `${alias}.${DOWN}`;
  const up = `${alias}.${UP}`;
  const rules = TIER_RULES.map(({ tier, minDown, minUp }) => {
    const when = `${down} >= ${minDown}` + (minUp === undefined ? "" : ` AND COALESCE(${up}, -1) >= ${minUp}`);
    return `WHEN ${when} THEN '${tier}'`;
  });
  const noData: Tier = "No data";
  return `(CASE WHEN ${down} IS NULL OR ${down} < 0 THEN '${noData}' ${rules.join(" ")} ELSE 'Below decent' END)`;
}

/** The best download among addresses that have data, for best/worst per postcode. */
export function downloadWithDataSql(alias: string): string {
  return `(CASE WHEN ${alias}.${DOWN} >= 0 THEN ${alias}.${DOWN} END)`;
}

export interface Measure {
  /** column of postcodes.csv and of the report's postcode table */
  column: string;
  /** SQL condition on one address row: the address counts when it is true */
  when: string;
}

/** Broadband counts (BROADBAND_COUNTS); `tier` is tierSql's value. */
export function broadbandMeasures(tier: string): Measure[] {
  return BROADBAND_COUNTS.map(({ column, tiers }) => ({ column, when: `${tier} IN (${tiers.map((t) => `'${t}'`).join(", ")})` }));
}

/** The good rating of the address's answer: a column of the postcode table or a bound parameter. */
export const BOUND_GOOD = "@good";

/**
 * Mobile counts: per provider, then across providers. A missing rating (a provider added after the
 * address was fetched) is unknown: SQL's three-valued logic counts the address only where the
 * ratings present decide the answer.
 */
export function mobileMeasures(alias: string, providers: readonly string[], goodRating = BOUND_GOOD): Measure[] {
  const good = (rating: string) => `${rating} >= ${goodRating}`;
  const notGood = (rating: string) => `${rating} < ${goodRating}`;
  const f = (p: string, channel: Channel, location: Location, variant: Variant = "") =>
    `${alias}.${mobileField(p, channel, location, variant)}`;
  const perProvider: Measure[] = providers.flatMap((p) => {
    const when: Record<ProviderMetric, string> = {
      IndoorVoiceNotspots: notGood(f(p, "Voice", "Indoor")),
      IndoorDataNotspots: notGood(f(p, "Data", "Indoor")),
      OutdoorVoiceNotspots: notGood(f(p, "Voice", "Outdoor")),
      OutdoorDataNotspots: notGood(f(p, "Data", "Outdoor")),
      // Good only thanks to 4G: good with it, not good in the No4g field.
      IndoorDataNeeds4g: `${good(f(p, "Data", "Indoor"))} AND ${notGood(f(p, "Data", "Indoor", "No4g"))}`,
    };
    return PROVIDER_METRICS.map((metric) => ({ column: providerColumn(p, metric), when: when[metric] }));
  });
  const spread = (channel: "Voice" | "Data") => {
    const ratings = providers.map((p) => f(p, channel, "Indoor"));
    const anyGood = ratings.map(good).join(" OR ");
    const anyNotGood = ratings.map(notGood).join(" OR ");
    return { total: `NOT (${anyGood})`, partial: `(${anyGood}) AND (${anyNotGood})` };
  };
  const voice = spread("Voice");
  const data = spread("Data");
  const across: Record<SpreadMetric, string> = {
    IndoorVoiceTotalNotspots: voice.total,
    IndoorVoicePartialNotspots: voice.partial,
    IndoorDataTotalNotspots: data.total,
    IndoorDataPartialNotspots: data.partial,
  };
  return [...perProvider, ...SPREAD_METRICS.map((metric) => ({ column: metric, when: across[metric] }))];
}

/** `yes`/`no` for a rating against the answer's good rating; empty when the rating is missing. */
export function goodSql(rating: string, goodRating: string): string {
  return `(CASE WHEN ${rating} IS NULL THEN '' WHEN ${rating} >= ${goodRating} THEN 'yes' ELSE 'no' END)`;
}

export const count = (m: Measure) => `COUNT(CASE WHEN ${m.when} THEN 1 END) AS ${m.column}`;
