// Ofcom's open postcode data in the reports (docs/open-data.md): its columns in the postcode table,
// its figures for the postcodes the API has not given broadband figures for, and the cross-check
// against the API where a postcode has both. Its figures are shares of premises per postcode
// (Ofcom publishes no counts there), so they are never added to the API's per-address counts:
// they are reported beside them, as means of the postcodes' shares, and labelled so.
import type { Db } from "../store/sqlite/db.js";
import { BAND_COLUMNS, CROSS_CHECK_POINTS, OPEN_DATA_MONTH_COLUMN, openDataAttribution, type Premises } from "../spec/open-data.js";
import { writeCsv, type CsvFileOptions } from "./csv-file.js";
import { POSTCODE_TABLE } from "./postcode-table.js";
import type { ReportScope } from "./scope.js";
import type { SummaryRow } from "./summary.js";

/** The API's share of a postcode's addresses at superfast or more, in points (one decimal). */
const API_SUPERFAST = "ROUND(100.0 * s.Superfast / s.BroadbandAddresses, 1)";
/** Postcodes whose figures include the API's addresses (an older answer of a pending one counts too). */
const FROM_API = "IFNULL(s.BroadbandAddresses, 0) > 0";
/** Postcodes with both: the API's addresses and an open-data row. */
const BOTH = `${FROM_API} AND s.OfcomSuperfast IS NOT NULL`;
const WITHOUT = `NOT (${FROM_API})`;

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

const bandsSql = BAND_COLUMNS.map((c) => `(IFNULL(s.${c}, 0) > 0)`).join(" + ");

export function openDataSummary(db: Db, scope: ReportScope): OpenDataSummary | undefined {
  if (!scope.openData) return undefined;
  const mean = (c: string) => `ROUND(AVG(CASE WHEN ${WITHOUT} THEN s.${c} END), 1)`;
  const r = db
    .prepare(
      `SELECT COUNT(s.OfcomDataMonth) AS inOpenData,
              COUNT(CASE WHEN ${WITHOUT} THEN 1 END) AS without,
              COUNT(CASE WHEN ${WITHOUT} AND s.OfcomDataMonth IS NOT NULL THEN 1 END) AS withoutIn,
              ${mean("OfcomSuperfast")} AS superfast, ${mean("OfcomUltrafast")} AS ultrafast,
              ${mean("OfcomGigabit")} AS gigabit, ${mean("OfcomNoDecent")} AS noDecent,
              COUNT(CASE WHEN ${WITHOUT} AND s.OfcomGigabit >= 100 THEN 1 END) AS allGigabit,
              COUNT(CASE WHEN ${WITHOUT} AND s.OfcomDataMonth IS NOT NULL AND ${bandsSql} > 1 THEN 1 END) AS multiBand,
              COUNT(CASE WHEN ${BOTH} THEN 1 END) AS both,
              COUNT(CASE WHEN ${BOTH} AND ABS(${API_SUPERFAST} - s.OfcomSuperfast) > @points THEN 1 END) AS differing
         FROM ${POSTCODE_TABLE} s`,
    )
    .get({ points: CROSS_CHECK_POINTS }) as Record<string, number | null>;
  const num = (k: string) => r[k] ?? 0;
  return {
    month: scope.openData.month,
    revision: scope.openData.revision,
    attribution: openDataAttribution(scope.openData.month),
    premises: scope.openData.premises,
    inOpenData: num("inOpenData"),
    withoutApi: {
      postcodes: num("without"),
      inOpenData: num("withoutIn"),
      meanShares: { superfast: r.superfast ?? null, ultrafast: r.ultrafast ?? null, gigabit: r.gigabit ?? null, noDecent: r.noDecent ?? null },
      allGigabit: num("allGigabit"),
      multiBand: num("multiBand"),
    },
    crossCheck: { postcodes: num("both"), differing: num("differing"), points: CROSS_CHECK_POINTS },
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

export const CROSS_CHECK_HEADER = ["PostCode", OPEN_DATA_MONTH_COLUMN, "OfcomSuperfast", "BroadbandAddresses", "ApiSuperfast", "Difference"];

/** open-data-vs-api.csv: per postcode with both, Ofcom's superfast share of premises, the API's of addresses (≥ 30 Mbit/s down), and API minus Ofcom, in points. */
export function writeOpenDataVsApiCsv(db: Db, path: string, options: CsvFileOptions): Promise<number> {
  const rows = db
    .prepare(
      `SELECT s.display, s.${OPEN_DATA_MONTH_COLUMN}, s.OfcomSuperfast, s.BroadbandAddresses, ${API_SUPERFAST},
              ROUND(${API_SUPERFAST} - s.OfcomSuperfast, 1)
         FROM ${POSTCODE_TABLE} s WHERE ${BOTH} ORDER BY s.display`,
    )
    .raw(true)
    .iterate() as Iterable<unknown[]>;
  return writeCsv(path, CROSS_CHECK_HEADER, rows, options);
}
