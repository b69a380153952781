// Ofcom's open postcode data in the reports (docs/open-data.md): its columns in the postcode table,
// its figures for the postcodes the API has not given broadband figures for, and the cross-check
// against the API where a postcode has both. Its figures are shares of premises per postcode
// (Ofcom publishes no counts there), so they are never added to the API's per-address counts:
// they are reported beside them, as means of the postcodes' shares, and labelled so.
import { CROSS_CHECK_POINTS, openDataAttribution, type Premises } from "../../contract/open-data.js";
import type { ReportSnapshot } from "../../store/snapshot.js";
import type { SummaryRow } from "../words/summary-row.js";

export interface OpenDataSummary {
  /** YYYY-MM and revision of the stored release */
  month: string;
  revision: number;
  attribution: string;
  /** whose shares: all premises (the default) or residential (--open-data-premises) */
  premises: Premises;
  /** postcodes in scope that the open data lists */
  inOpenData: number;
  /** postcodes without broadband figures from the API (pending, failed, not found or not requested) */
  withoutApi: {
    postcodes: number;
    inOpenData: number;
    /** means of the postcodes' shares of premises, in percent (one decimal); null without any */
    meanShares: { superfast: number | null; ultrafast: number | null; gigabit: number | null; noDecent: number | null };
    /** postcodes where every premises can get gigabit */
    allGigabit: number;
    /** postcodes whose premises fall in more than one speed band */
    multiBand: number;
  };
  /** open-data-vs-api.csv: postcodes with both, and those whose superfast shares differ by more than `points` */
  crossCheck: { postcodes: number; differing: number; points: number };
}

export async function openDataSummary(snapshot: ReportSnapshot): Promise<OpenDataSummary | undefined> {
  const openData = snapshot.scope.openData;
  const r = await snapshot.openDataTotals(CROSS_CHECK_POINTS);
  if (!openData || !r) return undefined;
  return {
    month: openData.month,
    revision: openData.revision,
    attribution: openDataAttribution(openData.month),
    premises: openData.premises,
    inOpenData: r.inOpenData,
    withoutApi: {
      postcodes: r.without,
      inOpenData: r.withoutIn,
      meanShares: { superfast: r.superfast, ultrafast: r.ultrafast, gigabit: r.gigabit, noDecent: r.noDecent },
      allGigabit: r.allGigabit,
      multiBand: r.multiBand,
    },
    crossCheck: { postcodes: r.both, differing: r.differing, points: CROSS_CHECK_POINTS },
  };
}

const SOURCE = "Ofcom's postcode files";

/** A mean share of premises as the reports write it: "85.3%", or "-" without any postcode. */
export const meanShareText = (v: number | null): string => (v === null ? "-" : `${v.toFixed(1)}%`);

/** The summary's open-data rows: counts of postcodes, and the means of shares of premises (in %, with no share of their own). */
export function openDataRows(o: OpenDataSummary, unique: number): SummaryRow[] {
  const section = "Open data";
  const w = o.withoutApi;
  const of = { of: w.inOpenData, ofWhat: `postcodes without API broadband figures in ${SOURCE}` };
  const mean = (what: string, value: number | null): SummaryRow => ({
    section,
    figure: `${what}: mean share of premises per postcode, % (${SOURCE}, postcodes without API broadband figures)`,
    // a percentage, not a count: written as text so no sheet formats it as one
    count: meanShareText(value),
    of: null,
    ofWhat: "",
  });
  return [
    { section, figure: "Source", count: o.attribution, of: null, ofWhat: "" },
    { section, figure: `Postcodes in ${SOURCE} (data of ${o.month}, ${o.premises === "all" ? "all premises" : "residential premises"})`, count: o.inOpenData, of: unique, ofWhat: "unique postcodes" },
    { section, figure: "Postcodes without broadband figures from the API (pending, failed or not found)", count: w.postcodes, of: unique, ofWhat: "unique postcodes" },
    { section, figure: `Postcodes without API broadband figures that ${SOURCE} list`, count: w.inOpenData, of: w.postcodes, ofWhat: "postcodes without API broadband figures" },
    mean("Superfast (30 Mbit/s or more) available", w.meanShares.superfast),
    mean("Ultrafast (300 Mbit/s or more) available", w.meanShares.ultrafast),
    mean("Gigabit available", w.meanShares.gigabit),
    mean("Unable to get decent broadband", w.meanShares.noDecent),
    { section, figure: "Postcodes where every premises can get gigabit", count: w.allGigabit, ...of },
    { section, figure: "Postcodes whose premises fall in more than one speed band", count: w.multiBand, ...of },
    {
      section,
      figure: "Postcodes with both Ofcom's figures and the API's addresses (open-data-vs-api.csv)",
      count: o.crossCheck.postcodes,
      of: unique,
      ofWhat: "unique postcodes",
    },
    {
      section,
      figure: `Postcodes whose superfast shares differ by more than ${o.crossCheck.points} points (Ofcom's premises against the API's addresses)`,
      count: o.crossCheck.differing,
      of: o.crossCheck.postcodes,
      ofWhat: "postcodes with both",
    },
  ];
}

/** The closing line of a batch about the open data. */
export function openDataHeadline(o: OpenDataSummary): string {
  const w = o.withoutApi;
  const pct = meanShareText;
  const without =
    w.inOpenData === 0
      ? "no postcode without API broadband figures is listed"
      : `${w.inOpenData} of ${w.postcodes} postcodes without API broadband figures listed; ` +
        `mean share of premises with superfast ${pct(w.meanShares.superfast)}, gigabit ${pct(w.meanShares.gigabit)}`;
  return (
    `open data (${SOURCE}, ${o.month}): ${without}; ` +
    `${o.crossCheck.differing} of ${o.crossCheck.postcodes} postcodes with both differ by more than ${o.crossCheck.points} points (open-data-vs-api.csv)`
  );
}
