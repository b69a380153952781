// broadband.csv, mobile.csv and coverage.csv: one row per address, sorted by PostCode then UPRN.
// These reach millions of rows, so SQLite does the per-cell work it does fastest (UPRNs to text,
// ratings and yes/no joined into one CSV fragment per row) and each row costs JavaScript only a
// few string joins; the iteration streams, so memory does not grow with the row count.
import { SPEED_FIELDS, mobileFields } from "../spec/fields.js";
import type { Db } from "../store/sqlite/db.js";
import { encodeNumber, encodeText } from "./csv-cells.js";
import { writeCsvLines, type CsvFileOptions } from "./csv-file.js";
import { goodColumns, goodSql, tierSql } from "./measures.js";
import { POSTCODE_TABLE } from "./postcode-table.js";
import type { ReportScope } from "./scope.js";

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

// SQLite functions take at most 1,000 arguments; one printf serves up to 49 providers.
const PRINTF_CELLS = 500;

/** The rating and yes/no cells of one mobile row as one CSV fragment, built by SQLite (NULL → empty). */
function mobileCellsSql(alias: string, providers: readonly string[]): string {
  const cells = [...mobileFields(providers).map((f) => `${alias}.${f}`), ...goodColumns(providers).map((g) => goodSql(`${alias}.${g.rating}`))];
  const parts: string[] = [];
  for (let i = 0; i < cells.length; i += PRINTF_CELLS) {
    const chunk = cells.slice(i, i + PRINTF_CELLS);
    parts.push(`printf('${chunk.map(() => "%s").join(",")}', ${chunk.join(", ")})`);
  }
  return parts.join(" || ',' || ");
}

const speedsSql = (alias: string) => SPEED_FIELDS.map((f) => `${alias}.${f}`).join(", ");
const FIRST_SPEED = 3;
const TIER = FIRST_SPEED + SPEED_FIELDS.length;

// Speeds stay JavaScript numbers: SQLite would print a stored -1 as "-1.0".
function broadbandCells(row: unknown[]): string {
  let line = "";
  for (let i = FIRST_SPEED; i < TIER; i++) line += "," + encodeNumber(row[i] as number | null);
  return line + "," + ((row[TIER] as string | null) ?? "");
}

function addressCells(row: unknown[]): string {
  return encodeText(row[0] as string) + "," + (row[1] as string) + "," + encodeText(row[2] as string);
}

function* lines(db: Db, sql: string, params: Record<string, unknown>, encode: (row: unknown[]) => string): Generator<string> {
  for (const row of db.prepare(sql).raw(true).iterate(params) as Iterable<unknown[]>) yield encode(row);
}

export function writeBroadbandCsv(db: Db, scope: ReportScope, path: string, options: CsvFileOptions): Promise<number> {
  const rows = scope.lookups.includes("broadband")
    ? lines(
        db,
        `SELECT s.display, CAST(b.uprn AS TEXT), b.address, ${speedsSql("b")}, ${tierSql("b")}
           FROM ${POSTCODE_TABLE} s CROSS JOIN broadband_addresses b ON b.postcode = s.postcode
          ORDER BY s.display, b.uprn`,
        {},
        (row) => addressCells(row) + broadbandCells(row),
      )
    : [];
  return writeCsvLines(path, broadbandHeader(), rows, options);
}

export function writeMobileCsv(db: Db, scope: ReportScope, goodRating: number, path: string, options: CsvFileOptions): Promise<number> {
  const rows = scope.lookups.includes("mobile")
    ? lines(
        db,
        `SELECT s.display, CAST(m.uprn AS TEXT), m.address, ${mobileCellsSql("m", scope.providers)}
           FROM ${POSTCODE_TABLE} s CROSS JOIN mobile_addresses m ON m.postcode = s.postcode
          ORDER BY s.display, m.uprn`,
        { good: goodRating },
        (row) => addressCells(row) + "," + (row[3] as string),
      )
    : [];
  return writeCsvLines(path, mobileHeader(scope.providers), rows, options);
}

/**
 * Both lookups side by side: every address of either, matched on PostCode and UPRN. Two ordered
 * halves (addresses with broadband data, then mobile-only ones) that SQLite merges in order.
 */
export function writeCoverageCsv(db: Db, scope: ReportScope, goodRating: number, path: string, options: CsvFileOptions): Promise<number> {
  const broadband = scope.lookups.includes("broadband");
  const mobile = scope.lookups.includes("mobile");
  // A missing side is NULLs, which print as empty cells (printf turns NULL into "").
  const noSpeeds = SPEED_FIELDS.map(() => "NULL").join(", ");
  const mobileCells = mobile
    ? mobileCellsSql("m", scope.providers)
    : `'${",".repeat(mobileHeader(scope.providers).length - ADDRESS_COLUMNS.length - 1)}'`;
  const halves: string[] = [];
  if (broadband)
    halves.push(
      `SELECT s.display AS display, CAST(b.uprn AS TEXT), b.address, ${speedsSql("b")}, ${tierSql("b")}, ${mobileCells}, b.uprn AS uprn
         FROM ${POSTCODE_TABLE} s CROSS JOIN broadband_addresses b ON b.postcode = s.postcode
         ${mobile ? "LEFT JOIN mobile_addresses m ON m.postcode = b.postcode AND m.uprn = b.uprn" : ""}`,
    );
  if (mobile)
    halves.push(
      `SELECT s.display AS display, CAST(m.uprn AS TEXT), m.address, ${noSpeeds}, NULL, ${mobileCells}, m.uprn AS uprn
         FROM ${POSTCODE_TABLE} s CROSS JOIN mobile_addresses m ON m.postcode = s.postcode
        ${broadband ? "WHERE NOT EXISTS (SELECT 1 FROM broadband_addresses b WHERE b.postcode = m.postcode AND b.uprn = m.uprn)" : ""}`,
    );
  const rows =
    halves.length > 0
      ? lines(db, `${halves.join(" UNION ALL ")} ORDER BY display, uprn`, mobile ? { good: goodRating } : {}, (row) =>
          addressCells(row) + broadbandCells(row) + "," + (row[TIER + 1] as string),
        )
      : [];
  return writeCsvLines(path, coverageHeader(scope.providers), rows, options);
}
