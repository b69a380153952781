// The summary's figures as types (summary.json's shape), beside the code that computes them
// (summary.ts).
import type { OutcomeCounts } from "../../contract/counts.js";
import type { Lookup } from "../../contract/fields.js";
import type { Release } from "../../store/snapshot.js";
import type { ScaleSummary } from "../scale/scale-figures.js";
import type { ChangesSummary } from "../changes/changes-summary.js";
import type { OpenDataSummary } from "./open-data.js";
import type { EstimatesSummary } from "../estimates/types.js";

export type BroadbandKey = "noData" | "belowDecent" | "belowSuperfast" | "superfast" | "ultrafast" | "gigabit";

export interface BroadbandSummary extends Record<BroadbandKey, number> {
  postcodes: OutcomeCounts;
  addresses: number;
  /** each count as a fraction of `addresses` (4 places; null when there are none) */
  shares: Record<BroadbandKey, number | null>;
}

export type ProviderSummary = Record<
  "indoorVoiceNotspots" | "indoorDataNotspots" | "outdoorVoiceNotspots" | "outdoorDataNotspots" | "indoorDataNeeds4g",
  number
>;

export interface Spread {
  /** addresses where no provider is good */
  totalNotspots: number;
  /** addresses where at least one provider is good, but not all */
  partialNotspots: number;
}

export interface MobileSummary extends ScaleSummary {
  postcodes: OutcomeCounts;
  addresses: number;
  providers: Record<string, ProviderSummary>;
  indoorVoice: Spread;
  indoorData: Spread;
  /** the counts above as fractions of `addresses` (4 places; null when there are none) */
  shares: {
    providers: Record<string, Record<keyof ProviderSummary, number | null>>;
    indoorVoice: Record<keyof Spread, number | null>;
    indoorData: Record<keyof Spread, number | null>;
  };
}

export interface Summary {
  /** true when any figure comes from the bundled simulator, not the real API */
  simulated: boolean;
  generatedAt: string;
  /** the run reported; null for --all */
  runId: number | null;
  scope: "run" | "all";
  lookups: Lookup[];
  providers: string[];
  goodRating: number;
  /** input and invalid are rows of the run's input (null for --all); unique counts postcodes in scope */
  postcodes: { input: number | null; invalid: number | null; unique: number };
  /** the run's input: the column its postcodes were read from (null for --all) */
  input?: { postcodeColumn: string | null } | undefined;
  /** null when the run did not ask for that lookup */
  broadband: BroadbandSummary | null;
  mobile: MobileSummary | null;
  /** per lookup the run asked for: which releases (or fetch dates) its figures come from */
  releases: Record<Lookup, Release[]>;
  /** what changed against each answer's previous version (or --since): changes.ts */
  changes: ChangesSummary | null;
  /** Ofcom's open postcode data, when the store holds a release: beside the API's figures, never added to them */
  openData?: OpenDataSummary | undefined;
  /** while postcodes are unanswered, the list's and its groups' shares estimated from the answered ones (estimate-summary.ts) */
  estimates?: EstimatesSummary | null | undefined;
  /** the attribution of the API's data Ofcom's terms ask for (attribution.ts) */
  attribution: string;
}
