// The whole list's estimated shares, beside the answered-only figures of the other sections: what
// each lookup's figures stand on, and each share with its 95% interval (docs/estimates.md).
import { barChart } from "../charts.js";
import { figure, paragraph, section } from "../figure.js";
import { PALETTE } from "../palette.js";
import { table } from "../tables.js";
import { intervalText } from "../../words/estimate-words.js";
import { estimateKey, estimateLabels, lookupBases, type EstimatedDomain, type EstimatesSummary, type GroupEstimate } from "../../estimates/estimate-summary.js";
import { TOO_FEW_ANSWERED } from "../../estimates/estimate-caveats.js";
import { groupFigures } from "../../groups/groups.js";
import { ESTIMATE_RANKING_WORDS, lowEnd } from "../../estimates/ranking.js";
import type { Interval } from "../../estimates/estimates.js";
import { judgingOfReport, type Summary } from "../../summary/summary.js";
import { LOOKUP_SPECS } from "../../../contract/lookups.js";
import type { Lookup } from "../../../contract/fields.js";
import { byLocale, naturalOrder } from "../../../figures/name-order.js";

/** Shown only while some postcode of a lookup is unanswered: otherwise the figures above are exact. */
export function showsEstimates(s: Summary): s is Summary & { estimates: EstimatesSummary } {
  return !!s.estimates && !s.estimates.exact;
}

export function estimatesSection(s: Summary & { estimates: EstimatesSummary }, title: string): string {
  const e = s.estimates;
  const labels = estimateLabels(s.providers, judgingOfReport(s));
  const basis = Object.entries(e.lookups).map(([l, f]) => `${LOOKUP_SPECS[l as Lookup].label}: ${f.exact ? "exact" : `estimated from ${f.answeredPostcodes} of ${e.postcodes} postcodes (95% interval)`}.`);
  const intro = paragraph(
    "The figures above count the addresses of the postcodes answered so far. These estimate the same shares for every address of the list, " +
      "from a random sample of its postcodes taken across every district; the range is where the true share very likely lies.",
  );
  const rows = Object.entries(e.shares).map(([key, i]) => ({ header: labels[key] ?? key, cells: [estimateCell(i)] }));
  const said = [paragraph(e.assumption, "assumption"), ...e.caveats.map((c) => paragraph(`Caution: ${c}`, "caution"))];
  const estimates = table({ caption: `Estimated shares of all addresses of the list (95% interval)`, columns: ["Figure", "Estimate (95% interval)"], rows });
  return section("estimates", title, [intro, ...basis.map((b) => paragraph(b)), ...said, estimatesFigure(s), estimates, ...groupEstimateFigures(s)].join("\n"));
}

/** An estimate in words, or why a domain has none. */
const estimateCell = (i: Interval | undefined) => (i === undefined ? "" : i.estimate === null ? TOO_FEW_ANSWERED : intervalText(i));

/** "61 of 288 (broadband), 59 (mobile)": a group's answered postcodes per lookup where they differ. */
function answeredCell(d: Omit<EstimatedDomain, "shares">): string {
  const per = Object.entries(d.answeredPerLookup);
  const same = per.every(([, c]) => c === per[0]?.[1]);
  const text = same ? `${per[0]?.[1] ?? d.answeredPostcodes} of ${d.postcodes}` : `${per.map(([l, c]) => `${c} (${l})`).join(", ")} of ${d.postcodes}`;
  return `${text}${d.exact ? " (exact)" : ""}`;
}

/** The headline shares charted: each lookup's worst-served addresses. */
const CHARTED = ["belowDecent", "belowSuperfast", "indoorVoiceTotalNotspot", "indoorDataTotalNotspot"] as const;
const points = (x: number) => Math.round(1000 * x) / 10;

/** The headline estimates as bars with their 95% intervals as error bars, the basis sentence beside. */
function estimatesFigure(s: Summary & { estimates: EstimatesSummary }): string {
  const e = s.estimates;
  // the chart names each share briefly (the Groups headings); the table beside, in full
  const heading = new Map(groupFigures(s.providers, judgingOfReport(s)).map((f) => [estimateKey(f.column), f.heading]));
  const shown = CHARTED.map((key) => [key, e.shares[key]] as const).filter((kv): kv is readonly [(typeof CHARTED)[number], Interval & { estimate: number }] => kv[1]?.estimate != null);
  const title = "Estimated shares of all addresses of the list, with their 95% intervals";
  return figure({
    id: "estimates-chart",
    title,
    reading: `${shown.length > 0 ? "Each bar is an estimate, its line the 95% interval: " : ""}${lookupBases(e).join("; ")}.`,
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
      caption: `${title} (${lookupBases(e).join("; ")})`,
      columns: ["Figure", "Estimate", "Low", "High"],
      rows: shown.map(([key, i]) => ({ header: heading.get(key) ?? key, cells: [i.estimate, i.low, i.high].map((x) => (x === null ? "–" : `${points(x).toFixed(1)}%`)) })),
    }),
  });
}

/** The groups' charts: the groups ranked by their estimate's interval's low end, at most this many per dimension. */
const GROUPS_CHARTED = 20;

/** The groups with an estimate of `key`, ranked by ESTIMATE_RANKING_WORDS (its interval's low end), the first GROUPS_CHARTED. */
export function rankedGroupEstimates(groups: Record<string, Pick<GroupEstimate, "share">>, key: string): (readonly [string, Interval & { estimate: number }])[] {
  return Object.entries(groups)
    .map(([g, d]) => [g, d.share(key)] as const)
    .filter((kv): kv is readonly [string, Interval & { estimate: number }] => kv[1]?.estimate != null)
    .sort(([a, x], [b, y]) => lowEnd(y)! - lowEnd(x)! || y.estimate - x.estimate || naturalOrder(a, b, byLocale))
    .slice(0, GROUPS_CHARTED);
}

/**
 * Per --group-by dimension, the groups' estimated below-superfast shares (or, without broadband, indoor
 * voice total notspots) with their 95% intervals as error bars, and a table of every group's headline estimates.
 */
function groupEstimateFigures(s: Summary & { estimates: EstimatesSummary }): string[] {
  const heading = new Map(groupFigures(s.providers, judgingOfReport(s)).map((f) => [estimateKey(f.column), f.heading]));
  const keys = ["belowSuperfast", "indoorVoiceTotalNotspot"].filter((k) => k in s.estimates.shares);
  const charted = keys[0];
  if (charted === undefined) return [];
  return Object.entries(s.estimates.groups).map(([dimension, groups]) => {
    const shown = rankedGroupEstimates(groups, charted);
    const title = `${dimension}: estimated share of all the group's addresses ${heading.get(charted)?.toLowerCase() ?? charted}, with 95% intervals`;
    return figure({
      id: `estimates-${dimension.replace(/[^A-Za-z0-9_-]/g, "_")}`,
      title,
      reading: shown.length > 0 ? `Each bar is a group's estimate, its line the 95% interval; ${ESTIMATE_RANKING_WORDS}; each group's estimate stands on its own answered postcodes.` : "",
      chart:
        shown.length === 0
          ? null
          : barChart({
              title,
              categories: shown.map(([g]) => g),
              series: [
                {
                  name: "Estimate",
                  values: shown.map(([, i]) => points(i.estimate)),
                  // the answered postcodes are in the table beside: a bar's label fits beside the bar
                  labels: shown.map(([, i]) => intervalText(i)),
                  colour: PALETTE[4],
                  intervals: shown.map(([, i]) => (i.low === null || i.high === null ? null : [points(i.low), points(i.high)])),
                },
              ],
              orientation: "horizontal",
              valueAxis: "% of addresses",
              percent: true,
            }),
      empty: `No ${dimension} group has an answered postcode with addresses yet.`,
      table: table({
        caption: `${dimension}: each group's estimates (95% interval)`,
        columns: ["Group", "Answered postcodes", ...keys.map((k) => heading.get(k) ?? k)],
        rows: Object.entries(groups).map(([g, d]) => ({ header: g, cells: [answeredCell(d), ...keys.map((k) => estimateCell(d.share(k)))] })),
        // a group without an estimate says why in words, which wrap
        textColumns: Object.values(groups).some((d) => keys.some((k) => d.share(k)?.estimate === null)) ? keys.map((_, i) => i + 1) : [],
      }),
    });
  });
}
