// The one place that names the columns of Ofcom's open postcode files (fixed broadband coverage by
// postcode; docs/open-data.md). The store's columns, the report columns and the importer's header
// matching are all generated from here. Headers are matched by name, case and spacing aside, never
// by position: releases rename some (the aliases).

export interface OpenDataField {
  /** the store's and the reports' column name */
  column: string;
  /** the workbook's heading */
  heading: string;
  /** the published header names, newest first (any of them matches) */
  headers: readonly string[];
  /** one of the six speed bands: a postcode with premises in more than one is "multi-band" */
  band?: true;
  /**
   * a file without it is refused: the plan's order, the cross-check and the estimates read it
   * (the bands and superfast, in every release the docs list); the others may be absent in older files
   */
  needed?: true;
}

/** Percentages of premises, 0-100 (one decimal as published). */
export const OPEN_DATA_FIELDS = [
  { column: "OfcomBand0to2", heading: "Ofcom: % of premises at 0-2 Mbit/s", headers: ["% of premises with 0<2Mbit/s download speed"], band: true, needed: true },
  { column: "OfcomBand2to5", heading: "Ofcom: % of premises at 2-5 Mbit/s", headers: ["% of premises with 2<5Mbit/s download speed"], band: true, needed: true },
  { column: "OfcomBand5to10", heading: "Ofcom: % of premises at 5-10 Mbit/s", headers: ["% of premises with 5<10Mbit/s download speed"], band: true, needed: true },
  { column: "OfcomBand10to30", heading: "Ofcom: % of premises at 10-30 Mbit/s", headers: ["% of premises with 10<30Mbit/s download speed"], band: true, needed: true },
  { column: "OfcomBand30to300", heading: "Ofcom: % of premises at 30-300 Mbit/s", headers: ["% of premises with 30<300Mbit/s download speed"], band: true, needed: true },
  { column: "OfcomBand300Plus", heading: "Ofcom: % of premises at 300 Mbit/s or more", headers: ["% of premises with >=300Mbit/s download speed"], band: true, needed: true },
  { column: "OfcomSuperfast", heading: "Ofcom: superfast available, % of premises", headers: ["SFBB availability (% premises)"], needed: true },
  { column: "OfcomUltrafast100", heading: "Ofcom: 100 Mbit/s available, % of premises", headers: ["UFBB (100Mbit/s) availability (% premises)"] },
  { column: "OfcomUltrafast", heading: "Ofcom: ultrafast available, % of premises", headers: ["UFBB availability (% premises)"] },
  { column: "OfcomGigabit", heading: "Ofcom: gigabit available, % of premises", headers: ["Gigabit availability (% premises)"] },
  {
    column: "OfcomNoDecent",
    heading: "Ofcom: no decent broadband, % of premises",
    headers: ["% of premises unable to receive decent broadband from fixed or FWA", "% of premises below the USO"],
  },
] as const satisfies readonly OpenDataField[];

export type OpenDataColumn = (typeof OPEN_DATA_FIELDS)[number]["column"];
export const OPEN_DATA_COLUMNS: readonly OpenDataColumn[] = OPEN_DATA_FIELDS.map((f) => f.column);
export const BAND_COLUMNS: readonly OpenDataColumn[] = OPEN_DATA_FIELDS.filter((f) => "band" in f).map((f) => f.column);

/** The postcode's header: compact, spaced, or the oldest files' `pcds`. */
export const POSTCODE_HEADERS = ["postcode", "postcode_space", "pcds"] as const;

/** Which premises a file counts: all (the default for figures) or residential only. */
export type Premises = "all" | "residential";

/** The data month of the open data, and a report column holding it. */
export const OPEN_DATA_MONTH_COLUMN = "OfcomDataMonth";

/**
 * The names of the postcode files: data month, pc or postcode, optional res, revision, area
 * (the published pattern; case aside).
 */
const POSTCODE_FILE_PATTERN = /^(\d{4})(\d{2})_fixed_(?:pc|postcode)_(res_)?coverage_(res_)?r(\d+)(?:_([A-Z]{1,2}))?\.csv$/i;

export interface PostcodeFileName {
  /** YYYY-MM */
  month: string;
  premises: Premises;
  revision: number;
  /** the postcode area, e.g. CR; null for a file of every area */
  area: string | null;
}

/** What a file's name says, or null when it is not one of the postcode files. */
export function parsePostcodeFileName(name: string): PostcodeFileName | null {
  const m = POSTCODE_FILE_PATTERN.exec(name.split(/[\\/]/).pop()!);
  if (!m) return null;
  return {
    month: `${m[1]}-${m[2]}`,
    premises: m[3] || m[4] ? "residential" : "all",
    revision: Number(m[5]),
    area: m[6]?.toUpperCase() ?? null,
  };
}

/** Header names compared case-insensitively, spaces collapsed. */
export function headerKey(name: string): string {
  return name.replace(/^\uFEFF/, "").trim().replace(/\s+/g, " ").toLowerCase();
}

/** The attribution the reports print when they use the open data (Open Government Licence v3.0). */
export function openDataAttribution(month: string): string {
  return `Contains Ofcom data (Connected Nations, fixed broadband coverage by postcode, data of ${month}), licensed under the Open Government Licence v3.0.`;
}

/** Shares more than this many percentage points apart count as differing in the cross-check. */
export const CROSS_CHECK_POINTS = 20;

/** The header of the January 2026 files, verbatim (20 columns): what the simulator publishes. */
export const PUBLISHED_HEADER_2026 = [
  "postcode",
  "postcode_space",
  "postcode area",
  "% of premises with 30<300Mbit/s download speed",
  "% of premises with >=300Mbit/s download speed",
  "% of premises with 0<2Mbit/s download speed",
  "% of premises with 2<5Mbit/s download speed",
  "% of premises with 5<10Mbit/s download speed",
  "% of premises with 10<30Mbit/s download speed",
  "SFBB availability (% premises)",
  "UFBB (100Mbit/s) availability (% premises)",
  "UFBB availability (% premises)",
  "% of premises unable to receive 2Mbit/s",
  "% of premises unable to receive 5Mbit/s",
  "% of premises unable to receive 10Mbit/s",
  "% of premises unable to receive 30Mbit/s",
  "Gigabit availability (% premises)",
  "% of premises unable to receive decent broadband from fixed or FWA",
  "% of premises with NGA",
  "% of premises able to receive decent broadband from FWA",
] as const;
