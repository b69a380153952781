// The plain-English names of the figures, in one place: summary.csv, groups.csv and the workbook
// label their counts with these, keyed by the column names of the report's postcode table
// (measures.ts), so a reader never has to look up `IndoorVoiceTotalNotspots`.
import { goodCoverageWords, type MobileJudging } from "../../contract/mobile-scales.js";
import { SPEED_THRESHOLDS as T } from "../../figures/definitions.js";
import type { ProviderMetric, SpreadMetric } from "../../figures/measures.js";

const mbit = (x: number) => `${x.toLocaleString("en-GB")} Mbit/s`;

/** Broadband counts in the order the reports show them (worst first, no data last). */
export const BROADBAND_FIGURES = ["BelowDecent", "BelowSuperfast", "Superfast", "Ultrafast", "Gigabit", "NoData"] as const;
export type BroadbandFigure = (typeof BROADBAND_FIGURES)[number];

export const BROADBAND_LABELS: Readonly<Record<BroadbandFigure, string>> = {
  BelowDecent: `Addresses below decent (under ${mbit(T.decentDown)} down or ${mbit(T.decentUp)} up)`,
  BelowSuperfast: `Addresses below superfast (under ${mbit(T.superfast)} down)`,
  Superfast: `Addresses with at least superfast (${mbit(T.superfast)} down or more)`,
  Ultrafast: `Addresses with at least ultrafast (${mbit(T.ultrafast)} down or more)`,
  Gigabit: `Addresses with gigabit (${mbit(T.gigabit)} down or more)`,
  NoData: "Addresses with no speed prediction (no data)",
};

export function spreadLabel(metric: SpreadMetric, judging: MobileJudging): string {
  const channel = metric.startsWith("IndoorVoice") ? "indoor voice" : "indoor data";
  return metric.endsWith("TotalNotspots")
    ? `Addresses where no provider has good ${channel} (total notspot; ${goodCoverageWords(judging)})`
    : `Addresses where some but not all providers have good ${channel} (partial notspot)`;
}

export function providerLabel(provider: string, metric: ProviderMetric, judging: MobileJudging): string {
  const words: Record<ProviderMetric, string> = {
    IndoorVoiceNotspots: "indoor voice",
    IndoorDataNotspots: "indoor data",
    OutdoorVoiceNotspots: "outdoor voice",
    OutdoorDataNotspots: "outdoor data",
    IndoorDataNeeds4g: "",
  };
  return metric === "IndoorDataNeeds4g"
    ? `${provider}: addresses with good indoor data only thanks to 4G`
    : `${provider}: addresses without good ${words[metric]} (${goodCoverageWords(judging)})`;
}

/** Percent to one decimal place, "14.5"; empty without a denominator. */
export function percent(value: number, outOf: number | null): string {
  return outOf === null || outOf === 0 ? "" : ((100 * value) / outOf).toFixed(1);
}

/** "14.5%" to one decimal place; empty without a denominator. */
export function shareText(count: number, of: number | null): string {
  return of === null || of === 0 ? "" : `${percent(count, of)}%`;
}

/** A share as a fraction rounded to 4 places (0.1454), null without a denominator: summary.json's form. */
export function shareFraction(count: number, of: number): number | null {
  return of === 0 ? null : Math.round((count / of) * 10_000) / 10_000;
}

/** A figure's column name as a key of summary.json and of the estimates: first letter lower case ("belowSuperfast"). */
export const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);
