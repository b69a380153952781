// The groups' figures as types, and the postcode parts a group may be, apart from the code that
// computes them (groups.ts): a leaf that imports no room.
import type { Lookup } from "../../contract/fields.js";
import type { MobileScale } from "../../contract/mobile-scales.js";

/** Dimensions taken from the postcode itself: area CF, district CF10 (the outward code: SW1A for SW1A 2AA), sector CF10 1. */
export const POSTCODE_DIMENSIONS = ["area", "district", "sector"] as const;
export type PostcodeDimension = (typeof POSTCODE_DIMENSIONS)[number];

export interface Dimension {
  /** the name as the header (or the postcode part) spells it */
  name: string;
  source: "postcode" | "input" | "area-file";
  /** the column's position in the input row or in the stored area cells; -1 for postcode parts */
  index: number;
}

/** One row of groups.csv and of the workbook's Groups sheet. */
export interface GroupRow {
  /** the dimension's name, e.g. `region`, `district` */
  dimension: string;
  /** the value, or (blank), (unmatched), (invalid postcode) */
  group: string;
  /** input rows that name the group (0 for a report of all stored postcodes) */
  inputRows: number;
  /** distinct valid postcodes in the group */
  postcodes: number;
  /** distinct addresses of those postcodes in either lookup; null when none of them has an answer */
  addresses: number | null;
  /** addresses of each lookup: the denominators of the shares; null when the run did not ask for the lookup, or no postcode of the group has its answer */
  broadbandAddresses: number | null;
  mobileAddresses: number | null;
  /** the counts of groupFigures(), by their `column`; null when the lookup was not requested or no postcode of the group has its answer */
  counts: Record<string, number | null>;
  /** mobile addresses whose answer's release is on each scale; only when the figures combine both scales or --mobile-scale forces one */
  scaleAddresses?: Record<MobileScale, number> | undefined;
}

/** A count of the Groups figures: its CSV column, a short heading, a plain-English label and its lookup. */
export interface GroupFigure {
  column: string;
  heading: string;
  label: string;
  lookup: Lookup;
}
