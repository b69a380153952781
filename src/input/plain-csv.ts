// Ofcom's postcode files are plain CSV: no quotes, one line ending throughout. A whole-UK release is
// 1.7 million rows, and csv-parse (which works byte by byte on Buffers) spent most of an import
// on them; a block with nothing for a quote-aware parser to do is split here instead, to exactly the
// records csv-parse gives with OPEN_DATA_CSV_OPTIONS (test/plain-csv.test.ts compares the two on
// generated text). Anything else — a quote, a bare CR, CRLF mixed with LF — goes to csv-parse.
import { parse } from "csv-parse/sync";

/** How an open data block is read by csv-parse: what the plain split must reproduce. */
export const OPEN_DATA_CSV_OPTIONS = { relax_column_count: true, skip_empty_lines: true, trim: true } as const;

/** The block's records, split plainly when it can be, else by csv-parse (which may throw). */
export function parseOpenDataBlock(block: string): string[][] {
  return splitPlainCsv(block) ?? (parse(block, OPEN_DATA_CSV_OPTIONS) as string[][]);
}

/**
 * The block's records when it holds no quote and one kind of line ending (LF, or CRLF with no
 * bare CR or LF); null when it needs the full parser.
 */
export function splitPlainCsv(block: string): string[][] | null {
  if (block.includes('"')) return null;
  if (!oneLineEnding(block)) return null;
  const records: string[][] = [];
  for (let start = 0; start < block.length; ) {
    let nl = block.indexOf("\n", start);
    if (nl < 0) nl = block.length;
    const stop = nl > start && block.charCodeAt(nl - 1) === CR ? nl - 1 : nl;
    // csv-parse's skip_empty_lines: a line of nothing but what it trims on the left is no record
    const line = block.slice(start, stop);
    if (line.length > 0 && !BLANK.test(line)) {
      const cells = line.split(",");
      for (let i = 0; i < cells.length; i++) cells[i] = trimField(cells[i]!);
      records.push(cells);
    }
    start = nl + 1;
  }
  return records;
}

const CR = 13;
const LF = 10;
/** csv-parse's left trim: only these (its `timchars`); its right trim is String.trimEnd. */
const LEFT_TRIM = /^[\r\n\f \t]+/;
const BLANK = /^[\f \t]*$/;

/** Every CR starts a CRLF, and then every LF ends one: csv-parse takes the first ending it meets as the only one. */
function oneLineEnding(block: string): boolean {
  let crs = 0;
  for (let at = block.indexOf("\r"); at >= 0; at = block.indexOf("\r", at + 1)) {
    if (block.charCodeAt(at + 1) !== LF) return false;
    crs++;
  }
  if (crs === 0) return true;
  let lfs = 0;
  for (let at = block.indexOf("\n"); at >= 0; at = block.indexOf("\n", at + 1)) lfs++;
  return lfs === crs;
}

function trimField(cell: string): string {
  const n = cell.length;
  if (n === 0) return cell;
  // most cells are figures like 100.0: nothing to trim at either end
  const first = cell.charCodeAt(0);
  const last = cell.charCodeAt(n - 1);
  if (first > 32 && last > 32 && last < 128) return cell;
  return cell.trimEnd().replace(LEFT_TRIM, "");
}
