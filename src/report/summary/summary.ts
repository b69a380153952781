// The summary figures: sums over the report's postcode table (itself counted by SQLite from the
// addresses), and the two views of them, summary.csv rows and the batch's closing lines.
import type { OutcomeCounts } from "../../contract/counts.js";
import type { Lookup } from "../../contract/fields.js";
import { decideScale, goodCoverageWords, type MobileJudging, type MobileScale, type ScaleDecision } from "../../contract/mobile-scales.js";
import { judgingOfReport, judgingOfSummary, ratingShareRows, scaleAboutRows, scaleSummary, type ScaleSummary } from "../scale/scale-figures.js";
import type { Release, ReportSnapshot } from "../../store/snapshot.js";
import { countColumns, ADDRESSES_COLUMN, SCALE_ADDRESSES_COLUMN } from "../../figures/postcode-columns.js";
import { PROVIDER_METRICS, providerColumn, SPREAD_METRICS, type SpreadMetric } from "../../figures/measures.js";
import { BROADBAND_FIGURES, BROADBAND_LABELS, lowerFirst, providerLabel, shareFraction, shareText, spreadLabel } from "../words/figure-labels.js";

import { changesHeadline, changesRows, type ChangesSummary } from "../changes/changes-summary.js";
import { apiAttribution } from "./attribution.js";
import { openDataHeadline, openDataRows, openDataSummary } from "./open-data.js";
import { LOOKUP_SPECS, perLookup } from "../../contract/lookups.js";
import { estimateLabels, estimateRows } from "../estimates/estimate-summary.js";
import { leadLines, leadRows } from "./list-lead.js";
import { ANSWERED_ONLY, answeredOnlyLabel, isAnsweredOnly } from "../words/answered-only.js";
import { hasAnswers, noAnswerWords, outcomeWords, type LookupAnswers } from "./without-answers.js";

export type { Release } from "../../store/snapshot.js";
export type { BroadbandSummary, MobileSummary, ProviderSummary, Spread, Summary } from "./types.js";
import type { BroadbandKey, BroadbandSummary, MobileSummary, ProviderSummary, Summary } from "./types.js";
export type { SummaryRow } from "../words/summary-row.js";
import type { SummaryRow } from "../words/summary-row.js";

/** The scale the summary's mobile figures read; without mobile figures the current one labels nothing. */
export const scaleOf = (s: Summary): MobileScale => s.mobile?.scale ?? "current";
/** The scales the summary's mobile figures judge answers on, with their good ratings (both when they combine the two). */
export { judgingOfReport } from "../scale/scale-figures.js";


/** The summary's figures, summed by the snapshot over its postcodes (preparePostcodes with the good rating first). */
export async function computeSummary(
  snapshot: ReportSnapshot,
  goodRating: number,
  generatedAt: string,
  changes: ChangesSummary | null = null,
  scale?: ScaleDecision,
  attribution: string | null = null,
  judging?: MobileJudging,
): Promise<Summary> {
  const scope = snapshot.scope;
  const counts = countColumns(scope.providers);
  const scaleColumns = scope.lookups.includes("mobile") ? Object.values(SCALE_ADDRESSES_COLUMN) : [];
  const totals = await snapshot.postcodeTotals([ADDRESSES_COLUMN.broadband, ADDRESSES_COLUMN.mobile, ...counts.broadband, ...counts.mobile, ...scaleColumns]);
  const row = totals.sums;
  const input = (await snapshot.inputCounts()) ?? { input: null, invalid: null };
  const simulatedData = await snapshot.includesSimulatedData();
  const broadband = scope.lookups.includes("broadband") ? broadbandSummary(totals.statuses.broadband, row) : null;
  const mobile = scope.lookups.includes("mobile")
    ? { ...mobileSummary(totals.statuses.mobile, row, scope.providers), ...(await scaleSummary(snapshot, scale ?? decideScale("auto", await snapshot.scaleEvidence()), goodRating, row[ADDRESSES_COLUMN.mobile]!, judging, row)) }
    : null;
  const releases: Record<Lookup, Release[]> = perLookup(() => []);
  for (const l of scope.lookups) releases[l] = await snapshot.releases(l);

  return {
    simulated: (scope.kind === "run" && scope.runSimulated) || simulatedData,
    generatedAt,
    runId: scope.kind === "run" ? scope.runId : null,
    scope: scope.kind,
    lookups: scope.lookups,
    providers: scope.providers,
    goodRating,
    postcodes: { input: input.input, invalid: input.invalid, unique: totals.postcodes },
    input: { postcodeColumn: scope.kind === "run" ? (scope.postcodeColumn ?? null) : null },
    broadband,
    mobile,
    releases,
    changes,
    openData: await openDataSummary(snapshot),
    attribution: apiAttribution(releases, attribution),
  };
}

const shares = <K extends string>(counts: Record<K, number>, of: number) =>
  Object.fromEntries(Object.entries<number>(counts).map(([k, v]) => [k, shareFraction(v, of)])) as Record<K, number | null>;

function broadbandSummary(postcodes: OutcomeCounts, row: Record<string, number>): BroadbandSummary {
  const addresses = row[ADDRESSES_COLUMN.broadband]!;
  const counts = Object.fromEntries(BROADBAND_FIGURES.map((f) => [lowerFirst(f), row[f]!])) as Record<BroadbandKey, number>;
  return { postcodes, addresses, ...counts, shares: shares(counts, addresses) };
}

function mobileSummary(postcodes: OutcomeCounts, row: Record<string, number>, providers: readonly string[]): Omit<MobileSummary, keyof ScaleSummary> {
  const addresses = row[ADDRESSES_COLUMN.mobile]!;
  const perProvider = Object.fromEntries(
    providers.map((p) => [p, Object.fromEntries(PROVIDER_METRICS.map((m) => [lowerFirst(m), row[providerColumn(p, m)]!])) as ProviderSummary]),
  );
  const indoorVoice = { totalNotspots: row.IndoorVoiceTotalNotspots!, partialNotspots: row.IndoorVoicePartialNotspots! };
  const indoorData = { totalNotspots: row.IndoorDataTotalNotspots!, partialNotspots: row.IndoorDataPartialNotspots! };
  return {
    postcodes,
    addresses,
    providers: perProvider,
    indoorVoice,
    indoorData,
    shares: {
      providers: Object.fromEntries(Object.entries(perProvider).map(([p, figures]) => [p, shares(figures, addresses)])),
      indoorVoice: shares(indoorVoice, addresses),
      indoorData: shares(indoorData, addresses),
    },
  };
}


/** Share, Low and High are fractions of 1 (0.1454), as every column named Share in the reports. */
export const SUMMARY_HEADER = ["Section", "Figure", "Count", "Share", "Low", "High", "Of"] as const;

export const DUPLICATES_LABEL = "Input rows repeating an earlier row's postcode (duplicates: each postcode is looked up once)";

/** Input rows whose valid postcode an earlier row already gave; null for a report of all stored postcodes. */
export function duplicateRows(s: Pick<Summary, "postcodes">): number | null {
  const p = s.postcodes;
  return p.input === null ? null : p.input - (p.invalid ?? 0) - p.unique;
}

/** Every figure of the summary with its plain-English name, share and denominator. */
export function summaryRows(s: Summary): SummaryRow[] {
  const about = (figure: string, value: string | number | null): SummaryRow => ({ section: "About", figure, count: value, of: null, ofWhat: "" });
  // a partly answered list leads with the whole list's estimate
  const rows: SummaryRow[] = [
    ...leadRows(s),
    about("Report generated (UTC)", s.generatedAt),
    about("Run", s.runId ?? "all stored postcodes"),
    about("Includes simulated data (not the real API)", s.simulated ? "yes" : "no"),
    about("Mobile providers", s.providers.join(", ")),
    about("Attribution of the API's data", s.attribution),
  ];
  const input = s.postcodes.input;
  rows.push(
    { section: "Input", figure: "Input rows", count: input, of: null, ofWhat: "" },
    ...(s.input?.postcodeColumn ? [{ section: "Input", figure: "Postcode column used", count: s.input.postcodeColumn, of: null, ofWhat: "" }] : []),
    { section: "Input", figure: "Input rows without a valid postcode", count: s.postcodes.invalid, of: input, ofWhat: "input rows" },
    { section: "Input", figure: "Unique postcodes", count: s.postcodes.unique, of: null, ofWhat: "" },
    ...(input === null ? [] : [{ section: "Input", figure: DUPLICATES_LABEL, count: duplicateRows(s), of: input, ofWhat: "input rows" }]),
  );
  const statusRows = (lookup: Lookup, p: OutcomeCounts): SummaryRow[] =>
    (
      [
        ["Postcodes found", p.ok],
        ["Postcodes not found (unknown to the API)", p.notFound],
        ["Postcodes whose lookup failed after every retry", p.failed],
        ["Postcodes without an answer yet (pending)", p.pending],
        ["Postcodes whose answer expired, awaiting refresh", p.expired ?? 0],
      ] as const
    ).map(([figure, count]) => ({ section: LOOKUP_SPECS[lookup].label, figure, count, of: s.postcodes.unique, ofWhat: "unique postcodes" }));
  // while postcodes are unanswered, every address figure says so in its own label, not only in Of
  const partial = isAnsweredOnly(s);
  const counted = (r: SummaryRow): SummaryRow => ({ ...r, figure: answeredOnlyLabel(r.figure, partial) });
  if (s.broadband) {
    const b = s.broadband;
    const of = { of: b.addresses, ofWhat: "addresses the broadband lookup returned" };
    const figures: SummaryRow[] = [{ section: "Broadband", figure: "Addresses", count: b.addresses, of: null, ofWhat: "" }];
    for (const f of BROADBAND_FIGURES) figures.push({ section: "Broadband", figure: BROADBAND_LABELS[f], count: b[lowerFirst(f) as BroadbandKey], ...of });
    rows.push(...statusRows("broadband", b.postcodes), ...emptyWithoutAnswers(figures.map(counted), b));
  }
  if (s.mobile) {
    const m = s.mobile;
    const of = { of: m.addresses, ofWhat: "addresses the mobile lookup returned" };
    rows.push(...statusRows("mobile", m.postcodes), ...emptyWithoutAnswers([counted({ section: "Mobile", figure: "Addresses", count: m.addresses, of: null, ofWhat: "" })], m));
    rows.push(...scaleAboutRows(m));
    const figures: SummaryRow[] = [];
    for (const metric of SPREAD_METRICS) figures.push({ section: "Mobile", figure: spreadLabel(metric, judgingOfSummary(m)), count: spreadValue(m, metric), ...of });
    for (const [provider, counts] of Object.entries(m.providers))
      for (const metric of PROVIDER_METRICS)
        figures.push({ section: "Mobile", figure: providerLabel(provider, metric, judgingOfSummary(m)), count: counts[lowerFirst(metric) as keyof ProviderSummary], ...of });
    rows.push(...emptyWithoutAnswers([...figures, ...ratingShareRows(m, m.addresses)].map(counted), m));
  }
  for (const lookup of s.lookups) {
    const addresses = s[lookup]?.addresses ?? null;
    for (const r of s.releases[lookup])
      rows.push({
        section: "Releases",
        figure: `${LOOKUP_SPECS[lookup].label}: ${releaseWords(r)}`,
        count: r.addresses,
        of: addresses,
        ofWhat: `addresses the ${lookup} lookup returned`,
      });
  }
  if (s.changes) rows.push(...changesRows(s.changes));
  if (s.openData) rows.push(...openDataRows(s.openData, s.postcodes.unique));
  rows.push(...estimateRows(s.estimates, estimateLabels(s.providers, judgingOfReport(s))));
  return rows;
}

/** A lookup's figure rows, their counts empty when no answer stands behind them (hasAnswers): unknown is never 0. */
function emptyWithoutAnswers(figures: SummaryRow[], l: LookupAnswers): SummaryRow[] {
  return hasAnswers(l) ? figures : figures.map((r) => (typeof r.count === "number" ? { ...r, count: null } : r));
}

/** "release MobileAvailability-202601 (fetched 2026-01-02 to 2026-01-05)", or the dates alone when the API names no release. */
export function releaseWords(r: Release): string {
  const day = (iso: string) => iso.slice(0, 10);
  const when = r.fetchedFrom === null ? "" : day(r.fetchedFrom) === day(r.fetchedTo!) ? `fetched ${day(r.fetchedFrom)}` : `fetched ${day(r.fetchedFrom)} to ${day(r.fetchedTo!)}`;
  return r.release === null ? `no release named (${when})` : `release ${r.release} (${when})`;
}

function spreadValue(m: MobileSummary, metric: SpreadMetric): number {
  const channel = metric.startsWith("IndoorVoice") ? m.indoorVoice : m.indoorData;
  return metric.endsWith("TotalNotspots") ? channel.totalNotspots : channel.partialNotspots;
}

/** A row's share as a fraction: the one it gives, or its count of `of`; null when it has none. */
export function rowShare(r: SummaryRow): number | null {
  if (r.share !== undefined) return r.share;
  return typeof r.count === "number" && r.of !== null && r.of > 0 ? shareFraction(r.count, r.of) : null;
}

/** summary.csv's cells for one row: numbers as numbers, the share and its interval as fractions. */
export function summaryCells(r: SummaryRow): unknown[] {
  return [r.section, r.figure, r.count, rowShare(r), r.low ?? null, r.high ?? null, r.of === null ? "" : `${r.of.toLocaleString("en-GB")} ${r.ofWhat}`];
}

const n = (x: number) => x.toLocaleString("en-GB");
const pc = (x: number, of: number) => (of === 0 ? "-" : shareText(x, of));

/** The headline figures, a few lines for the end of a batch. */
export function headlineLines(s: Summary): string[] {
  const lines: string[] = [];
  const where = s.runId === null ? "all stored postcodes" : `run ${s.runId}`;
  lines.push(
    s.postcodes.input === null
      ? `report (${where}): ${n(s.postcodes.unique)} postcodes`
      : `report (${where}): ${n(s.postcodes.input)} input rows, ${n(s.postcodes.invalid ?? 0)} invalid, ${n(duplicateRows(s) ?? 0)} duplicate${duplicateRows(s) === 1 ? "" : "s"}, ${n(s.postcodes.unique)} unique postcodes`,
  );
  lines.push(...leadLines(s));
  // beside a lead, the figures below are the answered postcodes' alone
  const only = isAnsweredOnly(s) ? ` (${ANSWERED_ONLY})` : "";
  // a lookup without answers has no figures to give: it says why, beside its postcodes' outcomes
  const unanswered = (lookup: string, l: LookupAnswers) => `${lookup}: ${noAnswerWords(l.postcodes)} (${outcomeWords(l.postcodes)}); no figures until a postcode is answered`;
  if (s.broadband && !hasAnswers(s.broadband)) lines.push(unanswered("broadband", s.broadband));
  else if (s.broadband) {
    const b = s.broadband;
    lines.push(
      `broadband${only}: ${n(b.addresses)} addresses (${outcomeWords(b.postcodes)}); below decent (10/1 Mbit/s) ${pc(b.belowDecent, b.addresses)}, ` +
        `below superfast ${pc(b.belowSuperfast, b.addresses)}, gigabit ${pc(b.gigabit, b.addresses)}, no data ${pc(b.noData, b.addresses)}`,
    );
  }
  if (s.mobile && !hasAnswers(s.mobile)) lines.push(unanswered("mobile", s.mobile), `mobile scale: ${s.mobile.scaleReason}`);
  else if (s.mobile) {
    const m = s.mobile;
    lines.push(
      `mobile${only}: ${n(m.addresses)} addresses (${outcomeWords(m.postcodes)}); indoor notspots (${goodCoverageWords(judgingOfSummary(m))}${m.goodRatings ? "" : `, ${m.scale} scale`}): ` +
        `voice ${pc(m.indoorVoice.totalNotspots, m.addresses)} with no good provider, ${pc(m.indoorVoice.partialNotspots, m.addresses)} with only some; ` +
        `data ${pc(m.indoorData.totalNotspots, m.addresses)} none, ${pc(m.indoorData.partialNotspots, m.addresses)} only some`,
      `mobile scale: ${m.scaleReason}`,
    );
    if (m.scaleReading && m.scaleAddresses) lines.push(`mobile figures${only}: ${m.scaleReading}; ${n(m.scaleAddresses.legacy)} addresses on the legacy scale, ${n(m.scaleAddresses.current)} on the current one`);
    if (m.scaleChange) lines.push(m.scaleChange);
  }
  if (s.openData) lines.push(openDataHeadline(s.openData));
  const changed = s.changes && changesHeadline(s.changes);
  if (changed) lines.push(changed);
  if (s.simulated) lines.push("these figures include SIMULATED data from the bundled simulator, not the real API");
  return lines;
}
