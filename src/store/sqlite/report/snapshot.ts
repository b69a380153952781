// The SQLite engine's ReportSnapshot: every read of the reports and the export, inside one read
// transaction (source.ts), over temp tables it builds for the scope (postcode-table.ts, groups.ts,
// area.ts). The SQL is the reports' former SQL, moved here unchanged in what it computes; row
// streams iterate one statement each and hand out batches (batches.ts).
import { SPEED_FIELDS, mobileFields, type Lookup } from "../../../spec/fields.js";
import { LOOKUP_SPECS } from "../../../spec/lookups.js";
import type { OutcomeCounts } from "../../../spec/counts.js";
import { BAND_COLUMNS, OPEN_DATA_MONTH_COLUMN } from "../../../spec/open-data.js";
import type {
  PackedExportRows,
  PackedExportTable,
  AreaMatch,
  AreaRow,
  Baseline,
  BroadbandAddressRow,
  Cell,
  EnrichedRow,
  ExportTableName,
  FailureRow,
  GroupDimension,
  GroupTotals,
  InputRow,
  MobileAddressRow,
  OpenDataTotals,
  PostcodeFilter,
  PostcodeTotals,
  RejectedRow,
  Release,
  ReportScope,
  ReportSnapshot,
  RowBatches,
  RunFacts,
  UprnCandidate,
  VersionPair,
} from "../../snapshot.js";
import type { Db } from "../db.js";
import type { ScaleEvidence } from "../../../spec/mobile-scales.js";
import { ratingCountsOf, ratingCountsSql, scaleEvidenceSql } from "../../shared/scale-sql.js";
import { answersVersion } from "../answers-version.js";
import { finalCounts } from "../runs.js";
import { inputRowCounts, rejectedRows, widestRow } from "../run-rows.js";
import { readRunFacts } from "../runs.js";
import { anyAnswerCompared, changedVersions, runExists } from "../versions.js";
import { batchesOf } from "../../snapshot.js";
import { goodColumns } from "../../../figures/measures.js";
import { RELEASE_COLUMN, STATUS_COLUMN } from "../../../figures/postcode-columns.js";
import { COORDINATE_COLUMNS } from "../../../figures/coordinates.js";
import { downloadWithDataSql, goodSql, tierSql } from "../../shared/measures.js";
import { buildPostcodeTable, countAddressesEither, createPostcodeTable, dropPostcodeTable, POSTCODE_TABLE } from "./postcode-table.js";
import { buildGroupTable, dropGroupTable, groupTotals } from "./groups.js";
import { dropAreaTable, loadArea } from "./area.js";
import { enrichedRows, longestInputCells, uprnCandidates } from "./input-rows.js";
import { exportPackedRows, exportRows, exportTables } from "./export-rows.js";

const speedsSql = (alias: string) => SPEED_FIELDS.map((f) => `${alias}.${f}`).join(", ");
// SQLite functions take at most 1,000 arguments; one printf serves up to 49 providers.
const PRINTF_CELLS = 500;

/** The MobileCells of one row, built by SQLite (printf prints NULL as empty). */
function mobileCellsSql(alias: string, providers: readonly string[]): string {
  const cells = [...mobileFields(providers).map((f) => `${alias}.${f}`), ...goodColumns(providers).map((g) => goodSql(`${alias}.${g.rating}`))];
  const parts: string[] = [];
  for (let i = 0; i < cells.length; i += PRINTF_CELLS) {
    const chunk = cells.slice(i, i + PRINTF_CELLS);
    parts.push(`printf('${chunk.map(() => "%s").join(",")}', ${chunk.join(", ")})`);
  }
  return parts.join(" || ',' || ");
}

/** The API's share of a postcode's addresses at superfast or more, in points (one decimal). */
const API_SUPERFAST = "ROUND(100.0 * s.Superfast / s.BroadbandAddresses, 1)";
/** Postcodes whose figures include the API's addresses (an older answer of a pending one counts too). */
const FROM_API = "IFNULL(s.BroadbandAddresses, 0) > 0";
/** Postcodes with both: the API's addresses and an open-data row. */
const BOTH = `${FROM_API} AND s.OfcomSuperfast IS NOT NULL`;
const WITHOUT = `NOT (${FROM_API})`;
const BAND_COLUMNS_SQL = (bands: readonly string[]) => bands.map((c) => `(IFNULL(s.${c}, 0) > 0)`).join(" + ");

export class SqliteReportSnapshot implements ReportSnapshot {
  readonly engine = "sqlite";

  constructor(
    private readonly db: Db,
    readonly scope: ReportScope,
  ) {}

  private get requested(): string {
    return this.scope.lookups.map((l) => `'${l}'`).join(", ");
  }

  private has(lookup: Lookup): boolean {
    return this.scope.lookups.includes(lookup);
  }

  /** Drops every temp table the snapshot made (source.ts, after the work). */
  dropTemporary(): void {
    dropGroupTable(this.db);
    dropAreaTable(this.db);
    dropPostcodeTable(this.db);
  }

  async preparePostcodes(goodRating: number | null): Promise<void> {
    if (goodRating === null) createPostcodeTable(this.db, this.scope);
    else buildPostcodeTable(this.db, this.scope, goodRating);
  }

  loadArea(rows: AsyncIterable<readonly AreaRow[]>): Promise<AreaMatch> {
    return loadArea(this.db, rows);
  }

  async prepareGroups(dimensions: readonly GroupDimension[]): Promise<void> {
    countAddressesEither(this.db, this.scope);
    buildGroupTable(this.db, this.scope, dimensions);
  }

  async postcodeTotals(countColumns: readonly string[]): Promise<PostcodeTotals> {
    const sums = countColumns.map((c) => `COALESCE(SUM(${c}), 0) AS ${c}`).join(", ");
    const statuses = (l: Lookup) =>
      `COUNT(CASE WHEN ${STATUS_COLUMN[l]} = 'ok' THEN 1 END) AS ${l}_ok,
       COUNT(CASE WHEN ${STATUS_COLUMN[l]} = 'not_found' THEN 1 END) AS ${l}_not_found,
       COUNT(CASE WHEN ${STATUS_COLUMN[l]} = 'failed' THEN 1 END) AS ${l}_failed,
       COUNT(CASE WHEN ${STATUS_COLUMN[l]} = 'pending' THEN 1 END) AS ${l}_pending,
       COUNT(CASE WHEN ${STATUS_COLUMN[l]} = 'expired' THEN 1 END) AS ${l}_expired`;
    const lookups = Object.keys(STATUS_COLUMN) as Lookup[];
    const row = this.db
      .prepare(`SELECT COUNT(*) AS unique_postcodes, ${lookups.map(statuses).join(", ")}${sums ? `, ${sums}` : ""} FROM ${POSTCODE_TABLE}`)
      .get() as Record<string, number>;
    const outcome = (l: Lookup): OutcomeCounts => ({ ok: row[`${l}_ok`]!, notFound: row[`${l}_not_found`]!, failed: row[`${l}_failed`]!, pending: row[`${l}_pending`]!, expired: row[`${l}_expired`]! });
    return {
      postcodes: row.unique_postcodes!,
      statuses: Object.fromEntries(lookups.map((l) => [l, outcome(l)])) as Record<Lookup, OutcomeCounts>,
      sums: Object.fromEntries(countColumns.map((c) => [c, row[c]!])),
    };
  }

  async inputCounts(): Promise<{ input: number; invalid: number } | null> {
    return this.scope.kind === "run" ? inputRowCounts(this.db, this.scope.runId) : null;
  }

  async includesSimulatedData(): Promise<boolean> {
    const found = this.db
      .prepare(
        `SELECT EXISTS (SELECT 1 FROM ${POSTCODE_TABLE} s JOIN lookups l ON l.postcode = s.postcode AND l.lookup IN (${this.requested})
                         WHERE l.simulated = 1)`,
      )
      .pluck()
      .get() as number;
    return found === 1;
  }

  async releases(lookup: Lookup): Promise<Release[]> {
    return this.db
      .prepare(
        `SELECT l.dataset AS release, MIN(l.fetched_at) AS fetchedFrom, MAX(l.fetched_at) AS fetchedTo,
                COUNT(*) AS postcodes, SUM(l.address_count) AS addresses
           FROM ${POSTCODE_TABLE} s JOIN lookups l ON l.postcode = s.postcode AND l.lookup = ?
          WHERE l.status = 'ok' OR (l.status = 'failed' AND l.address_count > 0)
          GROUP BY l.dataset ORDER BY MIN(l.fetched_at), l.dataset`,
      )
      .all(lookup) as Release[];
  }

  async scaleEvidence(): Promise<ScaleEvidence[]> {
    if (!this.has("mobile")) return [];
    const rows = this.db.prepare(scaleEvidenceSql(POSTCODE_TABLE, this.scope.providers)).all() as { release: string | null; ratings: number; legacy: number }[];
    return rows.map((r) => ({ release: r.release, ratings: r.ratings, legacyRatings: r.legacy }));
  }

  async ratingCounts(fields: readonly string[], values: readonly number[]): Promise<number[][]> {
    if (!this.has("mobile") || fields.length === 0) return fields.map(() => values.map(() => 0));
    const row = this.db.prepare(ratingCountsSql(POSTCODE_TABLE, fields, values)).get() as Record<string, unknown> | undefined;
    return ratingCountsOf(row, fields, values);
  }

  async openDataTotals(crossCheckPoints: number): Promise<OpenDataTotals | null> {
    if (!this.scope.openData) return null;
    const mean = (c: string) => `ROUND(AVG(CASE WHEN ${WITHOUT} THEN s.${c} END), 1)`;
    const r = this.db
      .prepare(
        `SELECT COUNT(s.${OPEN_DATA_MONTH_COLUMN}) AS inOpenData,
                COUNT(CASE WHEN ${WITHOUT} THEN 1 END) AS without,
                COUNT(CASE WHEN ${WITHOUT} AND s.${OPEN_DATA_MONTH_COLUMN} IS NOT NULL THEN 1 END) AS withoutIn,
                ${mean("OfcomSuperfast")} AS superfast, ${mean("OfcomUltrafast")} AS ultrafast,
                ${mean("OfcomGigabit")} AS gigabit, ${mean("OfcomNoDecent")} AS noDecent,
                COUNT(CASE WHEN ${WITHOUT} AND s.OfcomGigabit >= 100 THEN 1 END) AS allGigabit,
                COUNT(CASE WHEN ${WITHOUT} AND s.${OPEN_DATA_MONTH_COLUMN} IS NOT NULL AND ${BAND_COLUMNS_SQL(BAND_COLUMNS)} > 1 THEN 1 END) AS multiBand,
                COUNT(CASE WHEN ${BOTH} THEN 1 END) AS both,
                COUNT(CASE WHEN ${BOTH} AND ABS(${API_SUPERFAST} - s.OfcomSuperfast) > @points THEN 1 END) AS differing
           FROM ${POSTCODE_TABLE} s`,
      )
      .get({ points: crossCheckPoints }) as Record<string, number | null>;
    const num = (k: string) => r[k] ?? 0;
    return {
      inOpenData: num("inOpenData"),
      without: num("without"),
      withoutIn: num("withoutIn"),
      superfast: r.superfast ?? null,
      ultrafast: r.ultrafast ?? null,
      gigabit: r.gigabit ?? null,
      noDecent: r.noDecent ?? null,
      allGigabit: num("allGigabit"),
      multiBand: num("multiBand"),
      both: num("both"),
      differing: num("differing"),
    };
  }

  async broadbandDistribution(binEdges: readonly number[]): Promise<{ tier: string; bin: number | null; addresses: number }[]> {
    const down = downloadWithDataSql("b");
    const bin = `(CASE ${binEdges
      .map((edge, i) => ({ edge, i }))
      .reverse()
      .map(({ edge, i }) => `WHEN ${down} >= ${edge} THEN ${i}`)
      .join(" ")} END)`;
    return this.db
      .prepare(
        `SELECT ${tierSql("b")} AS tier, ${bin} AS bin, COUNT(*) AS addresses
           FROM ${POSTCODE_TABLE} s CROSS JOIN broadband_addresses b ON b.postcode = s.postcode GROUP BY tier, bin`,
      )
      .all() as { tier: string; bin: number | null; addresses: number }[];
  }

  async runFacts(): Promise<RunFacts | null> {
    return readRunFacts(this.db, this.scope.runId);
  }

  async countLocated(located: boolean): Promise<number> {
    return this.db.prepare(`SELECT COUNT(*) FROM ${POSTCODE_TABLE} WHERE ${COORDINATE_COLUMNS[0]} IS ${located ? "NOT " : ""}NULL`).pluck().get() as number;
  }

  postcodeRows(columns: readonly string[], filter: PostcodeFilter = "all"): RowBatches<Cell[]> {
    const releases = new Map(Object.entries(RELEASE_COLUMN).map(([lookup, column]) => [column, lookup]));
    const select = columns.map((c) =>
      releases.has(c) ? `(SELECT l.dataset FROM lookups l WHERE l.postcode = s.postcode AND l.lookup = '${releases.get(c)}')` : `s.${c}`,
    );
    const where = filter === "located" ? `WHERE s.${COORDINATE_COLUMNS[0]} IS NOT NULL` : filter === "open-data-and-api" ? `WHERE ${BOTH}` : "";
    return this.rows(`SELECT s.display${select.map((c) => `, ${c}`).join("")} FROM ${POSTCODE_TABLE} s ${where} ORDER BY s.display`);
  }

  openDataVsApi(): RowBatches<Cell[]> {
    return this.rows(
      `SELECT s.display, s.${OPEN_DATA_MONTH_COLUMN}, s.OfcomSuperfast, s.BroadbandAddresses, ${API_SUPERFAST}, ROUND(${API_SUPERFAST} - s.OfcomSuperfast, 1)
         FROM ${POSTCODE_TABLE} s WHERE ${BOTH} ORDER BY s.display`,
    );
  }

  broadbandAddresses(): RowBatches<BroadbandAddressRow> {
    if (!this.has("broadband")) return batchesOf([]);
    return this.rows(
      `SELECT s.display, CAST(b.uprn AS TEXT), b.address, ${speedsSql("b")}, ${tierSql("b")}
         FROM ${POSTCODE_TABLE} s CROSS JOIN broadband_addresses b ON b.postcode = s.postcode
        ORDER BY s.display, b.uprn`,
    );
  }

  mobileAddresses(goodRating: number): RowBatches<MobileAddressRow> {
    if (!this.has("mobile")) return batchesOf([]);
    return this.rows(
      `SELECT s.display, CAST(m.uprn AS TEXT), m.address, ${mobileCellsSql("m", this.scope.providers)}
         FROM ${POSTCODE_TABLE} s CROSS JOIN mobile_addresses m ON m.postcode = s.postcode
        ORDER BY s.display, m.uprn`,
      { good: goodRating },
    ) as unknown as RowBatches<MobileAddressRow>;
  }

  enrichedRows(columns: readonly string[], goodRating: number, property: { index: number } | null): RowBatches<EnrichedRow> {
    const width = Math.max(this.scope.inputColumns.length, widestRow(this.db, this.scope.runId));
    return batchesOf(enrichedRows(this.db, this.scope, columns, goodRating, property, width));
  }

  async widestInputRow(): Promise<number> {
    return widestRow(this.db, this.scope.runId);
  }

  async longestInputCells(width: number): Promise<(number | null)[]> {
    return longestInputCells(this.db, this.scope.runId, width);
  }

  rejectedRows(): RowBatches<RejectedRow> {
    return batchesOf(rejectedRows(this.db, this.scope.runId));
  }

  failureRows(): RowBatches<FailureRow> {
    return this.rows(
      `SELECT s.display, l.lookup, l.attempts, l.http_status, l.last_error
         FROM ${POSTCODE_TABLE} s JOIN lookups l ON l.postcode = s.postcode
        WHERE l.status = 'failed' AND l.lookup IN (${this.requested})
        ORDER BY s.display, l.lookup`,
    ) as unknown as RowBatches<FailureRow>;
  }

  groupTotals(countColumns: readonly string[]): RowBatches<GroupTotals> {
    return batchesOf(groupTotals(this.db, countColumns));
  }

  async uprnCandidates(index: number): Promise<UprnCandidate[]> {
    return uprnCandidates(this.db, this.scope, index);
  }

  async answerUprns(postcode: string): Promise<number[]> {
    const sql = this.scope.lookups.map((l) => `SELECT uprn FROM ${LOOKUP_SPECS[l].table} WHERE postcode = @postcode`).join(" UNION ");
    return sql === "" ? [] : (this.db.prepare(sql).pluck().all({ postcode }) as number[]);
  }

  async runExists(runId: number): Promise<boolean> {
    return runExists(this.db, runId);
  }

  changedVersions(baseline: Baseline): RowBatches<VersionPair> {
    return batchesOf(changedVersions(this.db, this.versionScope(), baseline));
  }

  async anyAnswerCompared(): Promise<boolean> {
    return anyAnswerCompared(this.db, this.versionScope());
  }

  private versionScope() {
    return { runId: this.scope.kind === "run" ? this.scope.runId : null, lookups: this.scope.lookups };
  }

  async answersVersion(): Promise<number> {
    return answersVersion(this.db);
  }

  async outcomeCounts(): Promise<OutcomeCounts | null> {
    return this.scope.kind === "run" ? finalCounts(this.db, this.scope.runId, this.scope.lookups) : null;
  }

  inputRows(): RowBatches<InputRow> {
    if (this.scope.kind !== "run") return batchesOf([]);
    return batchesOf(
      this.db.prepare("SELECT line, value, postcode, reason, cells FROM run_rows WHERE run_id = ? ORDER BY line").raw(true).iterate(this.scope.runId) as Iterable<InputRow>,
    );
  }

  async exportTables(): Promise<ExportTableName[]> {
    return exportTables(this.db);
  }

  exportRows(table: ExportTableName, providers: readonly string[]): RowBatches<Cell[]> {
    return exportRows(this.db, this.scope, table, providers);
  }

  exportPackedRows(table: PackedExportTable, providers: readonly string[]): RowBatches<PackedExportRows> {
    return exportPackedRows(this.db, this.scope, table, providers);
  }

  /** One statement's raw rows in batches, the statement run when the stream is first read. */
  private rows(sql: string, params: Record<string, unknown> = {}): RowBatches<Cell[]> {
    const db = this.db;
    // an iterable, not a generator over the cursor: no extra step per row
    return batchesOf({ [Symbol.iterator]: () => db.prepare(sql).raw(true).iterate(params) as Iterator<Cell[]> });
  }
}
