// The reports of issue 4: every file in --out for one run's postcodes (or all stored ones), read
// from SQLite in one consistent snapshot, each file written atomically.
import { join, relative } from "node:path";
import { RATING_MAX, RATING_MIN } from "../spec/fields.js";
import type { Db } from "../store/db.js";
import { writeAtomically } from "./atomic-file.js";
import { writeCsv, type CsvFileOptions } from "./csv-file.js";
import { DEFAULT_GOOD_RATING } from "./definitions.js";
import { writeBroadbandCsv, writeCoverageCsv, writeMobileCsv } from "./address-files.js";
import { writePostcodesCsv, writeEnrichedCsv } from "./postcode-files.js";
import { writeFailuresCsv, writeRejectsCsv } from "./problem-files.js";
import { buildPostcodeTable, createPostcodeTable, dropPostcodeTable } from "./postcode-table.js";
import { ReportError, resolveScope, type ReportScope } from "./scope.js";
import { forgetFingerprint, isReportSetCurrent, recordFingerprint, reportFingerprint } from "./fingerprint.js";
import { computeSummary, summaryCells, summaryRows, SUMMARY_HEADER, type Summary } from "./summary.js";

export { headlineLines, type Summary } from "./summary.js";
export { ReportError } from "./scope.js";

export interface ReportOptions {
  outDir: string;
  /** the run whose input to report; default the last run */
  runId?: number | null | undefined;
  /** every stored postcode instead of one run's input */
  all?: boolean | undefined;
  /** UTF-8 byte order mark at the start of every CSV (default true: Excel needs it) */
  bom?: boolean | undefined;
  /** ratings at or above this are good mobile coverage (default 3) */
  goodRating?: number | undefined;
  /** the clock for generatedAt */
  now?: (() => Date) | undefined;
  onWarning?: ((message: string) => void) | undefined;
}

export interface ReportResult {
  /** paths of the files written, in the order written */
  files: string[];
  summary: Summary;
}

export async function writeReports(db: Db, options: ReportOptions): Promise<ReportResult> {
  const goodRating = checkedGoodRating(options.goodRating);
  const csv: CsvFileOptions = { bom: options.bom ?? true, onWarning: options.onWarning };
  const generatedAt = (options.now?.() ?? new Date()).toISOString();
  const out = (name: string) => join(options.outDir, name);
  const files: string[] = [];
  const write = async (name: string, writing: (path: string) => Promise<unknown>) => {
    await writing(out(name));
    files.push(out(name));
  };

  return inSnapshot(db, options, async (scope) => {
    forgetFingerprint(options.outDir);
    const fingerprint = reportFingerprint(db, scope, { ...options, bom: csv.bom, goodRating });
    buildPostcodeTable(db, scope, goodRating);
    const summary = computeSummary(db, scope, goodRating, generatedAt);
    await write("broadband.csv", (path) => writeBroadbandCsv(db, scope, path, csv));
    await write("mobile.csv", (path) => writeMobileCsv(db, scope, goodRating, path, csv));
    await write("coverage.csv", (path) => writeCoverageCsv(db, scope, goodRating, path, csv));
    await write("postcodes.csv", (path) => writePostcodesCsv(db, scope, path, csv));
    // Input rows belong to one run: --all has no single input to enrich.
    if (scope.kind === "run") {
      await write("enriched.csv", (path) => writeEnrichedCsv(db, scope, path, csv));
      await write("rejects.csv", (path) => writeRejectsCsv(db, scope, path, csv));
    }
    await write("failures.csv", (path) => writeFailuresCsv(db, scope, path, csv));
    await write("summary.csv", (path) => writeCsv(path, SUMMARY_HEADER, summaryRows(summary).map(summaryCells), csv));
    await write("summary.json", (path) => writeAtomically(path, [JSON.stringify(summary, null, 2) + "\n"]));
    await recordFingerprint(options.outDir, fingerprint, files.map((f) => relative(options.outDir, f)));
    return { files, summary };
  });
}

/**
 * True when --out already holds the complete set that writeReports would write with these
 * options from the database as it stands (report/fingerprint.ts): a batch then keeps it.
 */
export function reportsAreCurrent(db: Db, options: ReportOptions): Promise<boolean> {
  const goodRating = checkedGoodRating(options.goodRating);
  return inSnapshot(db, { runId: options.runId, all: options.all }, async (scope) =>
    isReportSetCurrent(options.outDir, reportFingerprint(db, scope, { ...options, bom: options.bom ?? true, goodRating })),
  );
}

/**
 * One per-address file alone (broadband.csv, mobile.csv or coverage.csv at `path`), without the
 * per-postcode counting the other files need: what the report benchmark times. Returns the row count.
 */
export function writeAddressReport(
  db: Db,
  file: "broadband.csv" | "mobile.csv" | "coverage.csv",
  path: string,
  options: Omit<ReportOptions, "outDir" | "now">,
): Promise<number> {
  const goodRating = checkedGoodRating(options.goodRating);
  const csv: CsvFileOptions = { bom: options.bom ?? true, onWarning: options.onWarning };
  return inSnapshot(db, options, (scope) => {
    createPostcodeTable(db, scope);
    return file === "broadband.csv"
      ? writeBroadbandCsv(db, scope, path, csv)
      : file === "mobile.csv"
        ? writeMobileCsv(db, scope, goodRating, path, csv)
        : writeCoverageCsv(db, scope, goodRating, path, csv);
  });
}

function checkedGoodRating(goodRating = DEFAULT_GOOD_RATING): number {
  if (!Number.isInteger(goodRating) || goodRating <= RATING_MIN || goodRating > RATING_MAX)
    throw new ReportError(`the good rating (--good-rating) must be a whole number from ${RATING_MIN + 1} to ${RATING_MAX} (got ${goodRating})`);
  return goodRating;
}

/** Resolves the scope inside one read transaction, so that every file sees one database state. */
async function inSnapshot<T>(db: Db, options: Pick<ReportOptions, "runId" | "all" | "onWarning">, work: (scope: ReportScope) => Promise<T>): Promise<T> {
  const ownTransaction = !db.inTransaction;
  if (ownTransaction) db.exec("BEGIN");
  try {
    const scope = resolveScope(db, { runId: options.runId ?? undefined, all: options.all });
    if (scope.kind === "run" && scope.runState === "running")
      options.onWarning?.(`run ${scope.runId} has not finished (it is running, or was killed): the reports show what it has stored so far`);
    return await work(scope);
  } finally {
    dropPostcodeTable(db);
    if (ownTransaction) db.exec("COMMIT");
  }
}
