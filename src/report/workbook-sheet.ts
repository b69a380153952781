// One sheet of the streamed workbook, the way every sheet is laid out: a bold header row that is
// frozen and carries the autofilter, readable headings with the CSV/API name in the cell's note,
// widths that fit, a style per column (text for the user's cells, number formats for speeds and
// shares). Rows are committed as they come, and every few hundred rows the writer waits until the
// zip has taken them: memory stays flat at any row count. Each sheet prints the same way: fit to one
// page wide, landscape when its columns are wide, the header row repeated on every page.
import type { PageSetup, PaperSize, Row, Style, Worksheet, stream } from "exceljs";
import type { Writable } from "node:stream";
import { inBatches, type Rows } from "./row-batches.js";

export interface SheetColumn {
  heading: string;
  /** the column's CSV/API name, or a longer description: the header cell's note */
  note?: string | undefined;
  width: number;
  style?: Partial<Style> | undefined;
}

/** Text as text: what the user typed stays text (leading zeros, long digit strings) when edited. */
export const TEXT: Partial<Style> = { numFmt: "@" };
export const SHARE: Partial<Style> = { numFmt: "0.0%" };
export const COUNT: Partial<Style> = { numFmt: "#,##0" };
/** Speeds: -1 is the API's "no prediction"; the value stays -1, the cell says what it means. */
/** WGS84 degrees to the directory's 6 decimals (about 0.1 m) */
export const COORDINATE: Partial<Style> = { numFmt: "0.000000" };
export const SPEED: Partial<Style> = { numFmt: '0.0;"-1 (none)"' };

// the name and size of the default font: a bold font without them falls back to a serif in LibreOffice
const HEADER_FONT = { name: "Calibri", size: 11, bold: true };
const ROWS_PER_YIELD = 500;
export const MAX_WIDTH = 60;

/** Characters a wrapped line of `width` surely holds: measured, DejaVu Sans (wider than Calibri) fits about 1.15 a unit. */
export const lineChars = (width: number): number => Math.max(1, Math.floor(width));
/** Points per line of 11-point text: the height of a row whose cells wrap to n lines is n times this. */
export const LINE_POINTS = 15;

/**
 * A width that fits values of `longest` characters and the heading's longest word: headings wrap
 * (the header row is as tall as they need), so that a sheet of many columns still prints legibly.
 */
export function fitWidth(heading: string, longest: number): number {
  const word = Math.max(0, ...heading.split(/\s+/).map((w) => w.length));
  return Math.min(MAX_WIDTH, Math.max(8, word + 2, longest + 2));
}

/** The sheet's XML stream inside exceljs, and the zip entries (archiver's streams) it pipes into. */
interface SheetStream {
  stream?: { pipes?: { _writableState?: { length?: number; needDrain?: boolean }; once(event: "drain", f: () => void): unknown; removeListener(event: "drain", f: () => void): unknown }[] };
}

/**
 * XML waiting for the zip beyond which the writer waits. Waiting at every 16 KiB (the stream's own
 * mark) made the writer and the compressor take turns in small steps: 4 times slower.
 */
const MAX_PENDING_BYTES = 4 * 1024 * 1024;

/**
 * Waits until the zip has taken the rows written so far and the file has room. exceljs's sheet
 * stream writes into archiver's entry stream without heeding its backpressure, so unchecked the
 * sheet's whole XML piles up in memory while the zip compresses (measured: 130 MB per 50,000
 * mobile rows). archiver's streams are readable-stream 2, which has no writableNeedDrain or
 * writableLength: its _writableState says the same.
 */
async function drain(sheet: Worksheet, out: Writable): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  for (const entry of (sheet as unknown as SheetStream).stream?.pipes ?? [])
    if (entry._writableState?.needDrain && (entry._writableState.length ?? 0) > MAX_PENDING_BYTES) await drainOrClose(entry, out);
  if (out.writableNeedDrain && !out.destroyed) await drainOrClose(out, out);
  // A failed file (a full disk) destroys `out`: the sheet's loop throws, which closes its SQLite
  // iterator (left open, it would keep the connection busy and mask the cause).
  if (out.destroyed) throw out.errored ?? new Error("the workbook's output was closed");
}

/** Waits for `stream`'s drain, or for `out` to close (a failure): a drain never comes after one. */
function drainOrClose(stream: { once(event: "drain", f: () => void): unknown; removeListener(event: "drain", f: () => void): unknown }, out: Writable): Promise<void> {
  if (out.destroyed) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      stream.removeListener("drain", done);
      out.removeListener("close", done);
      resolve();
    };
    stream.once("drain", done);
    out.once("close", done);
  });
}

/** Column widths (in characters) that fit a portrait A4 page at a readable size; wider prints landscape. */
const PORTRAIT_WIDTH = 100;

export interface SheetPrint {
  /** print only the header and this many rows (a sheet too long to be worth printing whole) */
  rows?: number | undefined;
  /** the page footer's text (left), e.g. what the printed rows leave out */
  footer?: string | undefined;
}

/** Page set-up: A4, fit to one page wide and as many tall as needed, header row on every page. */
function pageSetup(columns: readonly SheetColumn[], print: SheetPrint = {}): Partial<PageSetup> {
  const width = columns.reduce((sum, c) => sum + c.width, 0);
  return {
    paperSize: 9 as PaperSize, // A4
    orientation: width > PORTRAIT_WIDTH ? "landscape" : "portrait",
    fitToPage: true,
    fitToWidth: 1,
    fitToHeight: 0,
    printTitlesRow: "1:1",
    margins: { left: 0.4, right: 0.4, top: 0.5, bottom: 0.6, header: 0.2, footer: 0.25 },
    // exceljs puts a $ before each end: "A$1:L$51" is written as the absolute $A$1:$L$51 that LibreOffice honours
    ...(print.rows === undefined ? {} : { printArea: `A$1:${columnLetter(Math.max(1, columns.length))}$${print.rows + 1}` }),
  };
}

/** "A", ..., "Z", "AA", ...: a column's letters from its 1-based number. */
export function columnLetter(n: number): string {
  let s = "";
  for (let i = n; i > 0; i = Math.floor((i - 1) / 26)) s = String.fromCharCode(65 + ((i - 1) % 26)) + s;
  return s;
}

/** Footer text as Excel's header/footer codes want it: `&` doubled, page numbers on the right. */
function footerCodes(text: string | undefined): string {
  return `${text ? `&L${text.replace(/&/g, "&&")}` : ""}&RPage &P of &N`;
}

export interface SheetSpec {
  name: string;
  columns: readonly SheetColumn[];
  rows: Rows<readonly unknown[]>;
  /** styles a row before it is committed (merged, wrapped cells) */
  decorate?: ((sheet: Worksheet, row: Row, values: readonly unknown[]) => void) | undefined;
  /** after the last row, before the sheet is committed */
  finish?: ((sheet: Worksheet, rowCount: number) => void) | undefined;
  print?: SheetPrint | undefined;
}

export async function writeSheet(workbook: stream.xlsx.WorkbookWriter, out: Writable, spec: SheetSpec): Promise<number> {
  const { name, columns, rows, decorate, finish, print } = spec;
  const sheet = workbook.addWorksheet(name, {
    views: [{ state: "frozen", ySplit: 1 }],
    pageSetup: pageSetup(columns, print),
    headerFooter: { oddFooter: footerCodes(print?.footer) },
  });
  sheet.columns = columns.map((c) => ({ width: c.width, ...(c.style ? { style: c.style } : {}) }));
  sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: Math.max(1, columns.length) } };
  const header = sheet.getRow(1);
  columns.forEach((c, i) => {
    const cell = header.getCell(i + 1);
    cell.value = c.heading;
    cell.font = HEADER_FONT;
    cell.numFmt = "@";
    cell.alignment = { vertical: "top", wrapText: true };
    if (c.note) cell.note = c.note;
  });
  const headerLines = Math.max(1, ...columns.map((c) => Math.ceil(c.heading.length / lineChars(c.width))));
  if (headerLines > 1) header.height = headerLines * LINE_POINTS;
  header.commit();
  let count = 0;
  for await (const batch of inBatches(rows))
    for (const values of batch) {
      const row = sheet.addRow(values as unknown[]);
      decorate?.(sheet, row, values);
      row.commit();
      if (++count % ROWS_PER_YIELD === 0) await drain(sheet, out);
    }
  finish?.(sheet, count);
  sheet.commit();
  return count;
}
