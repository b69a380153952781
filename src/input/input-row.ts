// What reading an input file gives: its header and its rows (a leaf: read-input.ts makes them,
// no-postcodes.ts watches them).
import type { NormalisedPostcode } from "../contract/postcode.js";

export interface InputHeader {
  /** the header's names, without quotes and spaces around them (for a headerless one-column file: ["postcode"]) */
  columns: string[];
  postcodeColumn: string;
  postcodeIndex: number;
  /** false for a one-column file whose first line is already a postcode */
  hasHeader: boolean;
  delimiter: string;
}

export interface InputRow {
  /** 1-based line where the row starts in the file */
  line: number;
  /** the postcode cell as written ("" when the row has no such cell) */
  value: string;
  postcode: NormalisedPostcode;
  /** every cell of the row, as read */
  cells: string[];
}
