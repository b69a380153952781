// The estimates of each group beside its answered-only figures in groups.csv and the workbook's
// Groups sheet: for the headline shares (below superfast, indoor voice total notspots), the
// estimate for all the group's addresses and its 95% interval (estimate-summary.ts), for every
// dimension (its membership is known for every postcode of the list: group-domains.ts).
import type { Lookup } from "../contract/fields.js";
import { estimateKey, round4, tooFew, type EstimatesSummary } from "./estimate-summary.js";
import { LOOKUP_SPECS } from "../contract/lookups.js";
import { TOO_FEW_ANSWERED } from "./estimate-caveats.js";
import type { Interval } from "./estimates.js";
import type { GroupFigure, GroupRow } from "./groups.js";
import { COUNT, fitWidth, SHARE, TEXT, type SheetColumn } from "./workbook-sheet.js";

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

/** The lookups whose figures are estimated (in scope, with an estimated figure). */
function estimatedLookups(groups: GroupEstimateSource): Lookup[] {
  return [...new Set(groupEstimateColumns(groups).map((c) => c.figure.lookup))];
}

/** The columns after the answered-only figures: answered postcodes per lookup, the estimates, and why a group has none. */
export function groupEstimateHeader(groups: GroupEstimateSource): string[] {
  const columns = groupEstimateColumns(groups);
  if (columns.length === 0) return [];
  return [...estimatedLookups(groups).map(answeredColumn), ...columns.map((c) => c.column), NOTE_COLUMN];
}

const answeredColumn = (l: Lookup) => `${LOOKUP_SPECS[l].label}AnsweredPostcodes`;
const NOTE_COLUMN = "EstimateNote";

/** Why a group shows no estimate for some lookup: "Broadband: no estimate: fewer than 2 of its postcodes answered"; empty when it has them all. */
function estimateNote(groups: GroupEstimateSource, row: GroupRow): string {
  const domain = groups.estimates?.groups[row.dimension]?.[row.group];
  if (!domain) return "";
  return estimatedLookups(groups)
    .filter((l) => tooFew({ exact: domain.answeredPerLookup[l] === domain.postcodes, answeredPostcodes: domain.answeredPerLookup[l] ?? 0 }))
    .map((l) => `${LOOKUP_SPECS[l].label}: ${TOO_FEW_ANSWERED}`)
    .join("; ");
}

/** A group's cells under groupEstimateHeader: counts and fractions as numbers (4 places), the note as text. */
export function groupEstimateRow(groups: GroupEstimateSource, row: GroupRow): (number | string | null)[] {
  if (groupEstimateColumns(groups).length === 0) return [];
  const domain = groups.estimates?.groups[row.dimension]?.[row.group];
  return [...estimatedLookups(groups).map((l) => domain?.answeredPerLookup[l] ?? null), ...groupEstimateValues(groups, row).map(round4), estimateNote(groups, row)];
}

const PART_WORDS: Record<(typeof PARTS)[number], string> = { Estimate: "est.", Low: "low", High: "high" };

/** The workbook's Groups sheet's columns under groupEstimateHeader: answered postcodes, the estimates as shares, the note. */
export function groupEstimateSheetColumns(groups: GroupEstimateSource): SheetColumn[] {
  const columns = groupEstimateColumns(groups);
  if (columns.length === 0) return [];
  const answered = estimatedLookups(groups).map((l): SheetColumn => {
    const heading = `${LOOKUP_SPECS[l].label} answered postcodes`;
    return { heading, note: `the group's postcodes with a ${l} answer: what its ${l} estimates stand on (groups.csv: ${answeredColumn(l)})`, width: fitWidth(heading, 9), style: COUNT };
  });
  const estimates = columns.map(({ figure, part, column }) => {
    const heading = `${figure.heading} % ${PART_WORDS[part]}`;
    const what = part === "Estimate" ? "estimated share of all the group's addresses" : `the ${part.toLowerCase()} end of its 95% interval`;
    return { heading, note: `${what}, from its answered postcodes (groups.csv: ${column})`, width: fitWidth(heading, 9), style: SHARE };
  });
  return [...answered, ...estimates, { heading: "Estimate note", note: `why a group has no estimate (groups.csv: ${NOTE_COLUMN})`, width: 40, style: TEXT }];
}
