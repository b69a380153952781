// Rows with more cells than the header whose postcode still reads: a cell holding an unquoted
// delimiter ("Smith, John") shifts the cells after it, which enriched.csv and --group-by then read
// as they are. The run goes on; one warning names the first such line and how many there are.
// Empty cells past the header's (a spreadsheet's trailing commas) shift nothing and are not counted.
import type { InputHeader, InputRow } from "./input-row.js";

export class LongRows {
  private count = 0;
  private first: { line: number; cells: number } | null = null;

  constructor(private readonly header: Pick<InputHeader, "columns" | "hasHeader" | "delimiter">) {}

  add(row: Pick<InputRow, "line" | "cells" | "postcode">): void {
    const width = this.header.columns.length;
    // a rejected row already says why, a shifted postcode among the reasons
    if (!this.header.hasHeader || !row.postcode.ok || row.cells.length <= width) return;
    if (row.cells.slice(width).every((c) => c.trim() === "")) return;
    this.count++;
    this.first ??= { line: row.line, cells: row.cells.length };
  }

  /** The warning, or null when no row was longer than the header. */
  warning(source: string): string | null {
    if (this.first === null) return null;
    const more = this.count - 1;
    const others = more > 0 ? ` (and ${more.toLocaleString("en-GB")} more ${more === 1 ? "row" : "rows"})` : "";
    return (
      `${source}: line ${this.first.line} has ${this.first.cells} cells but the header ${this.header.columns.length}${others}: ` +
      `a cell holding an unquoted "${this.header.delimiter}" shifts the cells after it, and the other columns are read as they are; quote such cells`
    );
  }
}
