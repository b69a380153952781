// What a partly answered list's reports lead with: the whole list's estimate with its 95% interval,
// how many of the list's postcodes are answered (per lookup where they differ), when the rest will be
// answered at the current quota, and the answered-only figure beside it, labelled as such. A fully
// answered list has no lead: its reports open with its exact figures. Pure: report.html's opening,
// the batch's closing lines, summary.csv's first rows and the top of the workbook's Summary read it.
import type { Lookup } from "../../contract/fields.js";
import type { Interval } from "../estimates/estimates.js";
import { estimateLabels } from "../estimates/estimate-summary.js";
import { intervalText, round4 } from "../words/estimate-words.js";
import type { EstimatesSummary, LookupBasis } from "../estimates/types.js";
import { shareFraction } from "../words/figure-labels.js";
import { judgingOfReport } from "../scale/scale-figures.js";
import { TOO_FEW_ANSWERED } from "../estimates/estimate-caveats.js";
import type { SummaryRow } from "../words/summary-row.js";
import { ANSWERED_ONLY } from "../words/answered-only.js";
import { beyondCapacityWords, type CapacityStatement } from "../../plan/capacity-words.js";
import type { Summary } from "./types.js";

export interface LeadFigure {
  key: string;
  label: string;
  /** its lookup answered every postcode: the figure is exact, not an estimate */
  exact: boolean;
  estimate: Interval;
  /** the same share over the answered postcodes' addresses alone */
  answeredOnly: { count: number; of: number } | null;
}

export interface Lead {
  postcodes: number;
  lookups: [Lookup, LookupBasis][];
  figures: LeadFigure[];
  assumption: string;
  caveats: string[];
  /** a list longer than its quota keeps answered: what it says of that */
  capacity: CapacityStatement | null;
}

/** The figures a lead shows (of the lookups in scope), and where the summary counts them over the answered postcodes. */
const LEAD_FIGURES: readonly { key: string; lookup: Lookup; answeredOnly: (s: Summary) => { count: number; of: number } | null }[] = [
  { key: "belowSuperfast", lookup: "broadband", answeredOnly: (s) => (s.broadband ? { count: s.broadband.belowSuperfast, of: s.broadband.addresses } : null) },
  { key: "indoorVoiceTotalNotspot", lookup: "mobile", answeredOnly: (s) => (s.mobile ? { count: s.mobile.indoorVoice.totalNotspots, of: s.mobile.addresses } : null) },
];

/** The lead of a partly answered list; null when every postcode is answered (or there is nothing to estimate). */
export function listLead(s: Summary): Lead | null {
  const e: EstimatesSummary | null | undefined = s.estimates;
  if (!e || e.exact) return null;
  const labels = estimateLabels(s.providers, judgingOfReport(s));
  const figures = LEAD_FIGURES.filter((f) => f.key in e.shares).map((f) => ({ key: f.key, label: labels[f.key] ?? f.key, exact: e.lookups[f.lookup]?.exact ?? false, estimate: e.shares[f.key]!, answeredOnly: f.answeredOnly(s) }));
  return { postcodes: e.postcodes, lookups: Object.entries(e.lookups) as [Lookup, LookupBasis][], figures, assumption: e.assumption, caveats: e.caveats, capacity: e.capacity ?? null };
}

const n = (x: number) => x.toLocaleString("en-GB");
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** "61 of 288 postcodes answered", or per lookup where they differ: "61 of 288 postcodes answered for broadband, 59 for mobile". */
export function answeredWords(lead: Pick<Lead, "postcodes" | "lookups">): string {
  const counts = lead.lookups.map(([, b]) => b.answeredPostcodes);
  if (counts.every((c) => c === counts[0])) return `${n(counts[0] ?? 0)} of ${n(lead.postcodes)} postcodes answered`;
  return `${n(counts[0]!)} of ${n(lead.postcodes)} postcodes answered for ${lead.lookups[0]![0]}, ${lead.lookups.slice(1).map(([l, b]) => `${n(b.answeredPostcodes)} for ${l}`).join(", ")}`;
}

function quotaWords(b: LookupBasis): string {
  if (!b.quota) return "";
  return b.quota.source === "monthly-quota"
    ? `${n(b.quota.perPeriod)} requests a quota period, --monthly-quota`
    : `${n(b.quota.perPeriod)} requests a quota period, as many as the service allowed in this one`;
}

/** When the rest is answered: "the other 227 by 2026-12-03 at the current quota (…)", per lookup where they differ. */
export function restWords(lead: Pick<Lead, "lookups" | "capacity">): string {
  // a list beyond its capacity is never all answered at once: no date for the rest
  if (lead.capacity) return beyondCapacityWords(lead.capacity);
  const one = (b: LookupBasis, lookup: string) =>
    b.unanswered === 0
      ? `${lookup}every postcode answered`
      : b.answeredBy !== null
        ? `${lookup}the other ${n(b.unanswered)} by ${b.answeredBy} at the current quota (${quotaWords(b)})`
        : b.quota
          ? `${lookup}the other ${n(b.unanswered)} not within five years at the current quota (${quotaWords(b)})`
          : `${lookup}the other ${n(b.unanswered)} at the next runs (undated: only a report of the last run's list, with its --monthly-quota, dates them)`;
  const [first, ...others] = lead.lookups;
  if (!first) return "";
  const same = others.every(([, b]) => b.unanswered === first[1].unanswered && b.answeredBy === first[1].answeredBy && quotaWords(b) === quotaWords(first[1]));
  return same ? one(first[1], "") : lead.lookups.map(([l, b]) => one(b, `${l}: `)).join("; ");
}

/** A lead figure's estimate in words, or why there is none: "20.1% (11.9% to 31.8%)"; an exact one says so. */
export const estimateWords = (f: LeadFigure) =>
  f.estimate.estimate === null ? TOO_FEW_ANSWERED : f.exact ? `${intervalText(f.estimate)} (exact: every postcode answered)` : `${intervalText(f.estimate)} (estimate, 95% interval)`;
/** The answered-only figure in words, "18.3% (278 of 1,517 addresses)". */
export const answeredOnlyWords = (f: LeadFigure) =>
  f.answeredOnly && f.answeredOnly.of > 0 ? `${pct(f.answeredOnly.count / f.answeredOnly.of)} (${n(f.answeredOnly.count)} of ${n(f.answeredOnly.of)} addresses)` : "no addresses answered yet";

/** The batch's first lines for a partly answered list. */
export function leadLines(s: Summary): string[] {
  const lead = listLead(s);
  if (!lead) return [];
  return [
    `whole list (partly answered: ${answeredWords(lead)}; ${restWords(lead)}):`,
    ...(lead.capacity?.sentences ?? []).map((c) => `  ${c}`),
    ...lead.figures.map((f) => `  ${f.label}, all the list's addresses: ${estimateWords(f)}; ${ANSWERED_ONLY}: ${answeredOnlyWords(f)}`),
    `  ${lead.assumption}`,
    ...lead.caveats.map((c) => `  CAUTION: ${c}`),
  ];
}

/** summary.csv's first rows (and the top of the workbook's Summary) for a partly answered list. */
export function leadRows(s: Summary): SummaryRow[] {
  const lead = listLead(s);
  if (!lead) return [];
  const section = "Whole list (partly answered)";
  const rows: SummaryRow[] = lead.lookups.map(([l, b]) => ({ section, figure: `Postcodes answered for ${l}`, count: b.answeredPostcodes, of: lead.postcodes, ofWhat: "postcodes of the list" }));
  rows.push({ section, figure: "The rest answered", count: restWords(lead), of: null, ofWhat: "" });
  for (const c of lead.capacity?.sentences ?? []) rows.push({ section, figure: "What the quota keeps answered", count: c, of: null, ofWhat: "" });
  for (const f of lead.figures) {
    const e = f.estimate;
    rows.push(
      e.estimate === null
        ? { section, figure: `${f.label}: whole list, estimated`, count: TOO_FEW_ANSWERED, of: null, ofWhat: "" }
        : { section, figure: `${f.label}: whole list, ${f.exact ? "exact (every postcode answered)" : "estimated (95% interval)"}`, count: null, share: round4(e.estimate), low: round4(e.low), high: round4(e.high), of: null, ofWhat: "" },
      f.answeredOnly
        ? { section, figure: `${f.label}: ${ANSWERED_ONLY}`, count: f.answeredOnly.count, share: f.answeredOnly.of > 0 ? shareFraction(f.answeredOnly.count, f.answeredOnly.of) : null, of: f.answeredOnly.of, ofWhat: "addresses of the answered postcodes" }
        : { section, figure: `${f.label}: ${ANSWERED_ONLY}`, count: "no addresses answered yet", of: null, ofWhat: "" },
    );
  }
  rows.push({ section, figure: "Assumption", count: lead.assumption, of: null, ofWhat: "" });
  for (const c of lead.caveats) rows.push({ section, figure: "Caution", count: c, of: null, ofWhat: "" });
  return rows;
}
