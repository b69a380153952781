// The workbook's Groups sheet's estimate columns: the columns groups.csv gives each group's
// estimates (estimates/group-estimates.ts), laid out as sheet columns with their notes.
import { LOOKUP_SPECS } from "../../contract/lookups.js";
import { answeredColumn, estimatedLookups, ESTIMATE_PARTS, groupEstimateColumns, NOTE_COLUMN, type GroupEstimateSource } from "../estimates/group-estimates.js";
import { COUNT, fitWidth, SHARE, TEXT, type SheetColumn } from "./workbook-sheet.js";

const PART_WORDS: Record<(typeof ESTIMATE_PARTS)[number], string> = { Estimate: "est.", Low: "low", High: "high" };

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
