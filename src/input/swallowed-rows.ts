// A quote opened by mistake (`"6"" pipe`, a stray `"`) and closed rows later makes every line in
// between part of one cell: those rows would never be looked up and appear in no reject list.
// A line break inside a quoted cell is normal (Alt+Enter in an address), so a multi-line cell is
// refused only when a line of it looks like a row of the file: the header's cell count and a
// valid postcode in the postcode column.
import { parse } from "csv-parse/sync";
import { unwrapQuotes } from "./cell.js";
import { normalisePostcode } from "../contract/postcode.js";

/** The cells of the file's rows: how many, which holds the postcode, what separates them. */
export interface RowShape {
  cellCount: number;
  postcodeIndex: number;
  delimiter: string;
}

/** A quoted cell that swallowed rows: where it opened and closed, and the first line that looks like a row. */
export interface SwallowedRows {
  openedAt: number;
  closedAt: number;
  rowLine: number;
  rowText: string;
}

const BREAK = /\r\n|\r|\n/;

/** The first multi-line cell of the record (starting on `line`) that holds lines looking like rows; null when none does. */
export function swallowedRows(cells: readonly string[], line: number, shape: RowShape): SwallowedRows | null {
  let at = line;
  for (const cell of cells) {
    const lines = cell.split(BREAK);
    // lines[0] continues the row that opened the quote; every later one began a line of the file.
    for (let i = 1; i < lines.length; i++)
      if (looksLikeRow(lines[i]!, shape)) return { openedAt: at, closedAt: at + lines.length - 1, rowLine: at + i, rowText: lines[i]! };
    at += lines.length - 1;
  }
  return null;
}

export function describeSwallowed(s: SwallowedRows): string {
  const text = s.rowText.length > 60 ? `${s.rowText.slice(0, 60)}…` : s.rowText;
  return (
    `lines ${s.openedAt}-${s.closedAt}: a quoted cell opens on line ${s.openedAt} and closes on line ${s.closedAt}, ` +
    `and the lines it holds look like rows (line ${s.rowLine}: ${JSON.stringify(text)}); ` +
    'a " is missing or extra: a " inside a cell is written "", and the cell itself quoted'
  );
}

function looksLikeRow(text: string, shape: RowShape): boolean {
  // Cheap test first (most multi-line cells are addresses and notes): a row needs at least
  // cellCount - 1 delimiters, and quotes can only hide some of them.
  if (text.split(shape.delimiter).length < shape.cellCount) return false;
  let cells: string[];
  try {
    cells = (parse(text, { delimiter: shape.delimiter, relax_quotes: true, relax_column_count: true }) as string[][])[0] ?? [];
  } catch {
    return false; // a line csv-parse cannot read as a row is not one
  }
  if (cells.length !== shape.cellCount) return false;
  const value = cells[shape.postcodeIndex];
  return value !== undefined && normalisePostcode(unwrapQuotes(value)).ok;
}
