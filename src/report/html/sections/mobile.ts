// 3. Mobile: per provider the share of addresses with good coverage; total and partial indoor
// notspots; addresses whose good indoor data depends on 4G.
import type { ProviderSummary } from "../../summary/summary.js";
import { barChart, nothingToDraw } from "../charts.js";
import { figure, paragraph, section } from "../figure.js";
import { formatCount, formatCounted, formatShare, shareValue } from "../format.js";
import { PALETTE } from "../palette.js";
import { table } from "../tables.js";
import type { HtmlReportData } from "../types.js";
import { goodJudgingWords } from "../../../contract/mobile-scales.js";
import { judgingOfSummary, scaleMixWords } from "../../scale/scale-figures.js";
import { ratingsFigure } from "./mobile-ratings.js";
import { hasAnswers, noFiguresSentence } from "../../summary/without-answers.js";
import { answeredOnlyLabel, answeredOnlySentence, isAnsweredOnly } from "../../words/answered-only.js";

const n = formatCount;

/** The four ratings, each with the summary's notspot count it is the complement of. */
export const COVERAGE_KINDS: readonly { name: string; notspots: keyof ProviderSummary; colour: string }[] = [
  { name: "Indoor voice", notspots: "indoorVoiceNotspots", colour: PALETTE[0] },
  { name: "Indoor data", notspots: "indoorDataNotspots", colour: PALETTE[1] },
  { name: "Outdoor voice", notspots: "outdoorVoiceNotspots", colour: PALETTE[3] },
  { name: "Outdoor data", notspots: "outdoorDataNotspots", colour: PALETTE[4] },
];

export function mobileSection(data: HtmlReportData, title: string): string {
  const m = data.summary.mobile;
  if (!m) return section("mobile", title, paragraph("This run did not ask for the mobile lookup (--lookups), so there are no mobile figures."));
  if (!hasAnswers(m)) return section("mobile", title, paragraph(noFiguresSentence("mobile", m.postcodes), "empty"));
  if (m.addresses === 0)
    return section("mobile", title, paragraph(`No mobile addresses: none of the ${formatCounted(data.summary.postcodes.unique, "postcode")} has an address in the mobile answers.`, "empty"));
  const mix = scaleMixWords(m);
  const mixNote = mix === null ? "" : paragraph(`These figures combine answers on two scales: ${mix}.`, "scale-mix");
  return section("mobile", title, mixNote + goodFigure(data) + ratingsFigure(data) + notspotsFigure(data) + needs4gFigure(data));
}

function goodFigure(data: HtmlReportData): string {
  const m = data.summary.mobile!;
  const providers = data.summary.providers;
  // good = rated and not a notspot: the summary's counts are the one source of these numbers (an
  // address without the provider's ratings is neither)
  const good = (p: string, kind: (typeof COVERAGE_KINDS)[number]) => m.addresses - (m.unrated?.[p] ?? 0) - m.providers[p]![kind.notspots];
  const series = COVERAGE_KINDS.map((kind) => ({
    name: kind.name,
    values: providers.map((p) => shareValue(good(p, kind), m.addresses)),
    labels: providers.map((p) => `${kind.name} ${formatShare(good(p, kind), m.addresses)}`),
    colour: kind.colour,
  }));
  const voice = providers.map((p) => ({ p, good: good(p, COVERAGE_KINDS[0]!) })).sort((a, b) => b.good - a.good);
  const best = voice[0]!;
  const worst = voice[voice.length - 1]!;
  const unrated = providers.filter((p) => (m.unrated?.[p] ?? 0) > 0).map((p) => `${formatCounted(m.unrated![p]!, "address", "addresses")} for ${p}`);
  const unratedNote =
    unrated.length === 0 ? "" : ` Without a rating, counted neither good nor a notspot (answers stored before the provider was asked for): ${unrated.join(", ")}.`;
  return figure({
    id: "mobile-good",
    title: `Addresses with good coverage (${goodJudgingWords(judgingOfSummary(m))}), per provider`,
    reading: answeredOnlySentence(
      (voice.length === 1
        ? `${best.p} has good indoor voice at ${formatShare(best.good, m.addresses)} of addresses.`
        : best.good === worst.good
          ? `Good indoor voice: ${formatShare(best.good, m.addresses)} of addresses with every provider.`
          : `Good indoor voice: at most ${formatShare(best.good, m.addresses)} of addresses (${best.p}), at least ${formatShare(worst.good, m.addresses)} (${worst.p}).`) + unratedNote,
      isAnsweredOnly(data.summary),
    ),
    chart: barChart({
      title: "Share of addresses with good coverage per provider",
      categories: providers,
      series,
      orientation: "horizontal",
      valueAxis: "% of addresses",
      percent: true,
      width: 900,
    }),
    wide: true,
    empty: "",
    table: table({
      caption: answeredOnlyLabel(`Addresses with good coverage per provider, of ${n(m.addresses)} mobile addresses`, isAnsweredOnly(data.summary)),
      columns: ["Provider", ...COVERAGE_KINDS.flatMap((k) => [k.name, "Share"])],
      rows: providers.map((p) => ({ header: p, cells: COVERAGE_KINDS.flatMap((k) => [n(good(p, k)), formatShare(good(p, k), m.addresses)]) })),
    }),
  });
}

function notspotsFigure(data: HtmlReportData): string {
  const m = data.summary.mobile!;
  const rows = [
    { name: "Indoor voice: no provider good", value: m.indoorVoice.totalNotspots, colour: PALETTE[0] },
    { name: "Indoor voice: some, not all", value: m.indoorVoice.partialNotspots, colour: PALETTE[3] },
    { name: "Indoor data: no provider good", value: m.indoorData.totalNotspots, colour: PALETTE[0] },
    { name: "Indoor data: some, not all", value: m.indoorData.partialNotspots, colour: PALETTE[3] },
  ];
  const values = rows.map((r) => r.value);
  return figure({
    id: "mobile-notspots",
    title: "Indoor notspots: total (no provider good) and partial (some providers good, not all)",
    reading: answeredOnlySentence(
      `${formatShare(m.indoorVoice.totalNotspots, m.addresses)} of addresses (${n(m.indoorVoice.totalNotspots)}) have no provider with good indoor voice; ${formatShare(m.indoorVoice.partialNotspots, m.addresses)} have only some.`,
      isAnsweredOnly(data.summary),
    ),
    chart: nothingToDraw([{ values }])
      ? null
      : barChart({
          title: "Total and partial indoor notspots",
          categories: rows.map((r) => r.name),
          series: [{ name: "Addresses", values, labels: rows.map((r) => `${n(r.value)} · ${formatShare(r.value, m.addresses)}`), colour: rows.map((r) => r.colour) }],
          orientation: "horizontal",
          valueAxis: "addresses",
        }),
    empty: `No indoor notspots: every one of the ${n(m.addresses)} addresses has good indoor voice and data from every provider.`,
    table: table({
      caption: answeredOnlyLabel(`Indoor notspots, of ${n(m.addresses)} mobile addresses`, isAnsweredOnly(data.summary)),
      columns: ["Notspot", "Addresses", "Share"],
      rows: rows.map((r) => ({ header: r.name, cells: [n(r.value), formatShare(r.value, m.addresses)] })),
    }),
  });
}

function needs4gFigure(data: HtmlReportData): string {
  const m = data.summary.mobile!;
  const providers = data.summary.providers;
  const values = providers.map((p) => m.providers[p]!.indoorDataNeeds4g);
  const most = providers.map((p, i) => ({ p, v: values[i]! })).sort((a, b) => b.v - a.v)[0]!;
  return figure({
    id: "mobile-needs-4g",
    title: "Addresses whose good indoor data needs 4G, per provider",
    reading: answeredOnlySentence(`With ${most.p}, ${formatCounted(most.v, "address", "addresses")} (${formatShare(most.v, m.addresses)}) have good indoor data only thanks to 4G.`, isAnsweredOnly(data.summary)),
    chart: nothingToDraw([{ values }])
      ? null
      : barChart({
          title: "Addresses that need 4G for good indoor data",
          categories: providers,
          series: [{ name: "Addresses", values, labels: values.map((v) => `${n(v)} · ${formatShare(v, m.addresses)}`), colour: PALETTE[1] }],
          orientation: "horizontal",
          valueAxis: "addresses",
        }),
    empty: "No address depends on 4G for good indoor data with any provider.",
    table: table({
      caption: answeredOnlyLabel(`Addresses with good indoor data with 4G but not without it, of ${n(m.addresses)} mobile addresses`, isAnsweredOnly(data.summary)),
      columns: ["Provider", "Addresses", "Share"],
      rows: providers.map((p, i) => ({ header: p, cells: [n(values[i]!), formatShare(values[i]!, m.addresses)] })),
    }),
  });
}
