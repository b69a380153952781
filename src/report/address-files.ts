// broadband.csv, mobile.csv and coverage.csv: one row per address, sorted by PostCode then UPRN,
// rendered from the snapshot's address streams. These reach millions of rows, so each row is
// encoded by hand (csv-cells.ts) into one line (the mobile cells come as one text that needs no
// quoting: MobileCells), and lines go out in 64 KiB chunks; the stream comes in batches, so memory
// does not grow with the row count.
import { SPEED_FIELDS, mobileFields } from "../spec/fields.js";
import type { Cell, ReportSnapshot } from "../store/snapshot.js";
import { encodeNumber, encodeText } from "./csv-cells.js";
import { writeCsvLines, type CsvFileOptions } from "./csv-file.js";
import { goodColumns } from "./measures.js";
import { mapRows } from "./row-batches.js";

const ADDRESS_COLUMNS = ["PostCode", "UPRN", "AddressShortDescription"] as const;

export function broadbandHeader(): string[] {
  return [...ADDRESS_COLUMNS, ...SPEED_FIELDS, "Tier"];
}

export function mobileHeader(providers: readonly string[]): string[] {
  return [...ADDRESS_COLUMNS, ...mobileFields(providers), ...goodColumns(providers).map((g) => g.column)];
}

export function coverageHeader(providers: readonly string[]): string[] {
  return [...broadbandHeader(), ...mobileHeader(providers).slice(ADDRESS_COLUMNS.length)];
}

const FIRST_SPEED = ADDRESS_COLUMNS.length;
const TIER = FIRST_SPEED + SPEED_FIELDS.length;

function addressCells(row: readonly Cell[]): string {
  return encodeText(row[0] as string) + "," + (row[1] as string) + "," + encodeText(row[2] as string);
}

// Speeds as JavaScript prints them (-1 stays -1, 30.5 stays 30.5); the tier is plain text.
function broadbandCells(row: readonly Cell[]): string {
  let line = "";
  for (let i = FIRST_SPEED; i < TIER; i++) line += "," + encodeNumber(row[i] as number | null);
  return line + "," + ((row[TIER] as string | null) ?? "");
}


export function writeBroadbandCsv(snapshot: ReportSnapshot, path: string, options: CsvFileOptions): Promise<number> {
  const lines = mapRows(snapshot.broadbandAddresses(), (row) => addressCells(row) + broadbandCells(row));
  return writeCsvLines(path, broadbandHeader(), lines, options);
}

export function writeMobileCsv(snapshot: ReportSnapshot, goodRating: number, path: string, options: CsvFileOptions): Promise<number> {
  const lines = mapRows(snapshot.mobileAddresses(goodRating), (row) => addressCells(row) + "," + row[3]);
  return writeCsvLines(path, mobileHeader(snapshot.scope.providers), lines, options);
}

/** Both lookups side by side: every address of either, matched on PostCode and UPRN. */
export function writeCoverageCsv(snapshot: ReportSnapshot, goodRating: number, path: string, options: CsvFileOptions): Promise<number> {
  const lines = mapRows(snapshot.coverageAddresses(goodRating), (row) => addressCells(row) + broadbandCells(row) + "," + (row[TIER + 1] as string));
  return writeCsvLines(path, coverageHeader(snapshot.scope.providers), lines, options);
}
