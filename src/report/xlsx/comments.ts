// Notes on cells: the comments part holds their text; a legacy VML drawing holds the boxes that
// show them, which Excel requires beside the comments part (ECMA-376 Part 1, 18.7; the VML is
// Part 4's legacy markup). One box per note, hidden until the pointer is over its cell.
import { xmlText } from "./escape.js";

export interface CellNote {
  /** 1-based row and column of the cell */
  row: number;
  column: number;
  text: string;
}

export function commentsXml(notes: readonly CellNote[], ref: (n: CellNote) => string): string {
  const list = notes.map((n) => `<comment ref="${ref(n)}" authorId="0"><text><r><t xml:space="preserve">${xmlText(n.text)}</t></r></text></comment>`).join("");
  return (
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<comments xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` +
    `<authors><author></author></authors><commentList>${list}</commentList></comments>`
  );
}

/** The drawing of sheet number `sheet` (1-based): its shapes' ids are unique in the workbook (1024 a sheet, as Excel numbers them). */
export function vmlDrawing(sheet: number, notes: readonly CellNote[]): string {
  const shapes = notes.map((n, i) => {
    const c = n.column - 1;
    const r = n.row - 1;
    // the box: from the next column, a little below the cell, 2 columns wide and 4 rows tall
    const anchor = [c + 1, 15, r, 2, c + 3, 15, r + 4, 16].join(", ");
    return (
      `<v:shape id="_x0000_s${sheet * 1024 + i + 1}" type="#_x0000_t202" style="position:absolute;margin-left:80pt;margin-top:2pt;width:160pt;height:60pt;z-index:${i + 1};visibility:hidden" fillcolor="#ffffe1" o:insetmode="auto">` +
      `<v:fill color2="#ffffe1"/><v:shadow on="t" color="black" obscured="t"/><v:path o:connecttype="none"/>` +
      `<v:textbox style="mso-direction-alt:auto"><div style="text-align:left"></div></v:textbox>` +
      `<x:ClientData ObjectType="Note"><x:MoveWithCells/><x:SizeWithCells/><x:Anchor>${anchor}</x:Anchor><x:AutoFill>False</x:AutoFill><x:Row>${r}</x:Row><x:Column>${c}</x:Column></x:ClientData></v:shape>`
    );
  });
  return (
    `<xml xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:x="urn:schemas-microsoft-com:office:excel">` +
    `<o:shapelayout v:ext="edit"><o:idmap v:ext="edit" data="${sheet}"/></o:shapelayout>` +
    `<v:shapetype id="_x0000_t202" coordsize="21600,21600" o:spt="202" path="m,l,21600r21600,l21600,xe"><v:stroke joinstyle="miter"/><v:path gradientshapeok="t" o:connecttype="rect"/></v:shapetype>` +
    `${shapes.join("")}</xml>`
  );
}
