// The styles part (xl/styles.xml): each distinct cell style becomes one cell format (xf), numbered
// as cells refer to it; conditional formats' fills become differential formats (dxf).
import { xmlText } from "./escape.js";

export interface CellStyle {
  /** a number format code: "@" (text), "0.0%", "#,##0", ... */
  numFmt?: string | undefined;
  font?: { name?: string | undefined; size?: number | undefined; bold?: boolean | undefined } | undefined;
  alignment?:
    | { horizontal?: "left" | "center" | "right" | undefined; vertical?: "top" | "center" | "bottom" | undefined; wrapText?: boolean | undefined }
    | undefined;
}

/** The formats every spreadsheet knows by number (ECMA-376 Part 1, 18.8.30); others are declared from 164. */
const BUILT_IN_FORMATS: Record<string, number> = { General: 0, "0": 1, "0.00": 2, "#,##0": 3, "#,##0.00": 4, "0%": 9, "0.00%": 10, "@": 49 };
const FIRST_CUSTOM_FORMAT = 164;

/** The workbook's default font: the one a font without a name and size stands for. */
const DEFAULT_FONT = { name: "Calibri", size: 11 };

export class StyleBook {
  private readonly formats = new Map<string, number>();
  private readonly fonts = new Map<string, number>([[fontXml({}), 0]]);
  private readonly xfs = new Map<string, number>([['<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>', 0]]);
  private readonly ids = new Map<string, number>();
  private readonly dxfs = new Map<string, number>();

  /** The cell format's number for `style` (0, the default, for none). */
  id(style: CellStyle | undefined): number {
    if (!style) return 0;
    const key = JSON.stringify([style.numFmt, style.font?.name, style.font?.size, style.font?.bold, style.alignment?.horizontal, style.alignment?.vertical, style.alignment?.wrapText]);
    let id = this.ids.get(key);
    if (id === undefined) {
      id = numbered(this.xfs, this.xfXml(style));
      this.ids.set(key, id);
    }
    return id;
  }

  /** The differential format's number for a solid fill of `argb` (conditional formatting). */
  fill(argb: string): number {
    return numbered(this.dxfs, `<dxf><fill><patternFill patternType="solid"><bgColor rgb="${xmlText(argb)}"/></patternFill></fill></dxf>`);
  }

  xml(): string {
    const list = (tag: string, items: Map<string, number>) => `<${tag} count="${items.size}">${[...items.keys()].join("")}</${tag}>`;
    const formats = [...this.formats].map(([code, id]) => `<numFmt numFmtId="${id}" formatCode="${xmlText(code)}"/>`).join("");
    return (
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` +
      (this.formats.size > 0 ? `<numFmts count="${this.formats.size}">${formats}</numFmts>` : "") +
      list("fonts", this.fonts) +
      `<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>` +
      `<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>` +
      `<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>` +
      list("cellXfs", this.xfs) +
      `<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>` +
      list("dxfs", this.dxfs) +
      `</styleSheet>`
    );
  }

  private xfXml(style: CellStyle): string {
    const format = style.numFmt === undefined ? 0 : this.format(style.numFmt);
    const font = style.font ? numbered(this.fonts, fontXml(style.font)) : 0;
    const a = style.alignment;
    const alignment = a
      ? `<alignment${a.horizontal ? ` horizontal="${a.horizontal}"` : ""}${a.vertical ? ` vertical="${a.vertical}"` : ""}${a.wrapText ? ' wrapText="1"' : ""}/>`
      : "";
    return (
      `<xf numFmtId="${format}" fontId="${font}" fillId="0" borderId="0" xfId="0"` +
      `${format ? ' applyNumberFormat="1"' : ""}${font ? ' applyFont="1"' : ""}${a ? ' applyAlignment="1"' : ""}` +
      (alignment ? `>${alignment}</xf>` : "/>")
    );
  }

  private format(code: string): number {
    const builtIn = BUILT_IN_FORMATS[code];
    if (builtIn !== undefined) return builtIn;
    let id = this.formats.get(code);
    if (id === undefined) this.formats.set(code, (id = FIRST_CUSTOM_FORMAT + this.formats.size));
    return id;
  }
}

function fontXml(font: NonNullable<CellStyle["font"]>): string {
  return `<font>${font.bold ? "<b/>" : ""}<sz val="${font.size ?? DEFAULT_FONT.size}"/><name val="${xmlText(font.name ?? DEFAULT_FONT.name)}"/><family val="2"/></font>`;
}

/** The number of `xml` in `items`, added at the end when new. */
function numbered(items: Map<string, number>, xml: string): number {
  let id = items.get(xml);
  if (id === undefined) items.set(xml, (id = items.size));
  return id;
}
