// The ReportSnapshot of every engine: every read of the reports and the export, over one session
// inside the engine's consistent read (its SnapshotSource: sqlite/report/source.ts,
// postgres/report/source.ts), over temporary tables it fills for the scope (postcode-table.ts,
// groups.ts, area.ts). Each engine's spellings are its Dialect's; row streams are the session's
// (batches of one statement's rows).
import { SPEED_FIELDS, mobileFields, type Lookup } from "../../../contract/fields.js";
import { LOOKUP_SPECS } from "../../../contract/lookups.js";
import type { OutcomeCounts } from "../../../contract/counts.js";
import { ratingPlaceFields, wholeReleaseEvidence, type AnswerScales, type MobileScale, type ScaleEvidence } from "../../../contract/mobile-scales.js";
import { goodColumns } from "../../../figures/measures.js";
import { RELEASE_COLUMN, STATUS_COLUMN } from "../../../figures/postcode-columns.js";
import { COORDINATE_COLUMNS } from "../../../figures/coordinates.js";
import {
  batchesOf,
  type AreaMatch,
  type AreaRow,
  type Baseline,
  type BroadbandAddressRow,
  type Cell,
  type EnrichedRow,
  type ExportTableName,
  type FailureRow,
  type GroupDimension,
  type GroupTotals,
  type InputRow,
  type MobileAddressRow,
  type OpenDataTotals,
  type PackedExportRows,
  type PackedExportTable,
  type PostcodeFilter,
  type PostcodeTotals,
  type RejectedRow,
  type Release,
  type ReportScope,
  type ReportSnapshot,
  type RowBatches,
  type RunFacts,
  type ScopeRequest,
  type UprnCandidate,
  type VersionPair,
} from "../../snapshot.js";
import { inByteOrder } from "../dialect.js";
import { downloadWithDataSql, goodSql, tierSql } from "../measures.js";
import { finalCounts, inputRowCountsSteps, readRunFacts } from "../run-reads.js";
import { runSteps } from "../steps.js";
import { ratingCountsOf, ratingCountsSql, RECORDED_SCALES_SQL, scaleEvidenceSql, STORED_EVIDENCE, STORED_RATING_COUNTS, storedRatingCountsSql, sumStoredRatingCounts } from "../scale-sql.js";
import type { SqlSession } from "../session.js";
import { loadArea, type AreaRowsInsert } from "./area.js";
import { hideExpired } from "./expiry-views.js";
import { exportPackedRows, exportRows, exportTables } from "./export-rows.js";
import { buildGroupTable, groupTotals } from "./groups.js";
import { enrichedRows, inputRows, longestInputCells, rejectedRows, uprnCandidates, widestRow } from "./input-rows.js";
import { openDataTotals, openDataVsApiSql, OPEN_DATA_AND_API } from "./open-data.js";
import { answerScalesGiven, countAddressesEither, createTemporaryTables, goodRatingSql, POSTCODE_TABLE, preparePostcodeTable } from "./postcode-table.js";
import { resolveScope } from "./scope.js";
import { anyAnswerCompared, changedVersions, runExists } from "./versions.js";

const speedsSql = (alias: string) => SPEED_FIELDS.map((f) => `${alias}.${f}`).join(", ");

/** What an engine gives its snapshot: the session of its consistent read, and its bulk insert of --area-file's rows. */
export interface SnapshotEngine {
  session: SqlSession;
  insertAreaRows: AreaRowsInsert;
}

type EvidenceRow = { release: string | null; ratings: number | string; legacy: number | string };
const evidenceOf = (rows: readonly EvidenceRow[]): ScaleEvidence[] => rows.map((r) => ({ release: r.release, ratings: Number(r.ratings), legacyRatings: Number(r.legacy) }));

export class SqlReportSnapshot implements ReportSnapshot {
  readonly engine: string;
  private areaLoaded = false;
  /** the postcode table holds the statuses alone (preparePostcodes(null)), nothing written into it since */
  private listedOnly = false;
  /** the scales the postcode table's answers are judged on (preparePostcodes) */
  private judged: AnswerScales | null = null;
  private readonly q: SqlSession;

  private constructor(
    private readonly using: SnapshotEngine,
    readonly scope: ReportScope,
    /** whether views hide expired answers (an engine that keeps its transaction drops them after) */
    readonly hidingExpired: boolean,
  ) {
    this.q = using.session;
    this.engine = using.session.dialect.engine;
  }

  /** Hides expired answers, resolves the scope and makes the temporary tables: all the writing a snapshot does before its reads. */
  static async open(using: SnapshotEngine, request: ScopeRequest): Promise<SqlReportSnapshot> {
    const hiding = await hideExpired(using.session, request.nowMs);
    const scope = await resolveScope(using.session, request);
    await createTemporaryTables(using.session, scope);
    return new SqlReportSnapshot(using, scope, hiding);
  }

  private get requested(): string {
    return this.scope.lookups.map((l) => `'${l}'`).join(", ") || "''";
  }

  private has(lookup: Lookup): boolean {
    return this.scope.lookups.includes(lookup);
  }

  async preparePostcodes(judged: AnswerScales | number | null, figures = true): Promise<void> {
    this.judged = answerScalesGiven(judged);
    // the statuses listed for the scale's decision serve its figures too: the snapshot reads one state
    await preparePostcodeTable(this.q, this.scope, this.judged, figures, this.listedOnly);
    this.listedOnly = judged === null;
  }

  async loadArea(rows: AsyncIterable<readonly AreaRow[]>): Promise<AreaMatch> {
    const match = await loadArea(this.q, this.using.insertAreaRows, rows);
    this.areaLoaded = true;
    this.listedOnly = false;
    return match;
  }

  async prepareGroups(dimensions: readonly GroupDimension[]): Promise<void> {
    this.listedOnly = false;
    await countAddressesEither(this.q, this.scope);
    await buildGroupTable(this.q, this.scope, dimensions);
  }

  async postcodeTotals(countColumns: readonly string[]): Promise<PostcodeTotals> {
    const lookups = Object.keys(STATUS_COLUMN) as Lookup[];
    const outcomes = { ok: "ok", notFound: "not_found", failed: "failed", pending: "pending", expired: "expired" } as const;
    const counts = lookups.flatMap((l) => Object.values(outcomes).map((o) => `COUNT(CASE WHEN ${STATUS_COLUMN[l]} = '${o}' THEN 1 END) AS "${l}_${o}"`));
    const sums = countColumns.map((c) => `, COALESCE(SUM(${c}), 0) AS "${c}"`).join("");
    const row = (await this.q.get<Record<string, number>>(`SELECT COUNT(*) AS postcodes, ${counts.join(", ")}${sums} FROM ${POSTCODE_TABLE}`))!;
    const outcome = (l: Lookup) => Object.fromEntries(Object.entries(outcomes).map(([key, o]) => [key, row[`${l}_${o}`]!])) as unknown as OutcomeCounts;
    return {
      postcodes: row.postcodes!,
      statuses: Object.fromEntries(lookups.map((l) => [l, outcome(l)])) as Record<Lookup, OutcomeCounts>,
      sums: Object.fromEntries(countColumns.map((c) => [c, row[c]!])),
    };
  }

  async inputCounts(): Promise<{ input: number; invalid: number } | null> {
    return this.scope.kind === "run" ? runSteps(this.q, inputRowCountsSteps(this.scope.runId)) : null;
  }

  async includesSimulatedData(): Promise<boolean> {
    const row = await this.q.get<{ found: unknown }>(
      `SELECT EXISTS (SELECT 1 FROM ${POSTCODE_TABLE} s JOIN lookups l ON l.postcode = s.postcode AND l.lookup IN (${this.requested}) WHERE l.simulated = 1) AS found`,
    );
    return this.q.dialect.asCell(row?.found) === 1;
  }

  async releases(lookup: Lookup): Promise<Release[]> {
    const d = this.q.dialect;
    return this.q.all<Release>(
      // when the API returned them: a failed refresh since does not make them newer
      `SELECT l.dataset AS release, MIN(l.returned_at) AS "fetchedFrom", MAX(l.returned_at) AS "fetchedTo", COUNT(*) AS postcodes, SUM(l.address_count) AS addresses
         FROM ${POSTCODE_TABLE} s JOIN lookups l ON l.postcode = s.postcode AND l.lookup = @lookup
        WHERE l.status = 'ok' OR (l.status = 'failed' AND l.address_count > 0)
        GROUP BY l.dataset ORDER BY MIN(${inByteOrder(d, "l.returned_at")}), ${inByteOrder(d, "l.dataset")}`,
      { lookup },
    );
  }

  async scaleEvidence(): Promise<ScaleEvidence[]> {
    if (!this.has("mobile")) return [];
    const order = this.q.dialect.byteOrder === "" ? "" : ` ${this.q.dialect.byteOrder}`;
    const stored = (await this.q.get(this.q.dialect.columnExists("lookups", STORED_EVIDENCE.ratings))) !== null;
    const scope = evidenceOf(await this.q.all<EvidenceRow>(scaleEvidenceSql(POSTCODE_TABLE, this.scope.providers, { order, stored })));
    return wholeReleaseEvidence(scope, await this.recordedScaleEvidence());
  }

  recordedScaleEvidence(): Promise<ScaleEvidence[]> {
    // read once a snapshot: the scale's decision and the changes both ask
    return (this.recorded ??= this.readRecordedScales());
  }

  private recorded: Promise<ScaleEvidence[]> | undefined;

  private async readRecordedScales(): Promise<ScaleEvidence[]> {
    // a reader of an older schema, which never migrates, has no recorded scales
    if ((await this.q.get(this.q.dialect.columnExists("releases", "scale_legacy_ratings"))) === null) return [];
    return evidenceOf(await this.q.all<EvidenceRow>(RECORDED_SCALES_SQL));
  }

  /**
   * Summed from the counts each answer stored when it was written, for the rating places' fields
   * (ratingPlaceFields); an answer stored before them, and any other field, is counted from its addresses.
   */
  async ratingCounts(fields: readonly string[], values: readonly number[], scale?: MobileScale): Promise<number[][]> {
    if (!this.has("mobile") || fields.length === 0) return fields.map(() => values.map(() => 0));
    const places = new Set(ratingPlaceFields(this.scope.providers));
    const stored = fields.every((f) => places.has(f)) && (await this.q.get(this.q.dialect.columnExists("lookups", STORED_RATING_COUNTS))) !== null;
    const join = this.q.dialect.orderedJoin;
    const row = await this.q.get<Record<string, unknown>>(ratingCountsSql(POSTCODE_TABLE, fields, values, scale, { unstored: stored, join }));
    const counted = ratingCountsOf(row ?? undefined, fields, values);
    if (!stored) return counted;
    const sums = await sumStoredRatingCounts(this.q.stream(storedRatingCountsSql(POSTCODE_TABLE, scale, join)), fields, values);
    return counted.map((byValue, i) => byValue.map((n, j) => n + sums[i]![j]!));
  }

  openDataTotals(crossCheckPoints: number): Promise<OpenDataTotals | null> {
    return openDataTotals(this.q, this.scope, crossCheckPoints);
  }

  async broadbandDistribution(binEdges: readonly number[]): Promise<{ tier: string; bin: number | null; addresses: number }[]> {
    const down = downloadWithDataSql("b");
    const cases = binEdges
      .map((edge, i) => ({ edge, i }))
      .reverse()
      .map(({ edge, i }) => `WHEN ${down} >= ${edge} THEN ${i}`)
      .join(" ");
    const bin = cases === "" ? "CAST(NULL AS INTEGER)" : `(CASE ${cases} END)`;
    return this.q.all(
      `SELECT ${tierSql("b")} AS tier, ${bin} AS bin, COUNT(*) AS addresses
         FROM ${POSTCODE_TABLE} s ${this.q.dialect.orderedJoin} broadband_addresses b ON b.postcode = s.postcode GROUP BY 1, 2`,
    );
  }

  runFacts(): Promise<RunFacts | null> {
    return readRunFacts(this.q, this.scope.runId);
  }

  async countLocated(located: boolean): Promise<number> {
    return (await this.q.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${POSTCODE_TABLE} WHERE ${COORDINATE_COLUMNS[0]} IS ${located ? "NOT " : ""}NULL`))!.n;
  }

  postcodeRows(columns: readonly string[], filter: PostcodeFilter = "all"): RowBatches<Cell[]> {
    const releases = new Map(Object.entries(RELEASE_COLUMN).map(([lookup, column]) => [column, lookup]));
    const select = columns.map((c) =>
      releases.has(c) ? `(SELECT l.dataset FROM lookups l WHERE l.postcode = s.postcode AND l.lookup = '${releases.get(c)}')` : `s.${c}`,
    );
    const where = filter === "located" ? `WHERE s.${COORDINATE_COLUMNS[0]} IS NOT NULL` : filter === "open-data-and-api" ? `WHERE ${OPEN_DATA_AND_API}` : "";
    return this.q.stream(`SELECT s.display${select.map((c) => `, ${c}`).join("")} FROM ${POSTCODE_TABLE} s ${where} ORDER BY s.display`);
  }

  openDataVsApi(): RowBatches<Cell[]> {
    return this.q.stream(openDataVsApiSql(this.q.dialect));
  }

  broadbandAddresses(): RowBatches<BroadbandAddressRow> {
    if (!this.has("broadband")) return batchesOf([]);
    return this.q.stream(
      `SELECT s.display, CAST(b.uprn AS TEXT), b.address, ${speedsSql("b")}, ${tierSql("b")}
         FROM ${POSTCODE_TABLE} s ${this.q.dialect.orderedJoin} broadband_addresses b ON b.postcode = s.postcode
        ORDER BY s.display, b.uprn`,
    );
  }

  /** Each address's MobileCells: its ratings, then per provider its good cells, as one text. */
  mobileAddresses(): RowBatches<MobileAddressRow> {
    if (!this.has("mobile")) return batchesOf([]);
    const { providers } = this.scope;
    const cells = [...mobileFields(providers).map((f) => `m.${f}`), ...goodColumns(providers).map((g) => goodSql(`m.${g.rating}`, goodRatingSql("s", this.judged)))];
    return this.q.stream(
      `SELECT s.display, CAST(m.uprn AS TEXT), m.address, ${this.q.dialect.joinCells(cells)}
         FROM ${POSTCODE_TABLE} s ${this.q.dialect.orderedJoin} mobile_addresses m ON m.postcode = s.postcode
        ORDER BY s.display, m.uprn`,
    ) as unknown as RowBatches<MobileAddressRow>;
  }

  enrichedRows(columns: readonly string[], property: { index: number } | null): RowBatches<EnrichedRow> {
    return enrichedRows(this.q, this.scope, columns, property);
  }

  widestInputRow(): Promise<number> {
    return widestRow(this.q, this.scope.runId);
  }

  longestInputCells(width: number): Promise<(number | null)[]> {
    return longestInputCells(this.q, this.scope.runId, width);
  }

  rejectedRows(): RowBatches<RejectedRow> {
    return rejectedRows(this.q, this.scope.runId);
  }

  failureRows(): RowBatches<FailureRow> {
    return this.q.stream(
      `SELECT s.display, l.lookup, l.attempts, l.http_status, l.last_error
         FROM ${POSTCODE_TABLE} s JOIN lookups l ON l.postcode = s.postcode
        WHERE l.status = 'failed' AND l.lookup IN (${this.requested})
        ORDER BY s.display, ${inByteOrder(this.q.dialect, "l.lookup")}`,
    ) as unknown as RowBatches<FailureRow>;
  }

  groupTotals(countColumns: readonly string[]): RowBatches<GroupTotals> {
    return groupTotals(this.q, countColumns);
  }

  uprnCandidates(index: number): Promise<UprnCandidate[]> {
    return uprnCandidates(this.q, this.scope, index);
  }

  async answerUprns(postcode: string): Promise<number[]> {
    const sql = this.scope.lookups.map((l) => `SELECT uprn FROM ${LOOKUP_SPECS[l].table} WHERE postcode = @postcode`).join(" UNION ");
    if (sql === "") return [];
    return (await this.q.all<{ uprn: number }>(`${sql} ORDER BY 1`, { postcode })).map((r) => r.uprn);
  }

  runExists(runId: number): Promise<boolean> {
    return runExists(this.q, runId);
  }

  changedVersions(baseline: Baseline): RowBatches<VersionPair> {
    return changedVersions(this.q, this.versionScope(), baseline);
  }

  anyAnswerCompared(): Promise<boolean> {
    return anyAnswerCompared(this.q, this.versionScope());
  }

  private versionScope() {
    return { runId: this.scope.kind === "run" ? this.scope.runId : null, lookups: this.scope.lookups };
  }

  async answersVersion(): Promise<number> {
    return (await this.q.get<{ n: number }>("SELECT n FROM answers_version WHERE id = 1"))!.n;
  }

  async outcomeCounts(): Promise<OutcomeCounts | null> {
    return this.scope.kind === "run" ? finalCounts(this.q, this.scope.runId, this.scope.lookups) : null;
  }

  inputRows(): RowBatches<InputRow> {
    return this.scope.kind === "run" ? inputRows(this.q, this.scope.runId) : batchesOf([]);
  }

  exportTables(): Promise<ExportTableName[]> {
    return exportTables(this.q);
  }

  exportRows(table: ExportTableName, providers: readonly string[]): RowBatches<Cell[]> {
    return exportRows(this.q, this.scope, table, providers, this.areaLoaded);
  }

  exportPackedRows(table: PackedExportTable, providers: readonly string[]): RowBatches<PackedExportRows> {
    return exportPackedRows(this.q, this.scope, table, providers, this.areaLoaded);
  }
}
