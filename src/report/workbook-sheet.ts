// One sheet of the streamed workbook, the way every sheet is laid out: a bold header row that is
// frozen and carries the autofilter, readable headings with the CSV/API name in the cell's note,
// widths that fit, a style per column (text for the user's cells, number formats for speeds and
// shares). Rows are committed as they come, and every few hundred rows the writer waits until the
// zip has taken them: memory stays flat at any row count.
import type { Style, Worksheet, stream } from "exceljs";
import type { Writable } from "node:stream";

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

const HEADER_FONT = { bold: true };
const ROWS_PER_YIELD = 500;
export const MAX_WIDTH = 60;

/** A width that fits a heading and values of `longest` characters. */
export function fitWidth(heading: string, longest: number): number {
  return Math.min(MAX_WIDTH, Math.max(8, heading.length + 2, longest + 2));
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

export async function writeSheet(
  workbook: stream.xlsx.WorkbookWriter,
  out: Writable,
  name: string,
  columns: readonly SheetColumn[],
  rows: Iterable<readonly unknown[]>,
  finish?: (sheet: Worksheet, rowCount: number) => void,
): Promise<number> {
  const sheet = workbook.addWorksheet(name, { views: [{ state: "frozen", ySplit: 1 }] });
  sheet.columns = columns.map((c) => ({ width: c.width, ...(c.style ? { style: c.style } : {}) }));
  sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: Math.max(1, columns.length) } };
  const header = sheet.getRow(1);
  columns.forEach((c, i) => {
    const cell = header.getCell(i + 1);
    cell.value = c.heading;
    cell.font = HEADER_FONT;
    cell.numFmt = "@";
    if (c.note) cell.note = c.note;
  });
  header.commit();
  let count = 0;
  for (const values of rows) {
    sheet.addRow(values as unknown[]).commit();
    if (++count % ROWS_PER_YIELD === 0) await drain(sheet, out);
  }
  finish?.(sheet, count);
  sheet.commit();
  return count;
}
