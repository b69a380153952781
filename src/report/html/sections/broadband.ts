// 2. Broadband: addresses per exclusive tier, and the distribution of MaxPredictedDown.
import { SPEED_THRESHOLDS as T, type Tier } from "../../../figures/definitions.js";
import { barChart, nothingToDraw } from "../charts.js";
import { figure, paragraph, section } from "../figure.js";
import { formatCount, formatCounted, formatShare } from "../format.js";
import { TIER_COLOURS } from "../palette.js";
import { table } from "../tables.js";
import type { HtmlReportData, SpeedBin } from "../types.js";
import { hasAnswers, noFiguresSentence } from "../../summary/without-answers.js";
import { answeredOnlyLabel, answeredOnlySentence, isAnsweredOnly } from "../../words/answered-only.js";

const n = formatCount;

/** Each tier in words, from the thresholds. */
export const TIER_MEANING: Record<Tier, string> = {
  "No data": "no predicted speed",
  "Below decent": `under ${T.decentDown} down or under ${T.decentUp} up`,
  Decent: `${T.decentDown} down and ${T.decentUp} up, under ${T.superfast} down`,
  Superfast: `${T.superfast} to under ${n(T.ultrafast)} down`,
  Ultrafast: `${n(T.ultrafast)} to under ${n(T.gigabit)} down`,
  Gigabit: `${n(T.gigabit)} or more down`,
};

/** A tier as a band, "Superfast (30–300)": the bare name is the band here, never the nested "at least" count. */
const BAND_RANGE: Partial<Record<Tier, string>> = {
  Decent: `${T.decentDown}–${T.superfast}`,
  Superfast: `${T.superfast}–${n(T.ultrafast)}`,
  Ultrafast: `${n(T.ultrafast)}–${n(T.gigabit)}`,
  Gigabit: `${n(T.gigabit)}+`,
};
export function tierBandLabel(tier: Tier): string {
  const range = BAND_RANGE[tier];
  return range ? `${tier} (${range})` : tier;
}

export function binLabel(b: SpeedBin): string {
  return b.to === null ? `${n(b.from)}+` : `${n(b.from)}–${n(b.to)}`;
}

export function broadbandSection(data: HtmlReportData, title: string): string {
  const b = data.summary.broadband;
  if (!b) return section("broadband", title, paragraph("This run did not ask for the broadband lookup (--lookups), so there are no broadband figures."));
  if (!hasAnswers(b)) return section("broadband", title, paragraph(noFiguresSentence("broadband", b.postcodes), "empty"));
  return section("broadband", title, tiersFigure(data) + speedFigure(data));
}

/** Some postcodes unanswered: these figures are the answered ones' alone (the page's opening estimates the whole list). */
const partial = (data: HtmlReportData) => isAnsweredOnly(data.summary);

function tiersFigure(data: HtmlReportData): string {
  const b = data.summary.broadband!;
  // worst first, as the issue lists them
  const tiers = [...data.tiers].reverse();
  const values = tiers.map((t) => t.addresses);
  const labels = tiers.map((t) => `${n(t.addresses)} · ${formatShare(t.addresses, b.addresses)}`);
  const empty = nothingToDraw([{ values }]);
  return figure({
    id: "broadband-tiers",
    title: "Addresses per broadband tier",
    reading: answeredOnlySentence(
      `${formatShare(b.belowSuperfast, b.addresses)} of addresses (${n(b.belowSuperfast)}) cannot get superfast (${T.superfast} Mbit/s); ${formatShare(b.gigabit, b.addresses)} (${n(b.gigabit)}) can get gigabit.`,
      partial(data),
    ),
    chart: empty
      ? null
      : barChart({
          title: "Addresses per broadband tier",
          categories: tiers.map((t) => tierBandLabel(t.tier)),
          series: [{ name: "Addresses", values, labels, colour: tiers.map((t) => TIER_COLOURS[t.tier]) }],
          orientation: "horizontal",
          valueAxis: "addresses",
        }),
    empty: `No broadband addresses: none of the ${formatCounted(data.summary.postcodes.unique, "postcode")} has an address in the broadband answers.`,
    table: table({
      caption: answeredOnlyLabel("Addresses per broadband tier (each address in one tier; speeds in Mbit/s)", partial(data)),
      columns: ["Tier", "Speed", "Addresses", "Share"],
      rows: tiers.map((t) => ({ header: tierBandLabel(t.tier), cells: [TIER_MEANING[t.tier], n(t.addresses), formatShare(t.addresses, b.addresses)] })),
      total: { header: "All addresses", cells: ["", n(b.addresses), formatShare(b.addresses, b.addresses)] },
      textColumns: [0],
    }),
  });
}

function speedFigure(data: HtmlReportData): string {
  const bins = data.speedBins;
  const withData = bins.reduce((sum, bin) => sum + bin.addresses, 0);
  const values = bins.map((bin) => bin.addresses);
  const top = bins.reduce<SpeedBin | null>((best, bin) => (bin.addresses > (best?.addresses ?? 0) ? bin : best), null);
  return figure({
    id: "broadband-speeds",
    title: "Predicted download speed (MaxPredictedDown)",
    reading: top
      ? answeredOnlySentence(
          `Of ${formatCounted(withData, "address", "addresses")} with a prediction, the most common range is ${binLabel(top)} Mbit/s (${n(top.addresses)}, ${formatShare(top.addresses, withData)}).`,
          partial(data),
        )
      : "",
    chart: !top
      ? null
      : barChart({
          title: "Addresses by predicted download speed",
          categories: bins.map(binLabel),
          series: [
            {
              name: "Addresses",
              values,
              labels: values.map((v) => (v === 0 ? "" : n(v))),
              colour: bins.map((bin) => TIER_COLOURS[bin.tier]),
            },
          ],
          orientation: "vertical",
          valueAxis: "addresses",
          categoryAxis: "download, Mbit/s (from ≤ speed < to)",
        }),
    empty: "No address has a predicted download speed, so there is no distribution to show.",
    table: table({
      caption: answeredOnlyLabel("Addresses by MaxPredictedDown, Mbit/s (from ≤ speed < to; addresses without a prediction left out)", partial(data)),
      columns: ["Download", "Addresses", "Share"],
      rows: bins.map((bin) => ({ header: binLabel(bin), cells: [n(bin.addresses), formatShare(bin.addresses, withData)] })),
      total: { header: "With a prediction", cells: [n(withData), formatShare(withData, withData)] },
    }),
  });
}
