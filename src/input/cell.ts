// A cell's text as its writer meant it. csv-parse opens a quoted field only right after a
// delimiter, so `a, "SW1A 1AA"` (a space before the quote) or `"SW1A 1AA" ,b` keep their quotes.

/** The text inside quotes that csv-parse left on a cell because of spaces around them. */
export function unwrapQuotes(cell: string): string {
  const m = /^\s*"(.*)"\s*$/s.exec(cell);
  return m ? m[1]!.replace(/""/g, '"') : cell;
}
