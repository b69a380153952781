// The estimates of each group beside its answered-only figures in groups.csv and the workbook's
// Groups sheet: for the headline shares (below superfast, indoor voice total notspots), the
// estimate for all the group's addresses and its 95% interval (estimate-summary.ts), for every
// dimension (its membership is known for every postcode of the list: group-domains.ts).
import type { Lookup } from "../../contract/fields.js";
import { estimateKey, tooFew } from "./estimate-summary.js";
import { round4 } from "../words/estimate-words.js";
import type { EstimatesSummary } from "./types.js";
import { LOOKUP_SPECS } from "../../contract/lookups.js";
import { TOO_FEW_ANSWERED } from "./estimate-caveats.js";
import type { Interval } from "./estimates.js";
import type { GroupFigure, GroupRow } from "../groups/types.js";
import type { GroupSet } from "../groups/groups.js";

/** The Groups figures estimated, by their count column. */
export const ESTIMATED_GROUP_FIGURES = ["BelowSuperfast", "IndoorVoiceTotalNotspots"] as const;
export const ESTIMATE_PARTS = ["Estimate", "Low", "High"] as const;
const PARTS = ESTIMATE_PARTS;

/** The groups with the report's estimates: each group's estimated shares, beside their counts. */
export type EstimatedGroupSet = GroupSet & { estimates?: EstimatesSummary | null };

/** What the Groups need of a report's estimates; none (no columns) when the report has no postcodes. */
export interface GroupEstimateSource {
  figures: readonly GroupFigure[];
  estimates?: EstimatesSummary | null | undefined;
}

/** The estimate columns: per figure of a lookup in scope, e.g. BelowSuperfastEstimate, BelowSuperfastLow, BelowSuperfastHigh. */
export function groupEstimateColumns(groups: GroupEstimateSource): { figure: GroupFigure; part: (typeof PARTS)[number]; column: string }[] {
  const lookups = Object.keys(groups.estimates?.lookups ?? {}) as Lookup[];
  return ESTIMATED_GROUP_FIGURES.map((c) => groups.figures.find((f) => f.column === c))
    .filter((f): f is GroupFigure => !!f && lookups.includes(f.lookup))
    .flatMap((figure) => PARTS.map((part) => ({ figure, part, column: `${figure.column}${part}` })));
}

/** The lookups whose figures are estimated (in scope, with an estimated figure). */
export function estimatedLookups(groups: GroupEstimateSource): Lookup[] {
  return [...new Set(groupEstimateColumns(groups).map((c) => c.figure.lookup))];
}

/** The columns after the answered-only figures: answered postcodes per lookup, the estimates, and why a group has none. */
export function groupEstimateHeader(groups: GroupEstimateSource): string[] {
  const columns = groupEstimateColumns(groups);
  if (columns.length === 0) return [];
  return [...estimatedLookups(groups).map(answeredColumn), ...columns.map((c) => c.column), NOTE_COLUMN];
}

export const answeredColumn = (l: Lookup) => `${LOOKUP_SPECS[l].label}AnsweredPostcodes`;
export const NOTE_COLUMN = "EstimateNote";

/**
 * Every group's cells under groupEstimateHeader, the columns worked out once for the report (not
 * per group: thousands of rows): counts and fractions as numbers (4 places), and the note of why a
 * group shows no estimate for some lookup ("Broadband: no estimate: fewer than 2 of its postcodes
 * answered"; empty when it has them all).
 */
export function groupEstimateCells(groups: GroupEstimateSource): (row: GroupRow) => (number | string | null)[] {
  const columns = groupEstimateColumns(groups);
  if (columns.length === 0) return () => [];
  const lookups = estimatedLookups(groups);
  const figures = [...new Set(columns.map((c) => c.figure))].map((f) => ({ key: estimateKey(f.column), parts: columns.filter((c) => c.figure === f).map((c) => c.part) }));
  const notes = lookups.map((l) => `${LOOKUP_SPECS[l].label}: ${TOO_FEW_ANSWERED}`);
  return (row) => {
    const domain = groups.estimates?.groups[row.dimension]?.[row.group];
    const answered = lookups.map((l) => domain?.answeredPerLookup[l] ?? null);
    const values = figures.flatMap(({ key, parts }) => {
      const i: Interval | undefined = domain?.share(key);
      return parts.map((part) => round4(i ? ((part === "Estimate" ? i.estimate : part === "Low" ? i.low : i.high) ?? null) : null));
    });
    const note = domain ? notes.filter((_, k) => tooFew({ exact: domain.answeredPerLookup[lookups[k]!] === domain.postcodes, answeredPostcodes: domain.answeredPerLookup[lookups[k]!] ?? 0 })).join("; ") : "";
    return [...answered, ...values, note];
  };
}
