// CSV → normalised postcodes, streamed: csv-parse reads the rows, the header picks the postcode
// column, and every row comes out with its line number, raw value and normalised postcode.
import type { Readable } from "node:stream";
import { Parser, CsvError } from "csv-parse";
import { normalisePostcode } from "../contract/postcode.js";
import { checkedBytes, InputError, readPrefix, type Prefix } from "./text-guard.js";
import { detectDelimiter, excelSepLine, DELIMITER_NAMES, type Delimiter } from "./delimiter.js";
import { choosePostcodeColumn, describeDuplicate, duplicateNames, headerName } from "./column.js";
import { unwrapQuotes } from "./cell.js";
import { NoPostcodeSeen } from "./no-postcodes.js";
import type { InputHeader, InputRow } from "./input-row.js";
import { describeSwallowed, swallowedRows } from "./swallowed-rows.js";
import { LongRows } from "./long-rows.js";

export { InputError } from "./text-guard.js";

export type { InputHeader, InputRow } from "./input-row.js";

export interface OpenedInput {
  header: InputHeader;
  /** what the header showed; once the rows have ended, also what they did (rows longer than the header) */
  warnings: string[];
  rows: AsyncIterable<InputRow>;
}

export interface InputOptions {
  /** the file name (or "standard input") that messages name */
  source: string;
  /** --column: the header naming the postcode column; auto-detected when absent */
  column?: string | undefined;
}

/**
 * A row longer than this is refused. Excel caps a cell at 32,767 characters, so only a quote that
 * is never closed gets near it; without a cap such a file would be buffered whole.
 */
export const MAX_ROW_BYTES = 1024 * 1024;

interface NumberedRecord {
  line: number;
  cells: string[];
  /** line breaks inside its (quoted) cells */
  breaks: number;
}

/**
 * csv-parse's parser, numbering each record with the line it starts on as it is parsed, so that an
 * error knows its line even when records before it were still buffered. csv-parse's own line count
 * goes wrong around quoted CRLFs, but a record spans exactly the line breaks kept in its cells.
 * (Its on_record hook would do the same, but builds an info object per record: 1.8x the CPU on short rows.)
 */
class NumberingParser extends Parser {
  nextLine = 1;
  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk === null) return super.push(null, encoding);
    const cells = chunk as string[];
    const record: NumberedRecord = { line: this.nextLine, cells, breaks: breaksWithin(cells) };
    this.nextLine += 1 + record.breaks;
    return super.push(record, encoding);
  }
}

/**
 * Reads the header and returns the rows as a lazy stream. Throws InputError for unusable input.
 * Owns `stream` from here: it is destroyed once the rows end, fail or are abandoned.
 */
export async function openInput(stream: Readable, input: InputOptions): Promise<OpenedInput> {
  const { source } = input;
  const prefix = await readPrefix(stream, source).catch((err: unknown) => {
    stream.destroy();
    throw err;
  });
  const { delimiter, sep, warnings } = chooseDelimiter(prefix, source);
  const parsed = parseRecords(stream, prefix, delimiter, source);
  const head = await readHeader(parsed, { prefix, sep, delimiter, input, warnings });
  return { header: head.header, warnings, rows: inputRows(parsed.records, head, delimiter, source, warnings) };
}

/** An Excel "sep=" line's delimiter, else the one the first line shows; a warning unless it is a comma. */
function chooseDelimiter(prefix: Prefix, source: string): { delimiter: Delimiter; sep: Delimiter | null; warnings: string[] } {
  const sep = excelSepLine(prefix.firstLine);
  const delimiter: Delimiter = sep ?? detectDelimiter(prefix.firstLine);
  const warnings: string[] = [];
  if (delimiter !== ",")
    warnings.push(`${source}: read as ${DELIMITER_NAMES[delimiter]}-separated (${sep ? `line ${prefix.firstLineNumber} says "sep=${sep}"` : `detected from line ${prefix.firstLineNumber}`})`);
  return { delimiter, sep, warnings };
}

interface ParsedRecords {
  /** every record of the file, numbered; ending, failing or being returned destroys the streams */
  records: AsyncGenerator<NumberedRecord>;
  parser: NumberingParser;
}

/** The file's bytes (checked as text) through csv-parse, as numbered records. */
function parseRecords(stream: Readable, prefix: Prefix, delimiter: Delimiter, source: string): ParsedRecords {
  const parser = new NumberingParser({
    bom: true,
    delimiter,
    record_delimiter: ["\r\n", "\n", "\r"],
    relax_column_count: true,
    relax_quotes: true,
    max_record_size: MAX_ROW_BYTES,
  });
  const bytes = checkedBytes(prefix, source);
  bytes.on("error", (err) => parser.destroy(err));
  bytes.pipe(parser);

  const records = (async function* (): AsyncGenerator<NumberedRecord> {
    try {
      yield* parser as AsyncIterable<NumberedRecord>;
    } catch (err) {
      throw asInputError(err, source, parser.nextLine);
    } finally {
      bytes.destroy();
      parser.destroy();
      stream.destroy();
    }
  })();
  return { records, parser };
}

interface HeaderRead {
  header: InputHeader;
  /** a headerless file's first line, already a row */
  firstData: NumberedRecord | null;
  headerLine: number;
}

interface HeaderContext {
  prefix: Prefix;
  /** the delimiter an Excel "sep=" line named: that line is not the header */
  sep: Delimiter | null;
  delimiter: Delimiter;
  input: InputOptions;
  /** duplicate header names are added here */
  warnings: string[];
}

/** The first line that is not blank (nor a "sep=" line) as the header, or as the first row of a headerless file. */
async function readHeader({ records, parser }: ParsedRecords, { prefix, sep, delimiter, input, warnings }: HeaderContext): Promise<HeaderRead> {
  const { source } = input;
  try {
    const first = await firstRecord(records, sep ? prefix.firstLineNumber : null);
    if (!first)
      throw new InputError(
        parser.nextLine === 1
          ? `${source}: line 1: the file is empty (no header and no rows)`
          : `${source}: lines 1-${parser.nextLine - 1}: the file holds only blank lines (no header and no rows)`,
      );
    const choice = choosePostcodeColumn(first.cells, input.column, source, first.line);
    const names = first.cells.map(headerName);
    const header: InputHeader = {
      columns: choice.hasHeader ? names : ["postcode"],
      postcodeColumn: choice.hasHeader ? names[choice.index]! : "postcode",
      postcodeIndex: choice.index,
      hasHeader: choice.hasHeader,
      delimiter,
    };
    if (choice.hasHeader) for (const d of duplicateNames(names)) warnings.push(`${source}: line ${first.line}: ${describeDuplicate(d)}`);
    return { header, firstData: choice.hasHeader ? null : first, headerLine: first.line };
  } catch (err) {
    await records.return(undefined);
    throw err;
  }
}

/** The first record that is not blank, skipping the line `sepLine` (an Excel "sep=" line); undefined at the end. */
async function firstRecord(records: AsyncGenerator<NumberedRecord>, sepLine: number | null): Promise<NumberedRecord | undefined> {
  for (;;) {
    const next = await records.next();
    if (next.done) return undefined;
    if (next.value.line === sepLine) continue;
    if (!isBlank(next.value.cells)) return next.value;
  }
}

/** The rows below the header, blank lines skipped; refuses a file with no rows, or no postcode in any row. */
async function* inputRows(records: AsyncGenerator<NumberedRecord>, { header, firstData, headerLine }: HeaderRead, delimiter: Delimiter, source: string, warnings: string[]): AsyncGenerator<InputRow> {
  let count = 0;
  const seen = new NoPostcodeSeen();
  const long = new LongRows(header);
  const shape = { cellCount: header.columns.length, postcodeIndex: header.postcodeIndex, delimiter };
  const next = (r: NumberedRecord): InputRow => {
    if (r.breaks > 0) {
      const swallowed = swallowedRows(r.cells, r.line, shape);
      if (swallowed) throw new InputError(`${source}: ${describeSwallowed(swallowed)}`);
    }
    count++;
    const row = toRow(r, header);
    seen.add(row);
    long.add(row);
    return row;
  };
  if (firstData) yield next(firstData);
  for await (const r of { [Symbol.asyncIterator]: () => records }) {
    if (isBlank(r.cells)) continue;
    yield next(r);
  }
  // An export that came out empty should not look like a successful run over nothing.
  if (count === 0) throw new InputError(`${source}: line ${headerLine}: there are no rows below the header (${header.columns.map((c) => JSON.stringify(c)).join(", ")})`);
  // Nor should the wrong column: every row a reject is a run over nothing.
  const none = seen.refusal(header);
  if (none) throw new InputError(`${source}: ${none}`);
  const shifted = long.warning(source);
  if (shifted) warnings.push(shifted);
}

function toRow(r: NumberedRecord, header: InputHeader): InputRow {
  const raw = r.cells[header.postcodeIndex];
  if (raw === undefined)
    return {
      line: r.line,
      value: "",
      cells: r.cells,
      postcode: {
        ok: false,
        reason: `the row has ${r.cells.length} cell(s) and no ${header.postcodeColumn} cell (column ${header.postcodeIndex + 1})`,
      },
    };
  const postcode = normalisePostcode(unwrapQuotes(raw));
  if (!postcode.ok && header.hasHeader && r.cells.length > header.columns.length) {
    // More cells than the header: an unquoted delimiter earlier in the row may have shifted the postcode.
    const reason = `${postcode.reason}; the row has ${r.cells.length} cells but the header ${header.columns.length}, so a cell may hold an unquoted "${header.delimiter}"`;
    return { line: r.line, value: raw, cells: r.cells, postcode: { ok: false, reason } };
  }
  return { line: r.line, value: raw, cells: r.cells, postcode };
}

/** A blank line, or a row of empty cells (",,,"): spreadsheets write these; they hold nothing to lose. */
function isBlank(cells: readonly string[]): boolean {
  return cells.every((c) => c.trim() === "");
}

/** Line breaks kept inside a record's (quoted) cells. */
function breaksWithin(cells: readonly string[]): number {
  let n = 0;
  for (const c of cells) {
    if (c.indexOf("\n") < 0 && c.indexOf("\r") < 0) continue;
    n += c.match(/\r\n|\r|\n/g)!.length;
  }
  return n;
}

function asInputError(err: unknown, source: string, line: number): Error {
  if (err instanceof InputError) return err;
  if (err instanceof CsvError) {
    // csv-parse reports where it gave up; the record that broke starts at `line`.
    const what =
      err.code === "CSV_QUOTE_NOT_CLOSED"
        ? 'a quoted field starts in this row and is never closed (a " without its closing ")'
        : err.code === "CSV_MAX_RECORD_SIZE"
          ? `the row starting here is longer than ${MAX_ROW_BYTES / 1024 / 1024} MiB; most likely a quoted field is never closed (a " without its closing ")`
          : err.message.replace(/^Invalid (?:Record|Opening Quote|Closing Quote): /, "");
    return new InputError(`${source}: line ${line}: ${what}`);
  }
  return err instanceof Error ? err : new Error(String(err));
}
