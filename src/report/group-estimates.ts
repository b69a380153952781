// The estimates of each group beside its answered-only figures in groups.csv and the workbook's
// Groups sheet: for the headline shares (below superfast, indoor voice total notspots), the
// estimate for all the group's addresses and its 95% interval (estimate-summary.ts), for every
// dimension (its membership is known for every postcode of the list: group-domains.ts).
import type { Lookup } from "../spec/fields.js";
import { estimateKey, type EstimatesSummary } from "./estimate-summary.js";
import type { Interval } from "./estimates.js";
import type { GroupFigure, GroupRow } from "./groups.js";
import { fitWidth, SHARE, type SheetColumn } from "./workbook-sheet.js";

/** The Groups figures estimated, by their count column. */
export const ESTIMATED_GROUP_FIGURES = ["BelowSuperfast", "IndoorVoiceTotalNotspots"] as const;
const PARTS = ["Estimate", "Low", "High"] as const;

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

/** A group's estimate cells as fractions (null where there is none), in groupEstimateColumns' order. */
export function groupEstimateValues(groups: GroupEstimateSource, row: GroupRow): (number | null)[] {
  const shares = groups.estimates?.groups[row.dimension]?.[row.group]?.shares;
  return groupEstimateColumns(groups).map(({ figure, part }) => {
    const i: Interval | undefined = shares?.[estimateKey(figure.column)];
    const value = i ? (part === "Estimate" ? i.estimate : part === "Low" ? i.low : i.high) : null;
    return value ?? null;
  });
}

/** The same, as groups.csv writes shares: "14.5%", or blank. */
export function groupEstimateCells(...args: Parameters<typeof groupEstimateValues>): string[] {
  return groupEstimateValues(...args).map((x) => (x === null ? "" : `${(100 * x).toFixed(1)}%`));
}

const PART_WORDS: Record<(typeof PARTS)[number], string> = { Estimate: "est.", Low: "low", High: "high" };

/** The workbook's Groups sheet's estimate columns, as shares. */
export function groupEstimateSheetColumns(groups: GroupEstimateSource): SheetColumn[] {
  return groupEstimateColumns(groups).map(({ figure, part, column }) => {
    const heading = `${figure.heading} % ${PART_WORDS[part]}`;
    const what = part === "Estimate" ? "estimated share of all the group's addresses" : `the ${part.toLowerCase()} end of its 95% interval`;
    return { heading, note: `${what}, from its answered postcodes (groups.csv: ${column})`, width: fitWidth(heading, 9), style: SHARE };
  });
}
