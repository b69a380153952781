// A file in which no row holds a valid postcode was read from the wrong column (or is not a
// postcode list at all): it is refused, naming the column and a sample of what that column held.
import type { InputHeader, InputRow } from "./input-row.js";

/** How many distinct values the refusal quotes, and how long each may be. */
const SAMPLE_VALUES = 3;
const SAMPLE_CHARS = 40;

/** Watches the rows go by; keeps only their count, line range and a few sample values. */
export class NoPostcodeSeen {
  private rows = 0;
  private valid = 0;
  private firstLine = 0;
  private lastLine = 0;
  private readonly sample: string[] = [];
  /** a value beyond the sample was seen */
  private more = false;

  add(row: InputRow): void {
    this.rows++;
    if (this.firstLine === 0) this.firstLine = row.line;
    this.lastLine = row.line;
    if (row.postcode.ok) {
      this.valid++;
      return;
    }
    const value = row.value.trim();
    if (value === "" || this.sample.includes(value)) return;
    if (this.sample.length < SAMPLE_VALUES) this.sample.push(value);
    else this.more = true;
  }

  /** The refusal (without the file name) when rows were read and none held a valid postcode; null otherwise. */
  refusal(header: Pick<InputHeader, "postcodeColumn" | "postcodeIndex" | "hasHeader">): string | null {
    if (this.rows === 0 || this.valid > 0) return null;
    const lines = this.firstLine === this.lastLine ? `line ${this.firstLine}` : `lines ${this.firstLine}-${this.lastLine}`;
    const column = header.hasHeader ? `column ${JSON.stringify(header.postcodeColumn)} (column ${header.postcodeIndex + 1})` : "the file's only column";
    const held =
      this.sample.length === 0
        ? "it is empty in every row"
        : `it holds ${this.sample.map((v) => JSON.stringify(v.length > SAMPLE_CHARS ? `${v.slice(0, SAMPLE_CHARS)}…` : v)).join(", ")}${this.more ? ", …" : ""}`;
    const fix = header.hasHeader ? "; name the postcode column with --column NAME" : "";
    return `${lines}: none of the ${this.rows} row(s) has a valid UK postcode in ${column}; ${held}${fix}`;
  }
}
