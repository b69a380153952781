// The seam between the store and the reports: one consistent read of the store, over one scope (a
// run's postcodes, or everything stored). The reports' compute step asks a SnapshotSource for a
// snapshot and turns what it reads into figures and row streams; renderers never see the store.
// One class implements ReportSnapshot for every engine (src/store/sql/report/); everything here is typed
// data, no SQL and no handle. Row streams are async iterables of batches (arrays of rows, up to
// SNAPSHOT_BATCH_ROWS a batch): a report of 10M addresses awaits 40k times, not 10M.
import type { AnswerScales, MobileScale, ScaleEvidence } from "../contract/mobile-scales.js";
import type { OutcomeCounts } from "../contract/counts.js";
import type { Lookup } from "../contract/fields.js";
import type { Premises } from "../contract/open-data.js";
import { UserError } from "../errors.js";
import type { RunFacts } from "./types.js";

export type { RunFacts } from "./types.js";

/** A scope the store cannot read as asked (unknown run, empty database, a run's providers it has no columns for): the CLI exits 1 with it. */
export class ScopeError extends UserError {}

/** Which postcodes a report covers: one run's input (default the last run), or everything stored. */
export interface ScopeRequest {
  runId?: number | undefined;
  all?: boolean | undefined;
  /** the reader's clock (epoch ms): answers the newest run's --retention expires by then are not shown (the store reads no clock of its own) */
  nowMs: number;
}

/** Rows a batch of a row stream holds at most: few enough that a batch held across an await is not what grows the heap (peak RSS of a 50,000-postcode report: 315 MB at 256, 312 and 357 MB at 1,000; main 262 to 310 MB). */
export const SNAPSHOT_BATCH_ROWS = 256;

/** One value of a row: text, a number, or null for none. */
export type Cell = string | number | null;

/** A row stream: batches of rows, in the order the member documents. */
export type RowBatches<R> = AsyncIterable<readonly R[]>;

/** Rows of a synchronous iteration (an engine's cursor, a list) as a row stream: one await a batch, not a row. */
export async function* batchesOf<R>(rows: Iterable<R>, size = SNAPSHOT_BATCH_ROWS): AsyncGenerator<R[]> {
  let batch: R[] = [];
  for (const row of rows) {
    batch.push(row);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** The scope a snapshot resolved: which postcodes, lookups and providers the reports cover. */
export interface ReportScope {
  kind: "run" | "all";
  /** the run reported; for `all`, the latest run (whose providers name the columns) */
  runId: number;
  /** lookups the run asked for (both for `all`); the others are `not_requested` */
  lookups: Lookup[];
  providers: string[];
  /** the run's input header, for enriched.csv; empty for `all` */
  inputColumns: string[];
  /** the input column the run read its postcodes from; null for `all` */
  postcodeColumn?: string | null;
  runSimulated: boolean;
  runState: string;
  /** the stored release of Ofcom's open postcode data (docs/open-data.md); null or absent: none */
  openData?: { id: number; month: string; revision: number; premises: Premises } | null;
}


/** The data behind the figures: one entry per dataset release a lookup's answers name. */
export interface Release {
  /** the answer's dataset name (the mobile answer's DBName); null when the API names none (broadband) */
  release: string | null;
  /** earliest and latest time an answer of this release was stored (ISO, UTC) */
  fetchedFrom: string | null;
  fetchedTo: string | null;
  postcodes: number;
  addresses: number;
}

/** The sums over every postcode in scope: what the summary is made from. */
export interface PostcodeTotals {
  /** postcodes in scope */
  postcodes: number;
  /** per lookup, how many postcodes have each status (zeroes for a lookup not requested) */
  statuses: Record<Lookup, OutcomeCounts>;
  /** each postcode count column (POSTCODE_COUNT_COLUMNS: BroadbandAddresses, NoData, …, ProvAIndoorVoiceNotspots, …) summed; 0 when none */
  sums: Record<string, number>;
}

/**
 * The columns of one postcode's figures, by name (the names of postcodes.csv): BroadbandStatus,
 * MobileStatus, Status, BroadbandAddresses, MobileAddresses, Addresses (either lookup, an address in
 * both once; filled by prepareGroups), BestMaxPredictedDown, WorstMaxPredictedDown, the broadband
 * counts (NoData, BelowDecent, BelowSuperfast, Superfast, Ultrafast, Gigabit), per provider
 * <P>IndoorVoiceNotspots … <P>IndoorDataNeeds4g, the spread counts (IndoorVoiceTotalNotspots …),
 * Latitude and Longitude (from --area-file: loadArea), with stored open data OfcomDataMonth and
 * the OPEN_DATA_COLUMNS, and BroadbandRelease and MobileRelease (the latest answer's dataset). Counts follow src/figures/definitions.ts at the prepared good rating.
 */
export type PostcodeColumn = string;

/** Which postcodes a postcodeRows stream holds. */
export type PostcodeFilter =
  /** every postcode in scope */
  | "all"
  /** those with coordinates (postcodes.geojson, the map) */
  | "located"
  /** those with both Ofcom's open data and broadband addresses of the API (open-data-vs-api.csv) */
  | "open-data-and-api";

/** Address columns of every address row: the postcode (display form), the UPRN as text, the address. */
export type AddressCells = [postcode: string, uprn: string, address: string];

/** broadband.csv's row: address cells, SPEED_FIELDS in order, then the tier (definitions.ts). */
export type BroadbandAddressRow = readonly Cell[];
/**
 * An address's mobile cells as one text (the per-address files' hot path: one value per row, not
 * 40, crosses from the engine): each rating in mobileFields(providers) order, then per provider
 * indoor voice and indoor data good ("yes", "no", or empty when the rating is unknown), joined by
 * commas, a missing rating empty. Ratings are small integers, so the text needs no CSV quoting.
 */
export type MobileCells = string;
/** mobile.csv's row: address cells, then the MobileCells. */
export type MobileAddressRow = readonly [postcode: string, uprn: string, address: string, cells: MobileCells];

/** An input row of the run as stored: what the fingerprint hashes. */
export type InputRow = readonly [line: number, value: string | null, postcode: string | null, reason: string | null, cells: string];

/** A row of rejects.csv: the input line, the cell as read, why it holds no valid postcode, and the row's own cells as read. */
export type RejectedRow = readonly [line: number, value: string, reason: string, cells: readonly string[]];

/** A row of failures.csv: postcode (display), lookup, attempts, last HTTP status (null: no answer), last error. */
export type FailureRow = readonly [postcode: string, lookup: Lookup, attempts: number, httpStatus: number | null, lastError: string | null];

/** One input row for enriched.csv and the workbook's Your rows, in input order. */
export interface EnrichedRow {
  /** the row's cells as read */
  cells: string[];
  /** its postcode's figures: [display postcode, Status, ...the asked columns]; Status is "invalid" without a postcode, "uprn_not_found" when the property asked for is in no answer */
  figures: Cell[];
  /** with a property asked for: down, up, tier, per provider indoor voice and data good (yes/no), then per provider indoor data and voice ratings, then the good rating of the postcode's mobile answer */
  property: Cell[] | null;
}

/** A row of the group figures: one group of one dimension, its sums. */
export interface GroupTotals {
  /** the dimension's position in the prepared list */
  dimension: number;
  group: string;
  inputRows: number;
  postcodes: number;
  /** each null when no postcode of the group has an answer behind it (unknown, never 0) */
  addresses: number | null;
  broadbandAddresses: number | null;
  mobileAddresses: number | null;
  /** the asked postcode count columns, summed */
  counts: Record<string, number | null>;
}

/** A --group-by dimension as the snapshot groups by it. */
export interface GroupDimension {
  /** postcode: a part of the postcode (area, district, sector); input: the input column at `index`; area-file: the loaded area cell at `index` */
  source: "postcode" | "input" | "area-file";
  /** for postcode parts */
  part?: "area" | "district" | "sector";
  index: number;
}

/** Group names for rows without a value of their own. */
export const BLANK_GROUP = "(blank)";
export const UNMATCHED_GROUP = "(unmatched)";
export const INVALID_GROUP = "(invalid postcode)";

/** One postcode of --area-file, as read: its compact postcode, the wanted cells, its coordinates. */
export interface AreaRow {
  postcode: string;
  cells: string[];
  latitude: number | null;
  longitude: number | null;
}

/** What loading --area-file matched: rows kept (postcodes in scope), postcodes in scope it misses, postcodes given coordinates. */
export interface AreaMatch {
  matched: number;
  unmatched: number;
  located: number;
}

/** A UPRN named by an input row (--uprn-column) whose postcode has an answer: whether an address of it matched. */
export interface UprnCandidate {
  line: number;
  /** compact postcode */
  postcode: string;
  cell: string;
  found: boolean;
}

/** The open data's figures over the postcodes in scope (summary's openData section); shares are percent, means rounded to 0.1. */
export interface OpenDataTotals {
  inOpenData: number;
  /** postcodes without API broadband addresses, and of those in the open data */
  without: number;
  withoutIn: number;
  superfast: number | null;
  ultrafast: number | null;
  gigabit: number | null;
  noDecent: number | null;
  allGigabit: number;
  multiBand: number;
  /** postcodes with both, and those whose superfast shares differ by more than `points` */
  both: number;
  differing: number;
}

/** What changes are measured against: each answer's previous version, or the versions current at a time or after a run. */
export type Baseline = { kind: "previous" } | { kind: "date"; before: string } | { kind: "run"; runId: number };

/** One address of a version: [uprn, address, ...values] (speeds in SPEED_FIELDS order, ratings in mobileFields order). */
export type VersionRow = [number, string, ...(number | null)[]];

export interface VersionSide {
  status: "ok" | "not_found";
  release: string;
  /** mobile: the providers whose ratings the rows hold */
  providers: string[];
  /** the value columns of rows */
  fields: string[];
  rows: VersionRow[];
}

/** A postcode and lookup whose latest version is not its baseline version: both versions. */
export interface VersionPair {
  postcode: string;
  lookup: Lookup;
  before: VersionSide;
  after: VersionSide;
}

import type { ExportTableName } from "../figures/export-tables.js";
export type { ExportTableName };

/**
 * Everything the reports and the export read, from one consistent state of the store. Members
 * named prepare* build what later reads need (an engine may materialise it, as SQLite does in temp
 * tables); they run in the order writeReports calls them: preparePostcodes, then loadArea and
 * prepareGroups when asked. Everything else reads.
 */
export interface ReportSnapshot {
  readonly engine: string;
  readonly scope: ReportScope;

  // ---- Preparing the postcode figures
  /**
   * Lists the scope's postcodes with each lookup's status (an answer a run needed but did not fetch
   * is pending); with the answers' scales, also judges each mobile answer on its scale, counts every
   * postcode's addresses into its figures and copies the stored open data (PostcodeColumn); a
   * number judges every answer at that good rating. null: the list and statuses only; `figures`
   * false: the answers' scales without the figures (what the per-address files need).
   */
  preparePostcodes(judged: AnswerScales | number | null, figures?: boolean): Promise<void>;
  /** Keeps --area-file's rows of postcodes in scope (first row of a postcode wins) and gives those postcodes their coordinates. */
  loadArea(rows: AsyncIterable<readonly AreaRow[]>): Promise<AreaMatch>;
  /** Groups the postcodes (and, for a run, the input rows) per dimension; counts Addresses. Needs preparePostcodes(goodRating). */
  prepareGroups(dimensions: readonly GroupDimension[]): Promise<void>;

  // ---- Figures
  /** Sums over the postcodes in scope of the given count columns. */
  postcodeTotals(countColumns: readonly PostcodeColumn[]): Promise<PostcodeTotals>;
  /** A run's input rows and those without a valid postcode; null for `all`. */
  inputCounts(): Promise<{ input: number; invalid: number } | null>;
  /** Whether any answer behind the scope's requested lookups came from the simulator. */
  includesSimulatedData(): Promise<boolean>;
  /** The releases behind a lookup's figures: ok answers, and failed ones whose earlier addresses are kept; in order of first fetch. */
  releases(lookup: Lookup): Promise<Release[]>;
  /**
   * Per mobile release behind the figures (in order of first return): its ratings and how many are 1
   * or 2 (the scale's evidence), over all of the release's stored answers as last recorded, else the scope's.
   */
  scaleEvidence(): Promise<ScaleEvidence[]>;
  /** Every mobile release's evidence as the batches last recorded it over all of its stored answers (none in an older schema). */
  recordedScaleEvidence(): Promise<ScaleEvidence[]>;
  /** Per mobile field (names of mobileFields), per rating value: the scope's addresses holding it (with `scale`, only those whose answer is on it). Needs preparePostcodes with the scales. */
  ratingCounts(fields: readonly string[], values: readonly number[], scale?: MobileScale): Promise<number[][]>;
  /** Ofcom's open data against the API (null when the store holds no release). */
  openDataTotals(crossCheckPoints: number): Promise<OpenDataTotals | null>;
  /** Broadband addresses per tier and per MaxPredictedDown bin (bin i: down >= edges[i], below edges[i+1]; null: no data). */
  broadbandDistribution(binEdges: readonly number[]): Promise<{ tier: string; bin: number | null; addresses: number }[]>;
  /** The run's row (report.html); null when it is gone. */
  runFacts(): Promise<RunFacts | null>;
  /** Postcodes in scope that have (true) or lack (false) coordinates. */
  countLocated(located: boolean): Promise<number>;

  // ---- Row streams
  /** [display postcode, ...columns] per postcode of the filter, in display order. */
  postcodeRows(columns: readonly PostcodeColumn[], filter?: PostcodeFilter): RowBatches<Cell[]>;
  /** open-data-vs-api.csv's rows, for postcodes with both: [display, OfcomDataMonth, OfcomSuperfast, BroadbandAddresses, the API's superfast share of addresses (percent, 0.1), API minus Ofcom]. */
  openDataVsApi(): RowBatches<Cell[]>;
  /** Every broadband address of the scope, by postcode (display order) then UPRN. */
  broadbandAddresses(): RowBatches<BroadbandAddressRow>;
  /** Every mobile address, same order; good is a rating at or above the good rating of the answer's scale (preparePostcodes). */
  mobileAddresses(): RowBatches<MobileAddressRow>;
  /** The run's input rows in input order with their postcode's figures (enriched.csv); with `property` (the --uprn-column index), the property's own. */
  enrichedRows(columns: readonly PostcodeColumn[], property: { index: number } | null): RowBatches<EnrichedRow>;
  /** The most cells an input row of the run has (a row may be wider than the header). */
  widestInputRow(): Promise<number>;
  /** The longest text of each of the first `width` input cells (the workbook's column widths); null where none. */
  longestInputCells(width: number): Promise<(number | null)[]>;
  /** rejects.csv's rows, in input order. */
  rejectedRows(): RowBatches<RejectedRow>;
  /** failures.csv's rows: failed answers of requested lookups, by postcode then lookup. */
  failureRows(): RowBatches<FailureRow>;
  /** Per dimension in order, per group (sorted by name, the bracketed ones last): the sums. Needs prepareGroups. */
  groupTotals(countColumns: readonly PostcodeColumn[]): RowBatches<GroupTotals>;
  /** Input rows naming a UPRN (--uprn-column at `index`) whose postcode has an ok answer, in input order. */
  uprnCandidates(index: number): Promise<UprnCandidate[]>;
  /** The UPRNs of a postcode's answers (requested lookups). */
  answerUprns(postcode: string): Promise<number[]>;

  // ---- Changes
  runExists(runId: number): Promise<boolean>;
  /** For each postcode in scope and requested lookup whose latest version is not its baseline: both versions. */
  changedVersions(baseline: Baseline): RowBatches<VersionPair>;
  /** Whether any answer in scope has a version before its latest (a first run has none). */
  anyAnswerCompared(): Promise<boolean>;

  // ---- The fingerprint's inputs
  /** A value that changes whenever any stored answer changes. */
  answersVersion(): Promise<number>;
  /** A run's final outcome counts as they stand (pending included); null for `all`. */
  outcomeCounts(): Promise<OutcomeCounts | null>;
  /** The run's input rows as stored, in line order (empty for `all`). */
  inputRows(): RowBatches<InputRow>;

  // ---- The export
  /** The export tables this store holds (a store without the history has no versions). */
  exportTables(): Promise<ExportTableName[]>;
  /**
   * One export table's rows, typed (src/figures/export-tables.ts's columns, in order: BIGINT and DOUBLE as
   * numbers, BOOLEAN as 0/1, TIMESTAMP as ISO text), scoped to the postcodes in scope (runs: all),
   * in key order: address tables by postcode then UPRN, so that a postcode area is one stretch.
   * The postcodes table's latitude and longitude come from loadArea (null without).
   */
  exportRows(table: ExportTableName, providers: readonly string[]): RowBatches<Cell[]>;
  /**
   * A table keyed by postcode (every one but runs) packed one postcode a row, in postcode order, as
   * exportRows would give it: each value crossing into JavaScript costs more than the engine or
   * DuckDB spend on it, so the engine joins a postcode's rows into one text (PackedExportRows).
   */
  exportPackedRows(table: PackedExportTable, providers: readonly string[]): RowBatches<PackedExportRows>;
}

/** The export tables keyed by postcode, which cross packed (src/figures/export-tables.ts says which). */
export type PackedExportTable = Exclude<ExportTableName, "runs" | "releases">;

/**
 * One postcode's export rows: its display form, the rows' cells after the postcode (the table's
 * columns in order) packed as text, and how many rows. Rows are in key order, joined by
 * ROW_SEPARATOR; a row's cells are joined by CELL_SEPARATOR; NULL is an empty cell; a number is its
 * exact decimal text (a double with enough digits to read back the same double); a text (or a
 * timestamp, stored as text) is "r" and itself, or, when it holds a separator (or, on SQLite, a
 * NUL), "x" and its UTF-8 bytes in hex (either case). src/export/stage-plan.ts unpacks it.
 */
export type PackedExportRows = readonly [postcode: string, rows: string, count: number];

/** PackedExportRows' separators (character codes): control characters, which a text rarely holds. */
export const CELL_SEPARATOR = 31;
export const ROW_SEPARATOR = 30;

export interface SnapshotSource {
  /**
   * Runs `work` on one consistent read of the store (a read transaction held until `work` settles);
   * temporary state the snapshot made is dropped afterwards, also after a failure.
   */
  snapshot<T>(request: ScopeRequest, work: (snapshot: ReportSnapshot) => Promise<T>, options?: { onWarning?: (message: string) => void }): Promise<T>;
}
