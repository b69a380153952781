// The package's small parts (ECMA-376 Part 2, Open Packaging Conventions): content types, the
// relationships that tie the workbook to its sheets, styles and notes, and the workbook part with
// the sheets in order and their defined names (print titles, print area, filter range).
import { sheetReference, xmlText } from "./escape.js";

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const PACKAGE_REL = "http://schemas.openxmlformats.org/package/2006/relationships";
const TYPE = "application/vnd.openxmlformats-officedocument";

/** What the workbook part needs to know of a sheet once it is written. */
export interface SheetEntry {
  name: string;
  /** 1-based: xl/worksheets/sheet{number}.xml */
  number: number;
  hasNotes: boolean;
  /** defined names local to the sheet, e.g. _xlnm.Print_Titles → $1:$1 */
  names: { name: string; range: string; hidden?: boolean }[];
}

function relationships(rels: { id: string; type: string; target: string }[]): string {
  return `${XML_HEAD}<Relationships xmlns="${PACKAGE_REL}">${rels.map((r) => `<Relationship Id="${r.id}" Type="${r.type}" Target="${r.target}"/>`).join("")}</Relationships>`;
}

export function contentTypes(sheets: readonly SheetEntry[]): string {
  const overrides = [
    ["/xl/workbook.xml", `${TYPE}.spreadsheetml.sheet.main+xml`],
    ["/xl/styles.xml", `${TYPE}.spreadsheetml.styles+xml`],
    ...sheets.flatMap((s) => [
      [`/xl/worksheets/sheet${s.number}.xml`, `${TYPE}.spreadsheetml.worksheet+xml`],
      ...(s.hasNotes ? [[`/xl/comments${s.number}.xml`, `${TYPE}.spreadsheetml.comments+xml`]] : []),
    ]),
  ];
  return (
    `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    `<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
    `<Default Extension="xml" ContentType="application/xml"/>` +
    `<Default Extension="vml" ContentType="${TYPE}.vmlDrawing"/>` +
    overrides.map(([part, type]) => `<Override PartName="${part}" ContentType="${type}"/>`).join("") +
    `</Types>`
  );
}

export function rootRelationships(): string {
  return relationships([{ id: "rId1", type: `${REL}/officeDocument`, target: "xl/workbook.xml" }]);
}

export function workbookRelationships(sheets: readonly SheetEntry[]): string {
  return relationships([
    ...sheets.map((s) => ({ id: `rId${s.number}`, type: `${REL}/worksheet`, target: `worksheets/sheet${s.number}.xml` })),
    { id: `rId${sheets.length + 1}`, type: `${REL}/styles`, target: "styles.xml" },
  ]);
}

/** The relationship id a sheet's <legacyDrawing> names. */
export const VML_RELATIONSHIP = "rId2";

export function sheetRelationships(sheet: SheetEntry): string {
  return relationships([
    { id: "rId1", type: `${REL}/comments`, target: `../comments${sheet.number}.xml` },
    { id: VML_RELATIONSHIP, type: `${REL}/vmlDrawing`, target: `../drawings/vmlDrawing${sheet.number}.vml` },
  ]);
}

export function workbookXml(sheets: readonly SheetEntry[]): string {
  const names = sheets.flatMap((s, i) =>
    s.names.map((n) => `<definedName name="${n.name}" localSheetId="${i}"${n.hidden ? ' hidden="1"' : ""}>${xmlText(n.range.split(",").map((r) => `${sheetReference(s.name)}!${r}`).join(","))}</definedName>`),
  );
  return (
    `${XML_HEAD}<workbook xmlns="${MAIN}" xmlns:r="${REL}"><workbookPr/><bookViews><workbookView activeTab="0"/></bookViews>` +
    `<sheets>${sheets.map((s) => `<sheet name="${xmlText(s.name)}" sheetId="${s.number}" r:id="rId${s.number}"/>`).join("")}</sheets>` +
    (names.length > 0 ? `<definedNames>${names.join("")}</definedNames>` : "") +
    `</workbook>`
  );
}
