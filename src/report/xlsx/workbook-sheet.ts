// One sheet of the streamed workbook, the way every sheet is laid out: a bold header row that is
// frozen and carries the autofilter, readable headings with the CSV/API name in the cell's note,
// widths that fit, a style per column (text for the user's cells, number formats for speeds and
// shares). Rows go to the xlsx writer (src/report/xlsx) as they come, and whenever a chunk of XML
// has gathered the writer waits until the zip and the file have taken it: memory stays flat at any
// row count. Each sheet prints the same way: fit to one page wide, landscape when its columns are
// wide, the header row repeated on every page.
import { columnLetter } from "./column-letter.js";
import { batches, type RowSource } from "./row-source.js";
import type { CellStyle } from "./styles.js";
import type { PageSetup } from "./sheet-parts.js";
import type { RowOptions, SheetWriter, XlsxWriter } from "./workbook-writer.js";

export interface SheetColumn {
  heading: string;
  /** the column's CSV/API name, or a longer description: the header cell's note */
  note?: string | undefined;
  width: number;
  style?: CellStyle | undefined;
}

/** Text as text: what the user typed stays text (leading zeros, long digit strings) when edited. */
export const TEXT: CellStyle = { numFmt: "@" };
export const SHARE: CellStyle = { numFmt: "0.0%" };
export const COUNT: CellStyle = { numFmt: "#,##0" };
/** Speeds: -1 is the API's "no prediction"; the value stays -1, the cell says what it means. */
/** WGS84 degrees to the directory's 6 decimals (about 0.1 m) */
export const COORDINATE: CellStyle = { numFmt: "0.000000" };
export const SPEED: CellStyle = { numFmt: '0.0;"-1 (none)"' };

// the name and size of the default font: a bold font without them falls back to a serif in LibreOffice
const HEADER_FONT = { name: "Calibri", size: 11, bold: true };
const HEADER: CellStyle = { numFmt: "@", font: HEADER_FONT, alignment: { vertical: "top", wrapText: true } };
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

/** Column widths (in characters) that fit a portrait A4 page at a readable size; wider prints landscape. */
const PORTRAIT_WIDTH = 100;
/**
 * What a landscape A4 page holds at a readable size (11-point text shrunk to about 8 points). A
 * sheet wider than that is split across as many pages wide as it needs at that size, its key
 * columns repeated on each: shrunk to one page wide, the Groups and Your rows sheets printed at an
 * unreadable size (3 to 4 points).
 */
const LANDSCAPE_WIDTH = 190;

export interface SheetPrint {
  /** print only the header and this many rows (a sheet too long to be worth printing whole) */
  rows?: number | undefined;
  /** the page footer's text (left), e.g. what the printed rows leave out */
  footer?: string | undefined;
  /** leading columns that name a row (repeated on every page when the sheet is too wide for one); default 1 */
  keyColumns?: number | undefined;
}

/**
 * Page set-up: A4, header row on every page, as many pages tall as needed; fit to one page wide,
 * or, for a sheet too wide to read that way, to as many pages wide as keep it readable, its key
 * columns on every page.
 */
export function pageSetup(
  columns: readonly SheetColumn[],
  print: SheetPrint = {},
): PageSetup & { titleRows: string; titleColumns?: string | undefined; area?: string | undefined } {
  const width = columns.reduce((sum, c) => sum + c.width, 0);
  const wide = width > LANDSCAPE_WIDTH;
  const keys = Math.min(Math.max(1, print.keyColumns ?? 1), columns.length);
  return {
    paperSize: 9, // A4
    orientation: width > PORTRAIT_WIDTH ? "landscape" : "portrait",
    fitToWidth: wide ? Math.ceil(width / LANDSCAPE_WIDTH) : 1,
    fitToHeight: 0,
    ...(wide ? { pageOrder: "overThenDown" as const, titleColumns: `A:${columnLetter(Math.max(1, keys))}` } : {}),
    titleRows: "1:1",
    margins: { left: 0.4, right: 0.4, top: 0.5, bottom: 0.6, header: 0.2, footer: 0.25 },
    footer: footerCodes(print.footer),
    area: print.rows === undefined ? undefined : `A1:${columnLetter(Math.max(1, columns.length))}${print.rows + 1}`,
  };
}

/** Footer text as Excel's header/footer codes want it: `&` doubled, page numbers on the right. */
function footerCodes(text: string | undefined): string {
  return `${text ? `&L${text.replace(/&/g, "&&")}` : ""}&RPage &P of &N`;
}

/** What a row's decoration may change: its height, merged cells, single cells' styles (1-based columns). */
export interface RowLayout {
  readonly number: number;
  height?: number | undefined;
  merge(fromColumn: number, toColumn: number): void;
  style(column: number, style: CellStyle): void;
}

export interface SheetSpec {
  name: string;
  columns: readonly SheetColumn[];
  /** rows, async rows or async batches of rows (src/report/xlsx/row-source.ts) */
  rows: RowSource;
  /** lays out a row before it is written (merged, wrapped cells) */
  decorate?: ((row: RowLayout, values: readonly unknown[]) => void) | undefined;
  /** after the last row, before the sheet ends (conditional formats) */
  finish?: ((sheet: SheetWriter, rowCount: number) => void) | undefined;
  print?: SheetPrint | undefined;
}

/** Writes one sheet into `workbook`; resolves with its row count (the header not counted). */
export async function writeSheet(workbook: XlsxWriter, spec: SheetSpec): Promise<number> {
  const { name, columns, rows, decorate, finish, print } = spec;
  const width = Math.max(1, columns.length);
  const sheet = workbook.addSheet({
    name,
    columns,
    frozenRows: 1,
    autoFilter: `A1:${columnLetter(width)}1`,
    page: pageSetup(columns, print),
  });
  const headerLines = Math.max(1, ...columns.map((c) => Math.ceil(c.heading.length / lineChars(c.width))));
  sheet.addRow(
    columns.map((c) => c.heading),
    { height: headerLines > 1 ? headerLines * LINE_POINTS : undefined, styles: new Map(columns.map((_, i) => [i, HEADER])) },
  );
  columns.forEach((c, i) => c.note && sheet.note(1, i + 1, c.note));
  let count = 0;
  for await (const batch of batches(rows)) {
    for (const values of batch) {
      sheet.addRow(values, decorate && layOut(sheet, count + 2, values, decorate));
      count++;
      if (sheet.full) await sheet.flush();
    }
  }
  finish?.(sheet, count);
  await workbook.endSheet();
  return count;
}

/** The options `decorate` gives row `number`; its merges go to the sheet. */
function layOut(sheet: SheetWriter, number: number, values: readonly unknown[], decorate: NonNullable<SheetSpec["decorate"]>): RowOptions {
  const styles = new Map<number, CellStyle>();
  const layout: RowLayout = {
    number,
    merge: (from, to) => sheet.merge(`${sheet.letter(from)}${number}:${sheet.letter(to)}${number}`),
    style: (column, style) => styles.set(column - 1, style),
  };
  decorate(layout, values);
  return { height: layout.height, styles };
}
