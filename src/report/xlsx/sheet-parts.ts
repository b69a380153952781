// The parts of a worksheet's XML around its rows, in the order CT_Worksheet requires
// (ECMA-376 Part 1, 18.3.1.99): sheetPr, sheetViews, sheetFormatPr, cols, sheetData (the rows),
// autoFilter, mergeCells, conditionalFormatting, pageMargins, pageSetup, headerFooter, legacyDrawing.
import { xmlText } from "./escape.js";
import { VML_RELATIONSHIP } from "./package-parts.js";

export interface PageSetup {
  orientation: "portrait" | "landscape";
  /** 9: A4 (ECMA-376 Part 1, 18.3.1.63) */
  paperSize: number;
  /** pages wide and tall to fit the sheet on; 0: as many as needed */
  fitToWidth: number;
  fitToHeight: number;
  /** overThenDown: a sheet split across pages prints all its columns for a band of rows, then the next band */
  pageOrder?: "downThenOver" | "overThenDown" | undefined;
  /** inches */
  margins: { left: number; right: number; top: number; bottom: number; header: number; footer: number };
  /** the footer in Excel's header/footer codes (&L, &P, &N; & itself doubled) */
  footer?: string | undefined;
}

export interface ConditionalFill {
  /** the cells, e.g. D2:AI101 */
  ref: string;
  /** a cell equal to `equals` is filled with the differential format `dxf` */
  rules: { equals: string; dxf: number }[];
}

export function sheetHead(o: { selected: boolean; frozenRows: number; widths: readonly number[]; styles: readonly number[]; fitToPage: boolean }): string {
  const pane =
    o.frozenRows > 0
      ? `<pane ySplit="${o.frozenRows}" topLeftCell="A${o.frozenRows + 1}" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft" activeCell="A${o.frozenRows + 1}" sqref="A${o.frozenRows + 1}"/>`
      : "";
  const cols = o.widths.map((w, i) => `<col min="${i + 1}" max="${i + 1}" width="${w}" customWidth="1"${o.styles[i] ? ` style="${o.styles[i]}"` : ""}/>`).join("");
  return (
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">` +
    (o.fitToPage ? `<sheetPr><pageSetUpPr fitToPage="1"/></sheetPr>` : "") +
    `<sheetViews><sheetView${o.selected ? ' tabSelected="1"' : ""} workbookViewId="0">${pane}</sheetView></sheetViews>` +
    `<sheetFormatPr defaultRowHeight="15"/>` +
    (cols ? `<cols>${cols}</cols>` : "") +
    `<sheetData>`
  );
}

export function sheetTail(o: { autoFilter?: string | undefined; merges: readonly string[]; fills: readonly ConditionalFill[]; page?: PageSetup | undefined; hasNotes: boolean }): string {
  let priority = 0;
  const fills = o.fills
    .map(
      (f) =>
        `<conditionalFormatting sqref="${f.ref}">${f.rules.map((r) => `<cfRule type="cellIs" dxfId="${r.dxf}" priority="${++priority}" operator="equal"><formula>${xmlText(r.equals)}</formula></cfRule>`).join("")}</conditionalFormatting>`,
    )
    .join("");
  const p = o.page;
  const m = p?.margins;
  return (
    `</sheetData>` +
    (o.autoFilter ? `<autoFilter ref="${o.autoFilter}"/>` : "") +
    (o.merges.length > 0 ? `<mergeCells count="${o.merges.length}">${o.merges.map((ref) => `<mergeCell ref="${ref}"/>`).join("")}</mergeCells>` : "") +
    fills +
    (m ? `<pageMargins left="${m.left}" right="${m.right}" top="${m.top}" bottom="${m.bottom}" header="${m.header}" footer="${m.footer}"/>` : "") +
    (p
      ? `<pageSetup paperSize="${p.paperSize}"${p.pageOrder ? ` pageOrder="${p.pageOrder}"` : ""} fitToWidth="${p.fitToWidth}" fitToHeight="${p.fitToHeight}" orientation="${p.orientation}"/>`
      : "") +
    (p?.footer ? `<headerFooter><oddFooter>${xmlText(p.footer)}</oddFooter></headerFooter>` : "") +
    (o.hasNotes ? `<legacyDrawing r:id="${VML_RELATIONSHIP}"/>` : "") +
    `</worksheet>`
  );
}
