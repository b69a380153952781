// The reports: every file in --out for one run's postcodes (or all stored ones), read
// from the store in one consistent snapshot (src/store/snapshot.ts), the set replaced whole
// (report-set.ts). Compute (summary, changes, groups) asks the snapshot; the writers render.
import { join } from "node:path";
import { goodOnEachScale, type MobileScaleChoice, type ScaleDecision } from "../contract/mobile-scales.js";
import type { ReportSnapshot, SnapshotSource } from "../store/snapshot.js";
import { writeSummaryJson } from "./json/summary-json.js";
import { writeCsv, type CsvFileOptions } from "./csv/csv-file.js";
import { resolveScale } from "./scale/scale.js";
import { ADDRESS_FILES, addressFilesTogether, writeAddressFile, type AddressFile } from "./csv/address-files.js";
import { writePostcodesCsv, writeEnrichedCsv } from "./csv/postcode-files.js";
import { writeOpenDataVsApiCsv } from "./csv/open-data-file.js";
import { writeFailuresCsv, writeRejectsCsv } from "./csv/problem-files.js";
import { writeHtmlReport, type GroupRow as HtmlGroupRow } from "./html/index.js";
import { collectChanges, type ChangeSet } from "./changes/changes.js";
import { writeChangesCsv } from "./csv/changes-file.js";
import type { ReportScope } from "./set/scope.js";
import { prepareOut, writeReportSet, type ReportFile, type SwapStepHook } from "./set/report-set.js";
import { withOutLock } from "../outputs/out-lock.js";
import { clearDebris } from "../outputs/out-debris.js";
import { FINGERPRINT_FILE, fingerprintState, isReportSetCurrent, recordFingerprint, reportFingerprint } from "./set/fingerprint.js";
import { computeSummary, summaryCells, summaryRows, SUMMARY_HEADER, type Summary } from "./summary/summary.js";
import { writeWorkbook, WORKBOOK_NAME } from "./xlsx/workbook.js";
import { DEFAULT_WORKBOOK_ROWS } from "./xlsx/sheet-limits.js";
import { GEOJSON_NAME, writePostcodesGeojson, type GeojsonScales } from "./geojson/geojson.js";
import { computeEstimates } from "./estimates/estimate-summary.js";
import { groupDomains } from "./groups/group-domains.js";
import { prepareGroups, type GroupOptions, type GroupRow } from "./groups/groups.js";
import type { EstimatedGroupSet } from "./estimates/group-estimates.js";
import { writeGroupsCsv } from "./csv/groups-file.js";
import { describeUprnMatching, uprnMatching } from "./summary/uprn-matching.js";
import type { Lookup } from "../contract/fields.js";
import type { AnswerPace } from "../plan/answer-pace.js";

export { headlineLines, type Summary } from "./summary/summary.js";
export { ReportError } from "./set/scope.js";
export { ReportSetError, type ReportFile } from "./set/report-set.js";

/** The GeoJSON's word on the mobile scales: only when the figures combine two or one is forced. */
function geojsonScales(s: Summary): GeojsonScales | null {
  const m = s.mobile;
  return m?.scaleReading && m.scaleAddresses ? { reading: m.scaleReading, addresses: m.scaleAddresses } : null;
}

/** What every report file is made from. */
export interface ReportContext {
  snapshot: ReportSnapshot;
  scope: ReportScope;
  goodRating: number;
  /** the mobile scale the figures read, and why (report/scale/scale.ts) */
  scale: ScaleDecision;
  csv: CsvFileOptions;
  summary: Summary;
  changes: ChangeSet;
  /** the figures per group (--group-by); null for none */
  groups: EstimatedGroupSet | null;
  /** --uprn-column */
  uprnColumn: string | undefined;
  /** postcodes with coordinates (--area-file) */
  located: number;
  /** --workbook-rows */
  workbookRows: number;
  /** writes the set's address files, all in one pass at the first call (address-files.ts) */
  addressFiles: (path: string) => Promise<unknown>;
}

/** broadband.csv, mobile.csv and coverage.csv: whichever of them a set holds are written together, when the first is due. */
const ADDRESS_REPORT_FILES: readonly ReportFile<ReportContext>[] = ADDRESS_FILES.map((name) => ({
  name,
  write: (c, path) => c.addressFiles(path),
}));

/** The report set, in the order written. To add a report: one more entry here. */
/** The set's summary.json: its `runId` names the run (null: every stored postcode) the set reports. */
export const SUMMARY_JSON = "summary.json";

export const REPORT_FILES: readonly ReportFile<ReportContext>[] = [
  ...ADDRESS_REPORT_FILES,
  { name: "postcodes.csv", write: (c, path) => writePostcodesCsv(c.snapshot, path, c.csv, c.summary.simulated) },
  {
    name: GEOJSON_NAME,
    applies: (c) => c.located > 0,
    write: (c, path) => writePostcodesGeojson(c.snapshot, path, { attribution: c.summary.attribution, simulated: c.summary.simulated, scales: geojsonScales(c.summary) }),
  },
  // Input rows belong to one run: --all has no single input to enrich.
  {
    name: "enriched.csv",
    applies: (c) => c.scope.kind === "run",
    write: (c, path) => writeEnrichedCsv(c.snapshot, c.uprnColumn, path, c.csv, c.summary.simulated),
  },
  { name: "rejects.csv", applies: (c) => c.scope.kind === "run", write: (c, path) => writeRejectsCsv(c.snapshot, path, c.csv) },
  { name: "failures.csv", write: (c, path) => writeFailuresCsv(c.snapshot, path, c.csv) },
  { name: "groups.csv", applies: (c) => c.groups !== null, write: (c, path) => writeGroupsCsv(c.snapshot, c.groups!, path, c.csv) },
  { name: "open-data-vs-api.csv", applies: (c) => c.summary.openData !== undefined, write: (c, path) => writeOpenDataVsApiCsv(c.snapshot, path, c.csv) },
  { name: "changes.csv", write: (c, path) => writeChangesCsv(c.changes, path, c.csv) },
  { name: "summary.csv", write: (c, path) => writeCsv(path, SUMMARY_HEADER, summaryRows(c.summary).map(summaryCells), c.csv) },
  { name: SUMMARY_JSON, write: (c, path) => writeSummaryJson(c.summary, path) },
  { name: "report.html", write: async (c, path) => writeHtmlReport(c.snapshot, c.summary, path, { groups: await htmlGroups(c) }) },
  { name: WORKBOOK_NAME, write: (c, path) => writeWorkbook(c.snapshot, c, path) },
];

/** The groups as report.html charts them (below superfast, indoor voice total notspots), with what each is a share of. */
async function htmlGroups(c: ReportContext): Promise<HtmlGroupRow[] | undefined> {
  if (!c.groups) return undefined;
  const figure = (count: number | null | undefined, of: number | null) => (count === null || count === undefined || !of ? null : { count, of });
  const html = (r: GroupRow): HtmlGroupRow => ({
    dimension: r.dimension,
    group: r.group,
    belowSuperfast: figure(r.counts.BelowSuperfast, r.broadbandAddresses),
    indoorVoiceTotalNotspots: figure(r.counts.IndoorVoiceTotalNotspots, r.mobileAddresses),
  });
  return c.groups.rows.map(html);
}

/** The closing line that names the file to open first. */
export function openFirstLine(outDir: string): string {
  return `open ${join(outDir, WORKBOOK_NAME)} first: the summary, figures per group and your rows with their figures; ${join(outDir, "report.html")} shows them as charts in a browser`;
}

export interface ReportOptions extends GroupOptions {
  outDir: string;
  /** the run whose input to report; default the last run */
  runId?: number | null | undefined;
  /** every stored postcode instead of one run's input */
  all?: boolean | undefined;
  /** UTF-8 byte order mark at the start of every CSV (default true: Excel needs it) */
  bom?: boolean | undefined;
  /** ratings at or above this are good mobile coverage (default: the scale's own, 4 on the current scale, 3 on the legacy one) */
  goodRating?: number | undefined;
  /** --mobile-scale: the scale the ratings are read on (default auto: decided from the answers) */
  mobileScale?: MobileScaleChoice | undefined;
  /** --uprn-column: the input column naming each row's property */
  uprnColumn?: string | undefined;
  /** --workbook-rows: rows a sheet of rows of the workbook may hold (default DEFAULT_WORKBOOK_ROWS) */
  workbookRows?: number | undefined;
  /** the clock for generatedAt */
  now?: (() => Date) | undefined;
  onWarning?: ((message: string) => void) | undefined;
  /** the files of the set (default REPORT_FILES); tests add a failing one */
  files?: readonly ReportFile<ReportContext>[] | undefined;
  /** --attribution: the exact words for the API's data (default: Ofcom and the releases) */
  attribution?: string | null | undefined;
  /** changes.csv compares with the versions current at this run id or date, instead of each answer's previous one */
  since?: string | undefined;
  /** per lookup, the quota's pace: when a partly answered list's rest will be answered (plan/answer-pace.ts) */
  answerPaces?: Partial<Record<Lookup, AnswerPace>> | undefined;
  /** what writes the set, as the --out lock names it (default "report") */
  command?: string | undefined;
  /** test and soak hook: called before each file write and rename of the set (report-set.ts) */
  onStep?: SwapStepHook | undefined;
  /** checked just before the set is swapped in; throws to keep the previous set (a batch that lost its lease) */
  beforeSwap?: (() => Promise<void>) | undefined;
}

export interface ReportResult {
  /** paths of the files written, in the order written */
  files: string[];
  summary: Summary;
  /** lines for the log beside the headline: with --uprn-column, how its UPRNs matched */
  notes: string[];
}

/** Writes the report set (npm run report: always). */
export async function writeReports(source: SnapshotSource, options: ReportOptions): Promise<ReportResult> {
  return (await writeSet(source, options, false)) as ReportResult;
}

/**
 * The batch's reports: the set is kept, and "current" returned, when --out already holds the set
 * these options would write from the database as it stands (report/set/fingerprint.ts).
 */
export function writeReportsUnlessCurrent(source: SnapshotSource, options: ReportOptions): Promise<ReportResult | "current"> {
  return writeSet(source, options, true);
}

async function writeSet(source: SnapshotSource, options: ReportOptions, keepCurrent: boolean): Promise<ReportResult | "current"> {
  const csv: CsvFileOptions = { bom: options.bom ?? true, onWarning: options.onWarning };
  const generatedAt = (options.now?.() ?? new Date()).toISOString();
  await prepareOut(options.outDir);
  // One writer of --out at a time, from the fingerprint check to the swap: a set is one writer's.
  return withOutLock(options.outDir, { command: options.command ?? "report" }, (lock) => inSnapshot(source, options, async (snapshot) => {
    const scope = snapshot.scope;
    for (const line of clearDebris(options.outDir)) options.onWarning?.(line);
    // one snapshot for the check and the set: the fingerprint is hashed once
    const workbookRows = options.workbookRows ?? DEFAULT_WORKBOOK_ROWS;
    // the scale and good rating as resolved: an explicit default is the same set as an implicit one
    const state = await fingerprintState(snapshot, options);
    // unchanged since the set was written with these options: kept before the scale is decided (a count of every rating)
    const given = reportFingerprint(state, { ...options, bom: csv.bom, workbookRows, scaleAsGiven: true });
    if (keepCurrent && isReportSetCurrent(options.outDir, given, "given")) return "current";
    const { scale, goodRating, judging, answers } = await resolveScale(snapshot, options);
    const fingerprint = reportFingerprint(state, { ...options, bom: csv.bom, workbookRows, goodRating, mobileScale: scale.scale });
    if (keepCurrent && isReportSetCurrent(options.outDir, fingerprint)) return "current";
    await snapshot.preparePostcodes(answers);
    const changes = await collectChanges(snapshot, { goodOn: goodOnEachScale(scale, options.goodRating), since: options.since, scale });
    const summary = await computeSummary(snapshot, goodRating, generatedAt, changes.summary, { ...scale, seenChange: changes.scaleChange ?? undefined }, options.attribution, judging);
    const groups: EstimatedGroupSet | null = await prepareGroups(snapshot, judging, options, scale);
    summary.estimates = await computeEstimates(snapshot, groups ? await groupDomains(snapshot, groups.dimensions, groups.areaCells) : [], options.answerPaces);
    if (groups) groups.estimates = summary.estimates;
    const located = await snapshot.countLocated(true);
    const set = options.files ?? REPORT_FILES;
    const addressNames = set.filter((f) => ADDRESS_REPORT_FILES.includes(f)).map((f) => f.name as AddressFile);
    const addressFiles = addressFilesTogether(snapshot, addressNames, csv);
    const context = { snapshot, scope, goodRating, scale, csv, summary, changes, groups, uprnColumn: options.uprnColumn, located, workbookRows, addressFiles };
    // Last, and swapped in with the set: what the set was made from, so that a batch can keep it.
    const made = set.filter((f) => f.applies?.(context) ?? true).map((f) => f.name);
    const record: ReportFile<ReportContext> = { name: FINGERPRINT_FILE, write: (_c, path) => recordFingerprint(path, fingerprint, made, given) };
    const written = await writeReportSet(options.outDir, [...set, record], context, {
      beforeSwap: async () => {
        lock.assertHeld();
        await options.beforeSwap?.();
      },
      onStep: options.onStep,
    });
    const notes = options.uprnColumn === undefined ? [] : [describeUprnMatching(await uprnMatching(snapshot, options.uprnColumn), options.uprnColumn)];
    return { files: written.filter((f) => !f.endsWith(FINGERPRINT_FILE)), summary, notes };
  }));
}

/**
 * One per-address file alone (broadband.csv, mobile.csv or coverage.csv at `path`), without the
 * per-postcode counting the other files need: what the report benchmark times. Returns the row count.
 */
export function writeAddressReport(
  source: SnapshotSource,
  file: AddressFile,
  path: string,
  options: Omit<ReportOptions, "outDir" | "now">,
): Promise<number> {
  const csv: CsvFileOptions = { bom: options.bom ?? true, onWarning: options.onWarning };
  return inSnapshot(source, options, async (snapshot) => {
    const { answers } = await resolveScale(snapshot, options);
    await snapshot.preparePostcodes(answers, false);
    return writeAddressFile(snapshot, file, path, csv);
  });
}

/** One snapshot for every file: one state of the store; a run still running is said to be. */
function inSnapshot<T>(source: SnapshotSource, options: Pick<ReportOptions, "runId" | "all" | "onWarning" | "now">, work: (snapshot: ReportSnapshot) => Promise<T>): Promise<T> {
  const request = { runId: options.runId ?? undefined, all: options.all, nowMs: (options.now?.() ?? new Date()).getTime() };
  return source.snapshot(
    request,
    (snapshot) => {
      const scope = snapshot.scope;
      if (scope.kind === "run" && scope.runState === "running")
        options.onWarning?.(`run ${scope.runId} has not finished (it is running, or was killed): the reports show what it has stored so far`);
      return work(snapshot);
    },
    { onWarning: options.onWarning },
  );
}
