// coverage.xlsx: the file to open first. One workbook, streamed with exceljs's WorkbookWriter
// (inline strings, rows committed as they come), written atomically like every report file.
// Sheets in order: Summary, Groups, Your rows, Postcodes, Broadband, Mobile (docs/reports.md).
import { PassThrough } from "node:stream";
import ExcelJS from "exceljs";
import { mobileFields, RATING_LABELS, RATING_MAX, RATING_MIN, SPEED_FIELDS, type Lookup } from "../spec/fields.js";
import type { Db } from "../store/db.js";
import { writeAtomically } from "./atomic-file.js";
import { columnHeading } from "./column-headings.js";
import { EXCEL_MAX_ROWS, SPEED_THRESHOLDS as T } from "./definitions.js";
import { groupShare, computeGroups, type GroupSet } from "./groups.js";
import { goodColumns, goodSql, tierSql } from "./measures.js";
import { enrichedTable, postcodeFigureColumns } from "./postcode-files.js";
import { POSTCODE_TABLE } from "./postcode-table.js";
import type { ReportScope } from "./scope.js";
import { releaseWords, summaryRows, type Summary } from "./summary.js";
import { COORDINATE, COUNT, fitWidth, SHARE, SPEED, TEXT, writeSheet, type SheetColumn } from "./workbook-sheet.js";

export const WORKBOOK_NAME = "coverage.xlsx";

export interface WorkbookInput {
  summary: Summary;
  groups: GroupSet | null;
  goodRating: number;
  uprnColumn?: string | undefined;
  /** rows an address sheet may hold (tests lower it); default SHEET_MAX_ROWS */
  maxSheetRows?: number | undefined;
}

export interface WorkbookResult {
  /** the sheets written, in order */
  sheets: string[];
  /** sheets with more rows than a sheet holds, left out, with the CSV that holds their rows */
  leftOut: { sheet: string; rows: number; csv: string }[];
}

/** Rows a sheet holds below its header. */
export const SHEET_MAX_ROWS = EXCEL_MAX_ROWS - 1;

/** The rating colours of Ofcom's checker, as cell fills (conditional formatting keeps ratings numbers). */
const RATING_FILLS: Record<number, string> = { 0: "FFD9D9D9", 1: "FFF4A6A6", 2: "FFFFD580", 3: "FFA9D8A0", 4: "FF6FBF73" };

const addressSheets: { sheet: string; lookup: Lookup; csv: string }[] = [
  { sheet: "Broadband", lookup: "broadband", csv: "broadband.csv" },
  { sheet: "Mobile", lookup: "mobile", csv: "mobile.csv" },
];

export async function writeWorkbook(db: Db, scope: ReportScope, input: WorkbookInput, path: string): Promise<WorkbookResult> {
  const out = new PassThrough();
  const written = writeAtomically(path, out);
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const result: WorkbookResult = { sheets: [], leftOut: [] };
  const tooLong = (sheet: string, rows: number, csv: string) => {
    if (rows <= (input.maxSheetRows ?? SHEET_MAX_ROWS)) return false;
    result.leftOut.push({ sheet, rows, csv });
    return true;
  };
  const yourRows = scope.kind === "run" && !tooLong("Your rows", input.summary.postcodes.input ?? 0, "enriched.csv");
  const postcodes = !tooLong("Postcodes", input.summary.postcodes.unique, "postcodes.csv");
  for (const a of addressSheets) tooLong(a.sheet, input.summary[a.lookup]?.addresses ?? 0, a.csv);
  const build = async () => {
    const sheet = async (name: string, columns: SheetColumn[], rows: Iterable<readonly unknown[]>, finish?: Parameters<typeof writeSheet>[5]) => {
      await writeSheet(workbook, out, name, columns, rows, finish);
      result.sheets.push(name);
    };
    await sheet("Summary", SUMMARY_COLUMNS, summarySheetRows(input, result));
    if (input.groups) await sheet("Groups", groupColumns(input.groups), groupRows(db, scope, input.groups));
    if (yourRows) {
      const table = enrichedTable(db, scope, input.goodRating, input.uprnColumn);
      await sheet("Your rows", yourRowsColumns(db, scope, table.header, table.inputWidth), table.rows());
    }
    const figures = postcodeFigureColumns(scope.providers, scope);
    if (postcodes)
      await sheet(
        "Postcodes",
        [column("PostCode", scope, 10, TEXT), ...figures.map((f) => column(f, scope, 10, /Status|Month/.test(f) ? TEXT : /Down$|^Ofcom/.test(f) ? SPEED : /itude$/.test(f) ? COORDINATE : COUNT))],
        db.prepare(`SELECT display, ${figures.join(", ")} FROM ${POSTCODE_TABLE} ORDER BY display`).raw(true).iterate() as Iterable<unknown[]>,
      );
    for (const a of addressSheets) {
      if (!scope.lookups.includes(a.lookup) || result.leftOut.some((l) => l.sheet === a.sheet)) continue;
      if (a.lookup === "broadband") await sheet(a.sheet, broadbandColumns(scope), broadbandRows(db));
      else await sheet(a.sheet, mobileColumns(scope), mobileRows(db, scope, input.goodRating), (ws, n) => colourRatings(ws, scope, n));
    }
    await workbook.commit();
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

function column(name: string, scope: ReportScope, width: number, style?: SheetColumn["style"]): SheetColumn {
  const heading = columnHeading(name, scope.providers);
  return { heading, note: heading === name ? undefined : name, width: fitWidth(heading, width), style };
}

// ---- Summary

const SUMMARY_COLUMNS: SheetColumn[] = [
  { heading: "Section", width: 14 },
  { heading: "Figure", width: 90 },
  { heading: "Count", width: 16, style: { ...COUNT, alignment: { horizontal: "right" } } },
  { heading: "Share", width: 9, style: SHARE },
  { heading: "Of", width: 44 },
];

const n = (x: number) => x.toLocaleString("en-GB");

function* summarySheetRows(input: WorkbookInput, result: WorkbookResult): Generator<unknown[]> {
  const s = input.summary;
  const what = s.runId === null ? "every postcode stored in the database" : `the postcodes of run ${s.runId}'s input`;
  yield ["About", "What this is", `Predicted broadband speeds and mobile coverage per address for ${what}`, null, null];
  yield ["About", "Sheets", "Summary; Groups (figures per area and per your columns); Your rows (your input with its figures); Postcodes; Broadband and Mobile (one row per address)", null, null];
  for (const l of result.leftOut)
    yield ["About", `${l.sheet} sheet left out`, `${n(l.rows)} rows are more than a sheet holds (${n(input.maxSheetRows ?? SHEET_MAX_ROWS)}): open ${l.csv}, which holds them all`, null, null];
  yield ["Provenance", "Simulated data", s.simulated ? "YES: figures from the bundled simulator, not the real API" : "no", null, null];
  for (const lookup of s.lookups)
    for (const r of s.releases[lookup]) yield ["Provenance", `${lookup === "broadband" ? "Broadband" : "Mobile"} data`, releaseWords(r), null, `${n(r.addresses)} addresses`];
  yield ["Provenance", "Thresholds", `decent ${T.decentDown}/${T.decentUp} Mbit/s down/up; superfast ${T.superfast}, ultrafast ${T.ultrafast}, gigabit ${n(T.gigabit)} Mbit/s down; good mobile rating ${s.goodRating} (${RATING_LABELS[s.goodRating]}) or more`, null, null];
  const area = input.groups?.area;
  if (area)
    yield ["Provenance", "Area file", `${area.path}: ${n(area.matched)} postcodes matched, ${n(area.unmatched)} not in it (grouped as (unmatched))`, null, null];
  for (const r of summaryRows(s)) {
    if (r.section === "About" || r.section === "Releases") continue;
    const share = typeof r.count === "number" && r.of !== null && r.of > 0 ? r.count / r.of : null;
    yield [r.section, r.figure, r.count, share, r.of === null ? null : `${n(r.of)} ${r.ofWhat}`];
  }
  for (const [term, meaning] of DEFINITIONS(s.goodRating)) yield ["Definitions", term, meaning, null, null];
}

function DEFINITIONS(good: number): [string, string][] {
  return [
    ["No data", "the address's best predicted download is -1 (\"no prediction\") or absent; shown as -1 (none)"],
    ["Below decent", `under ${T.decentDown} Mbit/s down or ${T.decentUp} Mbit/s up (the Universal Service Obligation)`],
    ["Superfast / ultrafast / gigabit", `at least ${T.superfast} / ${T.ultrafast} / ${n(T.gigabit)} Mbit/s down (Ofcom); the counts nest: superfast includes ultrafast and gigabit`],
    ...Array.from({ length: RATING_MAX - RATING_MIN + 1 }, (_, i): [string, string] => [`Mobile rating ${i}`, `${RATING_LABELS[i]}${i >= good ? " (good)" : ""}`]),
    ["Total notspot", "no provider has a good rating at the address"],
    ["Partial notspot", "some providers have a good rating, but not all"],
    ["Shares", "of the addresses the lookup returned (in that group, for the Groups sheet)"],
  ];
}

// ---- Groups

function groupColumns(groups: GroupSet): SheetColumn[] {
  const figureColumns = (lookup: Lookup) =>
    groups.figures
      .filter((f) => f.lookup === lookup)
      .flatMap((f): SheetColumn[] => [
        { heading: f.heading, note: `${f.label} (groups.csv: ${f.column})`, width: fitWidth(f.heading, 6), style: COUNT },
        { heading: `${f.heading} %`, note: `share of the group's ${lookup} addresses (groups.csv: ${f.column}Share)`, width: 9, style: SHARE },
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
  ];
}

function* groupRows(db: Db, scope: ReportScope, groups: GroupSet): Generator<unknown[]> {
  for (const row of computeGroups(db, scope, groups.dimensions, groups.figures)) {
    const figures = (lookup: Lookup) => groups.figures.filter((f) => f.lookup === lookup).flatMap((f) => [row.counts[f.column], groupShare(row, f)]);
    yield [row.dimension, row.group, row.inputRows, row.postcodes, row.addresses, row.broadbandAddresses, ...figures("broadband"), row.mobileAddresses, ...figures("mobile")];
  }
}

// ---- Your rows

function yourRowsColumns(db: Db, scope: ReportScope, header: readonly string[], inputWidth: number): SheetColumn[] {
  const longest =
    inputWidth === 0
      ? []
      : (db
          .prepare(
            `SELECT ${Array.from({ length: inputWidth }, (_, i) => `MAX(length(json_extract(cells, '$[${i}]')))`).join(", ")} FROM run_rows WHERE run_id = ?`,
          )
          .raw(true)
          .get(scope.runId) as (number | null)[]);
  return header.map((name, i) => {
    if (i < inputWidth) return { heading: name || `(column ${i + 1})`, note: "your column, as read", width: fitWidth(name, longest[i] ?? 0), style: TEXT };
    const style = /Status|Tier|Good$|Provider|PostCode/.test(name) ? TEXT : /Down$|Up$/.test(name) ? SPEED : COUNT;
    return column(name, scope, name === "NormalisedPostCode" ? 10 : 8, style);
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

function broadbandRows(db: Db): Iterable<unknown[]> {
  return db
    .prepare(
      `SELECT s.display, CAST(b.uprn AS TEXT), b.address, ${SPEED_FIELDS.map((f) => `b.${f}`).join(", ")}, ${tierSql("b")}
         FROM ${POSTCODE_TABLE} s CROSS JOIN broadband_addresses b ON b.postcode = s.postcode ORDER BY s.display, b.uprn`,
    )
    .raw(true)
    .iterate() as Iterable<unknown[]>;
}

function mobileColumns(scope: ReportScope): SheetColumn[] {
  const ratings = mobileFields(scope.providers).map((f) => ({ ...column(f, scope, 4, COUNT), note: `${f}: 0 Clear, 1 Red, 2 Amber, 3 Green, 4 Enhanced` }));
  return [...ADDRESS(scope), ...ratings, ...goodColumns(scope.providers).map((g) => column(g.column, scope, 4, TEXT))];
}

function mobileRows(db: Db, scope: ReportScope, goodRating: number): Iterable<unknown[]> {
  return db
    .prepare(
      `SELECT s.display, CAST(m.uprn AS TEXT), m.address, ${mobileFields(scope.providers).map((f) => `m.${f}`).join(", ")},
              ${goodColumns(scope.providers).map((g) => goodSql(`m.${g.rating}`)).join(", ")}
         FROM ${POSTCODE_TABLE} s CROSS JOIN mobile_addresses m ON m.postcode = s.postcode ORDER BY s.display, m.uprn`,
    )
    .raw(true)
    .iterate({ good: goodRating }) as Iterable<unknown[]>;
}

/** Each rating cell filled with its colour, by conditional formatting: the values stay numbers. */
function colourRatings(sheet: ExcelJS.Worksheet, scope: ReportScope, rows: number): void {
  if (rows === 0) return;
  const first = sheet.getColumn(4).letter;
  const last = sheet.getColumn(3 + mobileFields(scope.providers).length).letter;
  sheet.addConditionalFormatting({
    ref: `${first}2:${last}${rows + 1}`,
    rules: Object.entries(RATING_FILLS).map(([rating, argb], i) => ({
      type: "cellIs",
      operator: "equal",
      formulae: [rating],
      priority: i + 1,
      style: { fill: { type: "pattern", pattern: "solid", bgColor: { argb } } },
    })),
  });
}
