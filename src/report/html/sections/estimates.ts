// The whole list's estimated shares, beside the answered-only figures of the other sections: what
// each lookup's figures stand on, and each share with its 95% interval (docs/estimates.md).
import { paragraph, section } from "../figure.js";
import { table } from "../tables.js";
import { estimateBasis, estimateLabels, intervalText, type EstimatesSummary } from "../../estimate-summary.js";
import type { Summary } from "../../summary.js";
import { LOOKUP_SPECS } from "../../../spec/lookups.js";
import type { Lookup } from "../../../spec/fields.js";

/** Shown only while some postcode of a lookup is unanswered: otherwise the figures above are exact. */
export function showsEstimates(s: Summary): s is Summary & { estimates: EstimatesSummary } {
  return !!s.estimates && !s.estimates.exact;
}

export function estimatesSection(s: Summary & { estimates: EstimatesSummary }, title: string): string {
  const e = s.estimates;
  const labels = estimateLabels(s.providers, s.goodRating, s.mobile?.scale ?? "current");
  const basis = Object.entries(e.lookups).map(
    ([l, f]) => `${LOOKUP_SPECS[l as Lookup].label}: ${estimateBasis({ answeredPostcodes: f.answeredPostcodes, postcodes: e.postcodes, exact: f.exact })}.`,
  );
  const intro = paragraph(
    "The figures above count the addresses of the postcodes answered so far. These estimate the same shares for every address of the list, " +
      "from a random sample of its postcodes taken across every district; the range is where the true share very likely lies.",
  );
  const rows = Object.entries(e.shares).map(([key, i]) => ({ header: labels[key] ?? key, cells: [intervalText(i)] }));
  const estimates = table({ caption: `Estimated shares of all addresses of the list (95% interval)`, columns: ["Figure", "Estimate (95% interval)"], rows });
  return section("estimates", title, [intro, ...basis.map((b) => paragraph(b)), estimates].join("\n"));
}
