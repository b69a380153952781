// The whole list's estimated shares, beside the answered-only figures of the other sections: what
// each lookup's figures stand on, and each share with its 95% interval (docs/estimates.md).
import { barChart } from "../charts.js";
import { figure, paragraph, section } from "../figure.js";
import { PALETTE } from "../palette.js";
import { table } from "../tables.js";
import { estimateBasis, estimateKey, estimateLabels, intervalText, type EstimatesSummary } from "../../estimate-summary.js";
import { groupFigures } from "../../groups.js";
import type { Interval } from "../../estimates.js";
import { scaleOf, type Summary } from "../../summary.js";
import { LOOKUP_SPECS } from "../../../spec/lookups.js";
import type { Lookup } from "../../../spec/fields.js";

/** Shown only while some postcode of a lookup is unanswered: otherwise the figures above are exact. */
export function showsEstimates(s: Summary): s is Summary & { estimates: EstimatesSummary } {
  return !!s.estimates && !s.estimates.exact;
}

export function estimatesSection(s: Summary & { estimates: EstimatesSummary }, title: string): string {
  const e = s.estimates;
  const labels = estimateLabels(s.providers, s.goodRating, scaleOf(s));
  const basis = Object.entries(e.lookups).map(
    ([l, f]) => `${LOOKUP_SPECS[l as Lookup].label}: ${estimateBasis({ answeredPostcodes: f.answeredPostcodes, postcodes: e.postcodes, exact: f.exact })}.`,
  );
  const intro = paragraph(
    "The figures above count the addresses of the postcodes answered so far. These estimate the same shares for every address of the list, " +
      "from a random sample of its postcodes taken across every district; the range is where the true share very likely lies.",
  );
  const rows = Object.entries(e.shares).map(([key, i]) => ({ header: labels[key] ?? key, cells: [intervalText(i)] }));
  const estimates = table({ caption: `Estimated shares of all addresses of the list (95% interval)`, columns: ["Figure", "Estimate (95% interval)"], rows });
  return section("estimates", title, [intro, ...basis.map((b) => paragraph(b)), estimatesFigure(s), estimates].join("\n"));
}

/** The headline shares charted: each lookup's worst-served addresses. */
const CHARTED = ["belowDecent", "belowSuperfast", "indoorVoiceTotalNotspot", "indoorDataTotalNotspot"] as const;
const points = (x: number) => Math.round(1000 * x) / 10;

/** The headline estimates as bars with their 95% intervals as error bars, the basis sentence beside. */
function estimatesFigure(s: Summary & { estimates: EstimatesSummary }): string {
  const e = s.estimates;
  // the chart names each share briefly (the Groups headings); the table beside, in full
  const heading = new Map(groupFigures(s.providers, s.goodRating, scaleOf(s)).map((f) => [estimateKey(f.column), f.heading]));
  const shown = CHARTED.map((key) => [key, e.shares[key]] as const).filter((kv): kv is readonly [(typeof CHARTED)[number], Interval & { estimate: number }] => kv[1]?.estimate != null);
  const title = "Estimated shares of all addresses of the list, with their 95% intervals";
  return figure({
    id: "estimates-chart",
    title,
    reading: `${shown.length > 0 ? "Each bar is an estimate, its line the 95% interval: " : ""}${estimateBasis(e)}.`,
    chart:
      shown.length === 0
        ? null
        : barChart({
            title,
            categories: shown.map(([key]) => heading.get(key) ?? key),
            series: [
              {
                name: "Estimate",
                values: shown.map(([, i]) => points(i.estimate)),
                labels: shown.map(([, i]) => intervalText(i)),
                colour: PALETTE[3],
                intervals: shown.map(([, i]) => (i.low === null || i.high === null ? null : [points(i.low), points(i.high)])),
              },
            ],
            orientation: "horizontal",
            valueAxis: "% of addresses",
            percent: true,
          }),
    empty: "No answered postcode has addresses yet: nothing to estimate from.",
    table: table({
      caption: `${title} (${estimateBasis(e)})`,
      columns: ["Figure", "Estimate", "Low", "High"],
      rows: shown.map(([key, i]) => ({ header: heading.get(key) ?? key, cells: [i.estimate, i.low, i.high].map((x) => (x === null ? "–" : `${points(x).toFixed(1)}%`)) })),
    }),
  });
}
