// Headings a reader understands without the docs, for the workbook's columns: the CSV/API name
// stays in the header cell's note. Known names are spelled out; mobile fields and per-provider
// columns are read from their parts; anything else is split at its capitals.
import { CHANNELS, LOCATIONS, VARIANTS, mobileField } from "../../contract/fields.js";
import { PROVIDER_METRICS, providerColumn } from "../../figures/measures.js";
import { OPEN_DATA_FIELDS, OPEN_DATA_MONTH_COLUMN } from "../../contract/open-data.js";

const KNOWN: Readonly<Record<string, string>> = {
  PostCode: "Postcode",
  NormalisedPostCode: "Postcode (as looked up)",
  UPRN: "UPRN",
  AddressShortDescription: "Address",
  Status: "Status",
  BroadbandStatus: "Broadband lookup",
  MobileStatus: "Mobile lookup",
  BroadbandAddresses: "Broadband addresses",
  MobileAddresses: "Mobile addresses",
  BestMaxPredictedDown: "Best download (Mbit/s)",
  WorstMaxPredictedDown: "Worst download (Mbit/s)",
  MaxBbPredictedDown: "Basic broadband download (Mbit/s)",
  MaxBbPredictedUp: "Basic broadband upload (Mbit/s)",
  MaxSfbbPredictedDown: "Superfast broadband download (Mbit/s)",
  MaxSfbbPredictedUp: "Superfast broadband upload (Mbit/s)",
  MaxUfbbPredictedDown: "Ultrafast broadband download (Mbit/s)",
  MaxUfbbPredictedUp: "Ultrafast broadband upload (Mbit/s)",
  MaxPredictedDown: "Best download (Mbit/s)",
  MaxPredictedUp: "Best upload (Mbit/s)",
  Tier: "Broadband tier",
  NoData: "Addresses with no broadband data",
  BelowDecent: "Addresses below decent",
  BelowSuperfast: "Addresses below superfast",
  // nested counts: "at least", so that a bare tier name only ever means its band (Tier, report.html)
  Superfast: "Addresses with at least superfast",
  Ultrafast: "Addresses with at least ultrafast",
  Gigabit: "Addresses with gigabit",
  IndoorVoiceTotalNotspots: "Indoor voice: no provider good",
  IndoorVoicePartialNotspots: "Indoor voice: some providers good",
  IndoorDataTotalNotspots: "Indoor data: no provider good",
  IndoorDataPartialNotspots: "Indoor data: some providers good",
  PropertyMaxPredictedDown: "This property: best download (Mbit/s)",
  PropertyMaxPredictedUp: "This property: best upload (Mbit/s)",
  PropertyTier: "This property: broadband tier",
  PropertyBestProviderIndoors: "This property: best provider indoors",
  [OPEN_DATA_MONTH_COLUMN]: "Ofcom data month",
  ...Object.fromEntries(OPEN_DATA_FIELDS.map((f) => [f.column, f.heading])),
};

const METRIC_WORDS: Record<string, string> = {
  IndoorVoiceNotspots: "addresses without good indoor voice",
  IndoorDataNotspots: "addresses without good indoor data",
  OutdoorVoiceNotspots: "addresses without good outdoor voice",
  OutdoorDataNotspots: "addresses without good outdoor data",
  IndoorDataNeeds4g: "addresses needing 4G for good indoor data",
};

/** The heading of a report column (its CSV name) for a run with these providers. */
export function columnHeading(column: string, providers: readonly string[]): string {
  const known = KNOWN[column];
  if (known) return known;
  for (const p of providers) {
    for (const c of CHANNELS)
      for (const l of LOCATIONS)
        for (const v of VARIANTS)
          if (column === mobileField(p, c, l, v)) return `${p} ${c.toLowerCase()} ${l.toLowerCase()}${v === "No4g" ? " without 4G" : ""} (rating)`;
    for (const m of PROVIDER_METRICS) if (column === providerColumn(p, m)) return `${p}: ${METRIC_WORDS[m]}`;
    for (const channel of ["Voice", "Data"])
      for (const prefix of ["", "Property"])
        if (column === `${prefix}${p}Indoor${channel}Good`) return `${prefix ? "This property: " : ""}${p} good indoor ${channel.toLowerCase()}`;
  }
  return column.replace(/([a-z0-9])([A-Z])/g, "$1 $2");
}
