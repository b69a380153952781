// A streaming xlsx writer (SpreadsheetML, ECMA-376 transitional): sheets are written one after
// another, their rows deflated into the zip as they come and never held; what must follow the rows
// (merged cells, conditional formats, notes, styles, the workbook part) is small and written last.
import type { Writable } from "node:stream";
import { EXCEL_MAX_ROWS } from "../../figures/definitions.js";
import { columnLetter } from "./column-letter.js";
import { commentsXml, vmlDrawing, type CellNote } from "./comments.js";
import { MAX_COLUMNS, MAX_SHEET_NAME } from "./limits.js";
import { contentTypes, rootRelationships, sheetRelationships, workbookRelationships, workbookXml, type SheetEntry } from "./package-parts.js";
import { rowXml } from "./cells.js";
import { sheetHead, sheetTail, type ConditionalFill, type PageSetup } from "./sheet-parts.js";
import { StyleBook, type CellStyle } from "./styles.js";
import { ZipStream, type ZipEntry } from "./zip-stream.js";

export interface SheetOptions {
  name: string;
  columns: readonly { width: number; style?: CellStyle | undefined }[];
  /** rows kept in view at the top (the header) */
  frozenRows?: number | undefined;
  /** the filter's range, e.g. A1:L1 */
  autoFilter?: string | undefined;
  /** titleColumns: columns repeated on every page, e.g. A:B (with titleRows, one Print_Titles name) */
  page?: (PageSetup & { titleRows?: string | undefined; titleColumns?: string | undefined; area?: string | undefined }) | undefined;
}

export interface RowOptions {
  /** points */
  height?: number | undefined;
  /** styles of single cells (by 0-based column), over the column's style */
  styles?: ReadonlyMap<number, CellStyle> | undefined;
}

/** XML characters a sheet gathers before handing them to the zip. */
const CHUNK_CHARS = 64 * 1024;

/** A1-style absolute reference: $A$1:$L$51 from A1:L51, $1:$1 from 1:1. */
const absolute = (range: string) => range.replace(/([A-Z]*)(\d+)/g, (_, col: string, row: string) => `${col ? `$${col}` : ""}$${row}`);

/** Whole columns, absolute: $A:$B from A:B. */
const absoluteColumns = (range: string) => range.replace(/([A-Z]+)/g, "$$$1");

export class SheetWriter {
  private rows = 0;
  private xml: string;
  private readonly letters: string[];
  private readonly styles: number[];
  private readonly merges: string[] = [];
  private readonly fills: ConditionalFill[] = [];
  private readonly notes: CellNote[] = [];

  constructor(
    private readonly book: StyleBook,
    private readonly entry: ZipEntry,
    readonly options: SheetOptions,
    selected: boolean,
  ) {
    this.letters = options.columns.map((_, i) => columnLetter(i + 1));
    this.styles = options.columns.map((c) => book.id(c.style));
    this.xml = sheetHead({ selected, frozenRows: options.frozenRows ?? 0, widths: options.columns.map((c) => c.width), styles: this.styles, fitToPage: options.page !== undefined && options.page.fitToWidth > 0 });
  }

  /** Rows written so far. */
  get rowCount(): number {
    return this.rows;
  }

  /** The letters of a 1-based column. */
  letter(column: number): string {
    return this.letters[column - 1] ?? columnLetter(column);
  }

  /**
   * Adds a row (a row's cell too long is refused before anything of it is written). The XML
   * gathers until `full`; then `flush()` must be awaited.
   */
  addRow(values: readonly unknown[], options?: RowOptions): void {
    if (this.rows >= EXCEL_MAX_ROWS) throw new Error(`sheet ${this.options.name}: more than ${EXCEL_MAX_ROWS.toLocaleString("en-GB")} rows, a worksheet's most`);
    if (values.length > this.letters.length) for (let c = this.letters.length + 1; c <= Math.min(values.length, MAX_COLUMNS); c++) this.letters.push(columnLetter(c));
    if (values.length > MAX_COLUMNS) throw new Error(`sheet ${this.options.name} row ${this.rows + 1}: ${values.length} cells, a worksheet's most is ${MAX_COLUMNS}`);
    let styles: readonly number[] = this.styles;
    if (options?.styles) {
      const own = [...this.styles];
      for (const [c, style] of options.styles) own[c] = this.book.id({ ...this.options.columns[c]?.style, ...style });
      styles = own;
    }
    try {
      this.xml += rowXml(this.rows + 1, values, this.letters, styles, options?.height);
    } catch (err) {
      throw new Error(`sheet ${this.options.name} ${(err as Error).message}`);
    }
    this.rows++;
  }

  /** Whether the gathered XML should go to the zip now. */
  get full(): boolean {
    return this.xml.length >= CHUNK_CHARS;
  }

  /** Hands the gathered XML to the zip; resolves when the output has room for more. */
  async flush(): Promise<void> {
    const xml = this.xml;
    this.xml = "";
    if (xml) await this.entry.write(xml);
  }

  /** Merges a range of the rows written, e.g. C5:E5. */
  merge(range: string): void {
    this.merges.push(range);
  }

  /** A note on a cell (1-based row and column). */
  note(row: number, column: number, text: string): void {
    this.notes.push({ row, column, text });
  }

  /** Cells of `ref` equal to a value are filled with its colour (ARGB); the values stay as they are. */
  fillWhenEqual(ref: string, fills: readonly { equals: string; argb: string }[]): void {
    this.fills.push({ ref, rules: fills.map((f) => ({ equals: f.equals, dxf: this.book.fill(f.argb) })) });
  }

  /** Ends the sheet's XML; the notes are written by the workbook after it. */
  async end(): Promise<CellNote[]> {
    const o = this.options;
    await this.entry.end(this.xml + sheetTail({ autoFilter: o.autoFilter, merges: this.merges, fills: this.fills, page: o.page, hasNotes: this.notes.length > 0 }));
    this.xml = "";
    return this.notes;
  }
}

export class XlsxWriter {
  private readonly zip: ZipStream;
  private readonly styles = new StyleBook();
  private readonly sheets: SheetEntry[] = [];
  private current: SheetWriter | null = null;

  constructor(out: Writable, options: { level?: ConstructorParameters<typeof ZipStream>[1] } = {}) {
    this.zip = new ZipStream(out, options.level);
  }

  /** Starts the next sheet; the previous one must have ended (`endSheet`). */
  addSheet(options: SheetOptions): SheetWriter {
    if (this.current) throw new Error(`sheet ${options.name}: sheet ${this.current.options.name} is not ended`);
    const problem = sheetNameProblem(options.name, this.sheets);
    if (problem) throw new Error(problem);
    const number = this.sheets.length + 1;
    this.current = new SheetWriter(this.styles, this.zip.entry(`xl/worksheets/sheet${number}.xml`), options, number === 1);
    return this.current;
  }

  /** Ends the current sheet, then writes its notes. */
  async endSheet(): Promise<void> {
    const sheet = this.current;
    if (!sheet) throw new Error("no sheet to end");
    this.current = null;
    const notes = await sheet.end();
    const o = sheet.options;
    const entry: SheetEntry = { name: o.name, number: this.sheets.length + 1, hasNotes: notes.length > 0, names: [] };
    if (o.autoFilter) entry.names.push({ name: "_xlnm._FilterDatabase", range: absolute(o.autoFilter), hidden: true });
    if (o.page?.area) entry.names.push({ name: "_xlnm.Print_Area", range: absolute(o.page.area) });
    const titles = [o.page?.titleColumns && absoluteColumns(o.page.titleColumns), o.page?.titleRows && absolute(o.page.titleRows)].filter(Boolean);
    if (titles.length > 0) entry.names.push({ name: "_xlnm.Print_Titles", range: titles.join(",") });
    this.sheets.push(entry);
    if (entry.hasNotes) {
      await this.zip.add(`xl/comments${entry.number}.xml`, commentsXml(notes, (n) => `${sheet.letter(n.column)}${n.row}`));
      await this.zip.add(`xl/drawings/vmlDrawing${entry.number}.vml`, vmlDrawing(entry.number, notes));
      await this.zip.add(`xl/worksheets/_rels/sheet${entry.number}.xml.rels`, sheetRelationships(entry));
    }
  }

  /** Writes the workbook's parts and the zip's directory, and ends the output. */
  async finish(): Promise<void> {
    if (this.current) await this.endSheet();
    if (this.sheets.length === 0) throw new Error("a workbook needs at least one sheet");
    await this.zip.add("xl/styles.xml", this.styles.xml());
    await this.zip.add("xl/workbook.xml", workbookXml(this.sheets));
    await this.zip.add("xl/_rels/workbook.xml.rels", workbookRelationships(this.sheets));
    await this.zip.add("_rels/.rels", rootRelationships());
    await this.zip.add("[Content_Types].xml", contentTypes(this.sheets));
    await this.zip.end();
  }
}

/** Why `name` cannot name a sheet (one line), or null: Excel's rules. */
export function sheetNameProblem(name: string, existing: readonly { name: string }[]): string | null {
  if (name.length === 0 || name.length > MAX_SHEET_NAME) return `sheet name "${name}": 1 to ${MAX_SHEET_NAME} characters`;
  if (/[[\]:*?/\\]/.test(name) || name.startsWith("'") || name.endsWith("'")) return `sheet name "${name}": none of []:*?/\\, no ' at either end`;
  if (existing.some((s) => s.name.toLowerCase() === name.toLowerCase())) return `sheet name "${name}": used twice`;
  return null;
}
