// coverage.xlsx: the file to open first. One workbook, streamed by our xlsx writer (src/report/xlsx:
// inline strings, rows deflated as they come), written atomically like every report file.
// Sheets in order: Summary, Groups, Your rows, Postcodes, Broadband, Mobile (docs/reports.md).
import { PassThrough } from "node:stream";
import { LOOKUPS, mobileFields, SPEED_FIELDS, type Lookup } from "../../contract/fields.js";
import { goodCoverageWords, ratingName, ratingWords, SCALES, type MobileJudging, type MobileScale } from "../../contract/mobile-scales.js";
import type { ReportScope, ReportSnapshot, RowBatches } from "../../store/snapshot.js";
import { writeAtomically } from "../set/atomic-file.js";
import { columnHeading } from "./column-headings.js";
import { SPEED_THRESHOLDS as T } from "../../figures/definitions.js";
import { DEFAULT_WORKBOOK_ROWS, SHEET_MAX_ROWS } from "./sheet-limits.js";
import { groupScaleCells, groupScaleHeader, groupShare, type GroupSet } from "../groups/groups.js";
import type { EstimatedGroupSet } from "../estimates/group-estimates.js";
import type { GroupFigure } from "../groups/types.js";
import { RANKED_GROUP_FIGURES, RANKING_WORDS, rankingFigure } from "../estimates/ranking.js";
import { groupEstimateCells } from "../estimates/group-estimates.js";
import { groupEstimateSheetColumns } from "./group-estimate-columns.js";
import { goodColumns } from "../../figures/measures.js";
import { enrichedTable, postcodeFigureColumns } from "../csv/postcode-files.js";
import { mapRows } from "../set/row-batches.js";
import { STATUS_WIDTH, statusWords } from "./status-words.js";
import { judgingOfReport, releaseWords, rowShare, scaleOf, summaryRows, type Summary, type SummaryRow } from "../summary/summary.js";
import { leadRows } from "../summary/list-lead.js";
import type { ChangeSet } from "../changes/changes.js";
import { COORDINATE, COUNT, fitWidth, LINE_POINTS, lineChars, SHARE, SPEED, TEXT, writeSheet, type RowLayout, type SheetColumn, type SheetSpec } from "./workbook-sheet.js";
import { XlsxWriter, type SheetWriter } from "./workbook-writer.js";
import { LOOKUP_SPECS } from "../../contract/lookups.js";

export const WORKBOOK_NAME = "coverage.xlsx";

export interface WorkbookInput {
  summary: Summary;
  groups: EstimatedGroupSet | null;
  goodRating: number;
  uprnColumn?: string | undefined;
  /** --workbook-rows: a sheet of rows (Your rows, Postcodes, Broadband, Mobile) with more holds a note naming the files that have them */
  workbookRows?: number | undefined;
  /** the changes behind summary.changes: whether any answer had anything to compare with */
  changes?: Pick<ChangeSet, "compared"> | undefined;
}

export interface WorkbookResult {
  /** the sheets written, in order */
  sheets: string[];
  /** sheets whose rows are left out (a note instead), with their row count and the CSV that holds them */
  leftOut: { sheet: string; rows: number; csv: string }[];
}

/** Rows of an address sheet that print: the first page or so; every row is in its CSV. */
export const PRINTED_ADDRESS_ROWS = 50;

/** The rating colours of Ofcom's checker per scale, as cell fills (conditional formatting keeps ratings numbers): on the current scale a 3 (Limited) is amber, not green. */
const RATING_FILLS: Record<MobileScale, Record<number, string>> = {
  legacy: { 0: "FFD9D9D9", 1: "FFF4A6A6", 2: "FFFFD580", 3: "FFA9D8A0", 4: "FF6FBF73" },
  current: { 0: "FFD9D9D9", 3: "FFFFD580", 4: "FF6FBF73" },
};

/** The scale the summary's figures read (current when the report has no mobile lookup). */

/** Each lookup's address sheet: its name, the CSV with every row, and how its rows are laid out. */
interface AddressSheet {
  sheet: string;
  lookup: Lookup;
  csv: string;
  spec(snapshot: ReportSnapshot, scope: ReportScope, judging: MobileJudging, scale: MobileScale): Omit<SheetSpec, "name" | "print">;
}

const ADDRESS_SHEETS: Record<Lookup, AddressSheet> = {
  broadband: {
    sheet: "Broadband",
    lookup: "broadband",
    csv: "broadband.csv",
    spec: (snapshot, scope) => ({ columns: broadbandColumns(scope), rows: snapshot.broadbandAddresses() }),
  },
  mobile: {
    sheet: "Mobile",
    lookup: "mobile",
    csv: "mobile.csv",
    spec: (snapshot, scope, judging, scale) => ({
      columns: mobileColumns(scope, judging),
      rows: mobileRows(snapshot),
      finish: (ws, count) => colourRatings(ws, scope, count, scale),
    }),
  },
};
const addressSheets: readonly AddressSheet[] = LOOKUPS.map((l) => ADDRESS_SHEETS[l]);

/** What `npm run export` writes for the rows of a CSV, where it has them (src/figures/export-tables.ts). */
const PARQUET: Record<string, string> = { "broadband.csv": "broadband/", "mobile.csv": "mobile/", "postcodes.csv": "postcodes.parquet" };

/** Where the rows of a sheet left out are: its CSV, and the Parquet export's file when there is one. */
function elsewhere(l: WorkbookResult["leftOut"][number]): string {
  const parquet = PARQUET[l.csv];
  return parquet ? `${l.csv} in this folder, or ${parquet} of \`npm run export\` (Parquet)` : `${l.csv} in this folder`;
}

export async function writeWorkbook(snapshot: ReportSnapshot, input: WorkbookInput, path: string): Promise<WorkbookResult> {
  const scope = snapshot.scope;
  const out = new PassThrough();
  const written = writeAtomically(path, out);
  const workbook = new XlsxWriter(out);
  const result: WorkbookResult = { sheets: [], leftOut: [] };
  const tooLong = (sheet: string, rows: number, csv: string, limit: number) => {
    if (rows <= limit) return false;
    result.leftOut.push({ sheet, rows, csv });
    return true;
  };
  const limit = Math.min(SHEET_MAX_ROWS, input.workbookRows ?? DEFAULT_WORKBOOK_ROWS);
  const yourRows = scope.kind === "run" && !tooLong("Your rows", input.summary.postcodes.input ?? 0, "enriched.csv", limit);
  const postcodes = !tooLong("Postcodes", input.summary.postcodes.unique, "postcodes.csv", limit);
  for (const a of addressSheets) if (scope.lookups.includes(a.lookup)) tooLong(a.sheet, input.summary[a.lookup]?.addresses ?? 0, a.csv, limit);
  const noteSheet = (name: string) => {
    const leftOut = result.leftOut.find((l) => l.sheet === name);
    return leftOut ? { name, columns: NOTE_COLUMNS, rows: [[leftOutNote(leftOut, limit)]], decorate: wrapNote } : null;
  };
  const build = async () => {
    const sheet = async (spec: SheetSpec) => {
      await writeSheet(workbook, spec);
      result.sheets.push(spec.name);
    };
    await sheet({ name: "Summary", columns: SUMMARY_COLUMNS, rows: summarySheetRows(input, result, limit), decorate: summaryLayout });
    if (input.groups) await sheet({ name: "Groups", columns: groupColumns(input.groups), rows: groupRows(input.groups), print: { keyColumns: 2 } });
    if (yourRows) {
      const table = await enrichedTable(snapshot, input.uprnColumn);
      const statusAt = table.header.indexOf("Status", table.inputWidth);
      const rows = mapRows(table.rows(), (r) => r.map((cell, i) => (i === statusAt ? statusWords(cell) : cell)));
      await sheet({ name: "Your rows", columns: await yourRowsColumns(snapshot, table.header, table.inputWidth), rows });
    } else if (scope.kind === "run") await sheet(noteSheet("Your rows")!);
    const figures = postcodeFigureColumns(scope.providers, scope);
    if (!postcodes) await sheet(noteSheet("Postcodes")!);
    else
      await sheet({
        name: "Postcodes",
        columns: [column("PostCode", scope, 10, TEXT), ...figures.map((f) => column(f, scope, /Status$/.test(f) ? STATUS_WIDTH : 10, /Status|Month/.test(f) ? TEXT : /Down$|^Ofcom/.test(f) ? SPEED : /itude$/.test(f) ? COORDINATE : COUNT))],
        // statuses in words, as on Your rows (the CSV keeps the codes)
        rows: mapRows(snapshot.postcodeRows(figures), (r) => r.map((cell, i) => (i > 0 && /Status$/.test(figures[i - 1]!) ? statusWords(cell) : cell))),
      });
    for (const a of addressSheets) {
      if (!scope.lookups.includes(a.lookup)) continue;
      const rows = input.summary[a.lookup]?.addresses ?? 0;
      const note = noteSheet(a.sheet);
      const print = rows > PRINTED_ADDRESS_ROWS
        ? { rows: PRINTED_ADDRESS_ROWS, footer: `Printed: the first ${PRINTED_ADDRESS_ROWS} of ${n(rows)} rows (every row: ${a.csv}); clear the print area to print all` }
        : undefined;
      if (note) await sheet(note);
      else await sheet({ name: a.sheet, ...a.spec(snapshot, scope, judgingOfReport(input.summary), scaleOf(input.summary)), print });
    }
    await workbook.finish();
  };
  const building = build();
  try {
    await Promise.all([building, written]);
  } catch (err) {
    out.destroy(err as Error);
    await written.catch(() => {});
    // the sheet being written stops at its next wait, closing its SQLite iterator
    await building.catch(() => {});
    throw err;
  }
  return result;
}

// ---- A sheet whose rows are left out

const NOTE_COLUMNS: SheetColumn[] = [{ heading: "Note", width: 100 }];

function leftOutNote(l: WorkbookResult["leftOut"][number], limit: number): string {
  return `${n(l.rows)} rows are more than this sheet is set to hold (--workbook-rows ${n(limit)}): every row is in ${elsewhere(l)}.`;
}

function wrapNote(row: RowLayout): void {
  row.style(1, { alignment: { wrapText: true, vertical: "top" } });
}

function column(name: string, scope: ReportScope, width: number, style?: SheetColumn["style"]): SheetColumn {
  const heading = columnHeading(name, scope.providers);
  return { heading, note: heading === name ? undefined : name, width: fitWidth(heading, width), style };
}

// ---- Summary

/**
 * Figures wrap in their own column; texts (about, provenance, definitions) sit in Count merged
 * across to Of, wrapped. Rows are as tall as their longest wrapped cell: neither Excel nor
 * LibreOffice grows a row for a merged cell.
 */
const SUMMARY_COLUMNS: SheetColumn[] = [
  { heading: "Section", width: 12, style: { alignment: { vertical: "top" } } },
  { heading: "Figure", width: 56, style: { alignment: { vertical: "top", wrapText: true } } },
  { heading: "Count", width: 12, style: { ...COUNT, alignment: { horizontal: "right", vertical: "top" } } },
  { heading: "Share", width: 8, style: { ...SHARE, alignment: { vertical: "top" } } },
  { heading: "Low", note: "an estimate's 95% interval: its low end", width: 8, style: { ...SHARE, alignment: { vertical: "top" } } },
  { heading: "High", note: "an estimate's 95% interval: its high end", width: 8, style: { ...SHARE, alignment: { vertical: "top" } } },
  { heading: "Of", width: 48, style: { alignment: { vertical: "top", wrapText: true } } },
];
const TEXT_WIDTH = 12 + 8 + 8 + 8 + 48;
const OF = 6;

const n = (x: number) => x.toLocaleString("en-GB");

function summaryLayout(row: RowLayout, values: readonly unknown[]): void {
  const lines = (value: unknown, width: number) => (typeof value === "string" ? Math.ceil(value.length / lineChars(width)) : 1);
  const text = typeof values[2] === "string" && values.slice(3).every((v) => v === null);
  if (text) {
    row.merge(3, OF + 1);
    row.style(3, { alignment: { horizontal: "left", vertical: "top", wrapText: true } });
  }
  const tallest = Math.max(1, lines(values[1], 56), text ? lines(values[2], TEXT_WIDTH) : lines(values[OF], 48));
  if (tallest > 1) row.height = tallest * LINE_POINTS;
}

function* summarySheetRows(input: WorkbookInput, result: WorkbookResult, limit: number): Generator<unknown[]> {
  const s = input.summary;
  // a partly answered list leads with the whole list (list-lead.ts)
  const lead = leadRows(s);
  for (const r of lead) yield summaryCellsOf(r);
  const what = s.runId === null ? "every postcode stored in the database" : `the postcodes of run ${s.runId}'s input`;
  yield ["About", "What this is", `Predicted broadband speeds and mobile coverage per address for ${what}`, null, null, null, null];
  yield ["About", "Sheets", "Summary; Groups (figures per area and per your columns); Your rows (your input with its figures); Postcodes; Broadband and Mobile (one row per address)", null, null, null, null];
  for (const l of result.leftOut) {
    yield ["About", `${l.sheet} sheet: rows left out`, `its ${n(l.rows)} rows are more than this workbook's limit (--workbook-rows ${n(limit)}): every row is in ${elsewhere(l)}`, null, null, null, null];
  }
  yield ["Provenance", "Simulated data", s.simulated ? "YES: figures from the bundled simulator, not the real API" : "no", null, null, null, null];
  for (const lookup of s.lookups)
    for (const r of s.releases[lookup])
      yield ["Provenance", `${LOOKUP_SPECS[lookup].label} data`, `${releaseWords(r)}: ${n(r.addresses)} addresses`, null, null, null, null];
  yield ["Provenance", "Attribution of the API's data", s.attribution, null, null, null, null];
  yield ["Provenance", "Thresholds", `decent ${T.decentDown}/${T.decentUp} Mbit/s down/up; superfast ${T.superfast}, ultrafast ${T.ultrafast}, gigabit ${n(T.gigabit)} Mbit/s down; mobile ${thresholdWords(judgingOfReport(s))}`, null, null, null, null];
  const area = input.groups?.area;
  if (area)
    yield ["Provenance", "Area file", `${area.path}: ${n(area.matched)} postcodes matched, ${n(area.unmatched)} not in it (grouped as (unmatched))`, null, null, null, null];
  // A first run has nothing to compare with: one line says so instead of a column of zeros.
  const nothingToCompare = input.changes !== undefined && !input.changes.compared;
  for (const r of summaryRows(s)) {
    if (r.section === "About" || r.section === "Releases" || (nothingToCompare && r.section === "Changes") || lead.some((l) => l.section === r.section)) continue;
    yield summaryCellsOf(r);
  }
  if (nothingToCompare && s.changes)
    yield ["Changes", "Compared with", "nothing yet: these are the first answers stored for these postcodes; a later run that fetches them again shows what changed", null, null, null, null];
  for (const [term, meaning] of DEFINITIONS(judgingOfReport(s))) yield ["Definitions", term, meaning, null, null, null, null];
}

/** A summary row as the sheet's cells: shares and interval ends as numbers under a percent format. */
function summaryCellsOf(r: SummaryRow): unknown[] {
  return [r.section, r.figure, r.count, rowShare(r), r.low ?? null, r.high ?? null, r.of === null ? null : `${n(r.of)} ${r.ofWhat}`];
}

/** "good coverage: Likely (4) (Ofcom's current 0/3/4 scale)"; both scales name themselves. */
function thresholdWords(judging: MobileJudging): string {
  return judging.length === 1 ? `${goodCoverageWords(judging)} (${SCALES[judging[0]!.scale].title})` : goodCoverageWords(judging);
}

function scaleDefinitions({ scale, goodRating }: MobileJudging[number]): [string, string][] {
  return [
    ["Mobile scale", SCALES[scale].title],
    ...SCALES[scale].values.map((v): [string, string] => [`Mobile rating ${ratingName(scale, v.rating)}`, `${ratingWords(scale, v.rating)}${v.rating >= goodRating ? " (good)" : ""}`]),
  ];
}

function DEFINITIONS(judging: MobileJudging): [string, string][] {
  return [
    ["No data", "the address's best predicted download is -1 (\"no prediction\") or absent; shown as -1 (none)"],
    ["Below decent", `under ${T.decentDown} Mbit/s down or ${T.decentUp} Mbit/s up (the Universal Service Obligation)`],
    ["At least superfast / ultrafast / gigabit", `at least ${T.superfast} / ${T.ultrafast} / ${n(T.gigabit)} Mbit/s down (Ofcom); the counts nest: at least superfast includes ultrafast and gigabit`],
    ...judging.flatMap(scaleDefinitions),
    ["Total notspot", "no provider has a good rating at the address"],
    ["Partial notspot", "some providers have a good rating, but not all"],
    ["Shares", "of the addresses the lookup returned (in that group, for the Groups sheet)"],
  ];
}

// ---- Groups

function groupColumns(groups: EstimatedGroupSet): SheetColumn[] {
  const figureColumns = (lookup: Lookup) =>
    groups.figures
      .filter((f) => f.lookup === lookup)
      .flatMap((f): SheetColumn[] => [
        { heading: f.heading, note: `${f.label} (groups.csv: ${f.column})`, width: fitWidth(f.heading, 6), style: COUNT },
        { heading: `${f.heading} %`, note: `share of the group's ${lookup} addresses (groups.csv: ${f.column}Share)`, width: 9, style: SHARE },
        ...(RANKED_GROUP_FIGURES.includes(f.column)
          ? [{ heading: `${f.heading} % (low, 95%)`, note: `to rank groups by, largest first: the low end of the share's 95% interval; ${RANKING_WORDS}`, width: 10, style: SHARE }]
          : []),
      ]);
  return [
    { heading: "Grouped by", note: "Dimension", width: 14 },
    { heading: "Group", width: 24, style: TEXT },
    { heading: "Input rows", note: "InputRows", width: 11, style: COUNT },
    { heading: "Postcodes", width: 11, style: COUNT },
    { heading: "Addresses", note: "addresses in either lookup", width: 11, style: COUNT },
    { heading: "Broadband addresses", note: "BroadbandAddresses", width: 12, style: COUNT },
    ...figureColumns("broadband"),
    { heading: "Mobile addresses", note: "MobileAddresses", width: 12, style: COUNT },
    ...figureColumns("mobile"),
    ...groupEstimateSheetColumns(groups),
    ...groupScaleHeader(groups).map((c): SheetColumn => ({ heading: c, width: c === "MobileScaleReading" ? 40 : 12, style: c === "MobileScaleReading" ? TEXT : COUNT })),
  ];
}

function groupRows(groups: EstimatedGroupSet): unknown[][] {
  const estimateCells = groupEstimateCells(groups);
  const figuresOf = Object.fromEntries(LOOKUPS.map((l) => [l, groups.figures.filter((f) => f.lookup === l)])) as Record<Lookup, GroupFigure[]>;
  return groups.rows.map((row) => {
    const figures = (lookup: Lookup) => figuresOf[lookup].flatMap((f) => [row.counts[f.column], groupShare(row, f), ...(RANKED_GROUP_FIGURES.includes(f.column) ? [rankCell(row, f)] : [])]);
    return [row.dimension, row.group, row.inputRows, row.postcodes, row.addresses, row.broadbandAddresses, ...figures("broadband"), row.mobileAddresses, ...figures("mobile"), ...estimateCells(row), ...groupScaleCells(groups, row)];
  });
}

/** A group's ranking figure (ranking.ts) for the sheet: rounded as the shares; empty without addresses. */
function rankCell(row: GroupSet["rows"][number], f: GroupFigure): number | null {
  const count = row.counts[f.column];
  const of = row[`${f.lookup}Addresses`];
  const low = count === null || count === undefined || of === null ? null : rankingFigure(count, of);
  return low === null ? null : Math.round(low * 10_000) / 10_000;
}

// ---- Your rows

async function yourRowsColumns(snapshot: ReportSnapshot, header: readonly string[], inputWidth: number): Promise<SheetColumn[]> {
  const scope = snapshot.scope;
  const longest = await snapshot.longestInputCells(inputWidth);
  return header.map((name, i) => {
    if (i < inputWidth) return { heading: name || `(column ${i + 1})`, note: "your column, as read", width: fitWidth(name, longest[i] ?? 0), style: TEXT };
    const style = /Status|Tier|Good$|Provider|PostCode/.test(name) ? TEXT : /Down$|Up$/.test(name) ? SPEED : COUNT;
    return column(name, scope, name === "Status" ? STATUS_WIDTH : name === "NormalisedPostCode" ? 10 : 8, style);
  });
}

// ---- Broadband and Mobile

const ADDRESS = (scope: ReportScope): SheetColumn[] => [
  column("PostCode", scope, 10, TEXT),
  column("UPRN", scope, 12, TEXT),
  column("AddressShortDescription", scope, 40, TEXT),
];

function broadbandColumns(scope: ReportScope): SheetColumn[] {
  return [...ADDRESS(scope), ...SPEED_FIELDS.map((f) => column(f, scope, 8, SPEED)), column("Tier", scope, 12, TEXT)];
}

function mobileColumns(scope: ReportScope, judging: MobileJudging): SheetColumn[] {
  const words = judging.map(({ scale }) => `${judging.length > 1 ? `${SCALES[scale].title}: ` : ""}${SCALES[scale].values.map((v) => ratingWords(scale, v.rating)).join("; ")}`).join(". ");
  const ratings = mobileFields(scope.providers).map((f) => ({ ...column(f, scope, 4, COUNT), note: `${f} (${judging.length === 1 ? `${SCALES[judging[0]!.scale].title}; ` : ""}${goodCoverageWords(judging)}): ${words}` }));
  return [...ADDRESS(scope), ...ratings, ...goodColumns(scope.providers).map((g) => column(g.column, scope, 4, TEXT))];
}

/** The mobile rows with their ratings as numbers again (the workbook colours them) and the good cells as text. */
function mobileRows(snapshot: ReportSnapshot): RowBatches<unknown[]> {
  const ratings = mobileFields(snapshot.scope.providers).length;
  return mapRows(snapshot.mobileAddresses(), ([postcode, uprn, address, cells]) => {
    const values: unknown[] = cells.split(",");
    for (let i = 0; i < ratings; i++) values[i] = values[i] === "" ? null : Number(values[i]);
    return [postcode, uprn, address, ...values];
  });
}

/** Each rating cell filled with its colour, by conditional formatting: the values stay numbers. */
function colourRatings(sheet: SheetWriter, scope: ReportScope, rows: number, scale: MobileScale): void {
  if (rows === 0) return;
  const last = sheet.letter(3 + mobileFields(scope.providers).length);
  sheet.fillWhenEqual(
    `${sheet.letter(4)}2:${last}${rows + 1}`,
    Object.entries(RATING_FILLS[scale]).map(([rating, argb]) => ({ equals: rating, argb })),
  );
}
