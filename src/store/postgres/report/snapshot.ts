// The PostgreSQL engine's ReportSnapshot: every read of the reports and the export inside one
// REPEATABLE READ transaction on one connection (source.ts), over the temporary tables it fills
// for the scope (postcode-table.ts, groups.ts, area.ts). Each statement follows the SQLite
// engine's (src/store/sqlite/report/) so that both hand the reports the same values in the same
// order; row streams read a server-side cursor in batches (cursor.ts).
import type pg from "pg";
import { mobileFields, SPEED_FIELDS, type Lookup } from "../../../spec/fields.js";
import { LOOKUP_SPECS } from "../../../spec/lookups.js";
import type { OutcomeCounts } from "../../../spec/counts.js";
import { BAND_COLUMNS, OPEN_DATA_MONTH_COLUMN } from "../../../spec/open-data.js";
import { COORDINATE_COLUMNS } from "../../../figures/coordinates.js";
import { goodColumns } from "../../../figures/measures.js";
import { RELEASE_COLUMN, STATUS_COLUMN } from "../../../figures/postcode-columns.js";
import { downloadWithDataSql, goodSql, tierSql } from "../../shared/measures.js";
import { ratingCountsOf, ratingCountsSql, scaleEvidenceSql } from "../../shared/scale-sql.js";
import type { ScaleEvidence } from "../../../spec/mobile-scales.js";
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
import { rowOf, rowsOf } from "../connect.js";
import { finalCounts } from "../runs.js";
import { loadArea } from "./area.js";
import { cursorRows } from "./cursor.js";
import { bind, BYTE_ORDER, type Bound } from "./dialect.js";
import { exportPackedRows, exportRows, exportTables } from "./export-rows.js";
import { buildGroupTable, groupTotals } from "./groups.js";
import { enrichedRows, longestInputCells, uprnCandidates, widestRow } from "./input-rows.js";
import { countAddressesEither, POSTCODE_TABLE, preparePostcodeTable } from "./postcode-table.js";
import { anyAnswerCompared, changedVersions } from "./versions.js";

const speedsSql = (alias: string) => SPEED_FIELDS.map((f) => `${alias}.${f}`).join(", ");

/** The MobileCells of one row as one text: NULL prints as empty (an ARRAY, since a function takes at most 100 arguments). */
function mobileCellsSql(alias: string, providers: readonly string[]): string {
  const cells = [...mobileFields(providers).map((f) => `${alias}.${f}`), ...goodColumns(providers).map((g) => goodSql(`${alias}.${g.rating}`))];
  return `array_to_string(ARRAY[${cells.map((c) => `(${c})::text`).join(", ")}], ',', '')`;
}

/** The API's share of a postcode's addresses at superfast or more, in points (one decimal); computed in double precision, as SQLite does. */
const API_SUPERFAST = "ROUND((100.0::float8 * s.Superfast / s.BroadbandAddresses)::numeric, 1)";
/** Postcodes whose figures include the API's addresses (an older answer of a pending one counts too). */
const FROM_API = "COALESCE(s.BroadbandAddresses, 0) > 0";
/** Postcodes with both: the API's addresses and an open-data row. */
const BOTH = `${FROM_API} AND s.OfcomSuperfast IS NOT NULL`;
const WITHOUT = `NOT (${FROM_API})`;
const BANDS_SQL = BAND_COLUMNS.map((c) => `(CASE WHEN COALESCE(s.${c}, 0) > 0 THEN 1 ELSE 0 END)`).join(" + ");

export class PostgresReportSnapshot implements ReportSnapshot {
  readonly engine = "postgres";
  private areaLoaded = false;

  constructor(
    private readonly client: pg.PoolClient,
    readonly scope: ReportScope,
  ) {}

  private get requested(): string {
    return this.scope.lookups.map((l) => `'${l}'`).join(", ") || "''";
  }

  private has(lookup: Lookup): boolean {
    return this.scope.lookups.includes(lookup);
  }

  async preparePostcodes(goodRating: number | null): Promise<void> {
    await preparePostcodeTable(this.client, this.scope, goodRating);
  }

  async loadArea(rows: AsyncIterable<readonly AreaRow[]>): Promise<AreaMatch> {
    const match = await loadArea(this.client, rows);
    this.areaLoaded = true;
    return match;
  }

  async prepareGroups(dimensions: readonly GroupDimension[]): Promise<void> {
    await countAddressesEither(this.client, this.scope);
    await buildGroupTable(this.client, this.scope, dimensions);
  }

  async postcodeTotals(countColumns: readonly string[]): Promise<PostcodeTotals> {
    const lookups = Object.keys(LOOKUP_SPECS) as Lookup[];
    const outcomes = ["ok", "not_found", "failed", "pending", "expired"] as const;
    const { rows } = await this.client.query<number[]>({
      text: `SELECT COUNT(*), ${lookups.flatMap((l) => outcomes.map((o) => `COUNT(CASE WHEN ${STATUS_COLUMN[l]} = '${o}' THEN 1 END)`)).join(", ")}
                    ${countColumns.map((c) => `, COALESCE(SUM(${c}), 0)`).join("")}
               FROM ${POSTCODE_TABLE}`,
      rowMode: "array",
    });
    const [postcodes, ...rest] = rows[0]!;
    const statuses = Object.fromEntries(
      lookups.map((l, i) => {
        const [ok, notFound, failed, pending, expired] = rest.slice(i * outcomes.length, (i + 1) * outcomes.length) as [number, number, number, number, number];
        return [l, { ok, notFound, failed, pending, expired } satisfies OutcomeCounts];
      }),
    ) as Record<Lookup, OutcomeCounts>;
    const sums = rest.slice(lookups.length * outcomes.length);
    return { postcodes: postcodes!, statuses, sums: Object.fromEntries(countColumns.map((c, i) => [c, sums[i]!])) };
  }

  async inputCounts(): Promise<{ input: number; invalid: number } | null> {
    if (this.scope.kind !== "run") return null;
    return rowOf<{ input: number; invalid: number }>(this.client, "SELECT COUNT(*) AS input, COUNT(*) - COUNT(postcode) AS invalid FROM run_rows WHERE run_id = $1", [this.scope.runId]);
  }

  async includesSimulatedData(): Promise<boolean> {
    const row = await rowOf<{ found: boolean }>(
      this.client,
      `SELECT EXISTS (SELECT 1 FROM ${POSTCODE_TABLE} s JOIN lookups l ON l.postcode = s.postcode AND l.lookup IN (${this.requested}) WHERE l.simulated = 1) AS found`,
    );
    return row?.found === true;
  }

  async releases(lookup: Lookup): Promise<Release[]> {
    return rowsOf<Release>(
      this.client,
      `SELECT l.dataset AS release, MIN(l.fetched_at) AS "fetchedFrom", MAX(l.fetched_at) AS "fetchedTo", COUNT(*) AS postcodes, SUM(l.address_count) AS addresses
         FROM ${POSTCODE_TABLE} s JOIN lookups l ON l.postcode = s.postcode AND l.lookup = $1
        WHERE l.status = 'ok' OR (l.status = 'failed' AND l.address_count > 0)
        GROUP BY l.dataset ORDER BY MIN(l.fetched_at ${BYTE_ORDER}), l.dataset ${BYTE_ORDER}`,
      [lookup],
    );
  }

  async scaleEvidence(): Promise<ScaleEvidence[]> {
    if (!this.has("mobile")) return [];
    const rows = await rowsOf<{ release: string | null; ratings: string; legacy: string }>(this.client, scaleEvidenceSql(POSTCODE_TABLE, this.scope.providers, ` ${BYTE_ORDER}`));
    return rows.map((r) => ({ release: r.release, ratings: Number(r.ratings), legacyRatings: Number(r.legacy) }));
  }

  async ratingCounts(fields: readonly string[], values: readonly number[]): Promise<number[][]> {
    if (!this.has("mobile") || fields.length === 0) return fields.map(() => values.map(() => 0));
    const row = await rowOf<Record<string, unknown>>(this.client, ratingCountsSql(POSTCODE_TABLE, fields, values));
    return ratingCountsOf(row ?? undefined, fields, values);
  }

  async openDataTotals(crossCheckPoints: number): Promise<OpenDataTotals | null> {
    if (!this.scope.openData) return null;
    const mean = (c: string) => `ROUND(AVG(CASE WHEN ${WITHOUT} THEN s.${c} END)::numeric, 1)`;
    const statement = bind(
      `SELECT COUNT(s.${OPEN_DATA_MONTH_COLUMN}) AS "inOpenData",
              COUNT(CASE WHEN ${WITHOUT} THEN 1 END) AS without,
              COUNT(CASE WHEN ${WITHOUT} AND s.${OPEN_DATA_MONTH_COLUMN} IS NOT NULL THEN 1 END) AS "withoutIn",
              ${mean("OfcomSuperfast")} AS superfast, ${mean("OfcomUltrafast")} AS ultrafast,
              ${mean("OfcomGigabit")} AS gigabit, ${mean("OfcomNoDecent")} AS "noDecent",
              COUNT(CASE WHEN ${WITHOUT} AND s.OfcomGigabit >= 100 THEN 1 END) AS "allGigabit",
              COUNT(CASE WHEN ${WITHOUT} AND s.${OPEN_DATA_MONTH_COLUMN} IS NOT NULL AND ${BANDS_SQL} > 1 THEN 1 END) AS "multiBand",
              COUNT(CASE WHEN ${BOTH} THEN 1 END) AS both,
              COUNT(CASE WHEN ${BOTH} AND ABS(${API_SUPERFAST} - s.OfcomSuperfast::numeric) > @points THEN 1 END) AS differing
         FROM ${POSTCODE_TABLE} s`,
      { points: crossCheckPoints },
    );
    const r = (await rowOf<Record<string, number | null>>(this.client, statement.text, statement.values))!;
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
    const cases = binEdges
      .map((edge, i) => ({ edge, i }))
      .reverse()
      .map(({ edge, i }) => `WHEN ${down} >= ${edge} THEN ${i}`)
      .join(" ");
    const bin = cases === "" ? "NULL::int" : `(CASE ${cases} END)`;
    const statement = bind(
      `SELECT ${tierSql("b")} AS tier, ${bin} AS bin, COUNT(*) AS addresses
         FROM ${POSTCODE_TABLE} s JOIN broadband_addresses b ON b.postcode = s.postcode GROUP BY 1, 2`,
    );
    return rowsOf(this.client, statement.text, statement.values);
  }

  async runFacts(): Promise<RunFacts | null> {
    return rowOf<RunFacts>(
      this.client,
      `SELECT id, state, started_at AS "startedAt", ended_at AS "endedAt", requests, retries, throttled, message FROM runs WHERE id = $1`,
      [this.scope.runId],
    );
  }

  async countLocated(located: boolean): Promise<number> {
    const row = await rowOf<{ n: number }>(this.client, `SELECT COUNT(*) AS n FROM ${POSTCODE_TABLE} WHERE ${COORDINATE_COLUMNS[0]} IS ${located ? "NOT " : ""}NULL`);
    return row!.n;
  }

  postcodeRows(columns: readonly string[], filter: PostcodeFilter = "all"): RowBatches<Cell[]> {
    const releases = new Map(Object.entries(RELEASE_COLUMN).map(([lookup, column]) => [column, lookup]));
    const select = columns.map((c) =>
      releases.has(c) ? `(SELECT l.dataset FROM lookups l WHERE l.postcode = s.postcode AND l.lookup = '${releases.get(c)}')` : `s.${c}`,
    );
    const where = filter === "located" ? `WHERE s.${COORDINATE_COLUMNS[0]} IS NOT NULL` : filter === "open-data-and-api" ? `WHERE ${BOTH}` : "";
    return this.rows(bind(`SELECT s.display${select.map((c) => `, ${c}`).join("")} FROM ${POSTCODE_TABLE} s ${where} ORDER BY s.display`));
  }

  openDataVsApi(): RowBatches<Cell[]> {
    return this.rows(
      bind(
        `SELECT s.display, s.${OPEN_DATA_MONTH_COLUMN}, s.OfcomSuperfast, s.BroadbandAddresses, ${API_SUPERFAST}, ROUND(${API_SUPERFAST} - s.OfcomSuperfast::numeric, 1)
           FROM ${POSTCODE_TABLE} s WHERE ${BOTH} ORDER BY s.display`,
      ),
    );
  }

  broadbandAddresses(): RowBatches<BroadbandAddressRow> {
    if (!this.has("broadband")) return none();
    return this.rows(
      bind(
        `SELECT s.display, b.uprn::text, b.address, ${speedsSql("b")}, ${tierSql("b")}
           FROM ${POSTCODE_TABLE} s JOIN broadband_addresses b ON b.postcode = s.postcode
          ORDER BY s.display, b.uprn`,
      ),
    );
  }

  mobileAddresses(goodRating: number): RowBatches<MobileAddressRow> {
    if (!this.has("mobile")) return none();
    return this.rows(
      bind(
        `SELECT s.display, m.uprn::text, m.address, ${mobileCellsSql("m", this.scope.providers)}
           FROM ${POSTCODE_TABLE} s JOIN mobile_addresses m ON m.postcode = s.postcode
          ORDER BY s.display, m.uprn`,
        { good: goodRating },
      ),
    ) as unknown as RowBatches<MobileAddressRow>;
  }

  enrichedRows(columns: readonly string[], goodRating: number, property: { index: number } | null): RowBatches<EnrichedRow> {
    const { client, scope } = this;
    return (async function* () {
      const width = Math.max(scope.inputColumns.length, await widestRow(client, scope.runId));
      yield* enrichedRows(client, scope, columns, goodRating, property, width);
    })();
  }

  widestInputRow(): Promise<number> {
    return widestRow(this.client, this.scope.runId);
  }

  longestInputCells(width: number): Promise<(number | null)[]> {
    return longestInputCells(this.client, this.scope.runId, width);
  }

  rejectedRows(): RowBatches<RejectedRow> {
    return this.rows(bind("SELECT line, value, reason FROM run_rows WHERE run_id = @runId AND postcode IS NULL ORDER BY line", { runId: this.scope.runId })) as unknown as RowBatches<RejectedRow>;
  }

  failureRows(): RowBatches<FailureRow> {
    return this.rows(
      bind(
        `SELECT s.display, l.lookup, l.attempts, l.http_status, l.last_error
           FROM ${POSTCODE_TABLE} s JOIN lookups l ON l.postcode = s.postcode
          WHERE l.status = 'failed' AND l.lookup IN (${this.requested})
          ORDER BY s.display, l.lookup ${BYTE_ORDER}`,
      ),
    ) as unknown as RowBatches<FailureRow>;
  }

  groupTotals(countColumns: readonly string[]): RowBatches<GroupTotals> {
    return groupTotals(this.client, countColumns);
  }

  uprnCandidates(index: number): Promise<UprnCandidate[]> {
    return uprnCandidates(this.client, this.scope, index);
  }

  async answerUprns(postcode: string): Promise<number[]> {
    const sql = this.scope.lookups.map((l) => `SELECT uprn FROM ${LOOKUP_SPECS[l].table} WHERE postcode = $1`).join(" UNION ");
    if (sql === "") return [];
    return (await rowsOf<{ uprn: number }>(this.client, `${sql} ORDER BY 1`, [postcode])).map((r) => r.uprn);
  }

  async runExists(runId: number): Promise<boolean> {
    return (await rowOf(this.client, "SELECT 1 FROM runs WHERE id = $1", [runId])) !== null;
  }

  changedVersions(baseline: Baseline): RowBatches<VersionPair> {
    return changedVersions(this.client, this.versionScope(), baseline);
  }

  anyAnswerCompared(): Promise<boolean> {
    return anyAnswerCompared(this.client, this.versionScope());
  }

  private versionScope() {
    return { runId: this.scope.kind === "run" ? this.scope.runId : null, lookups: this.scope.lookups };
  }

  async answersVersion(): Promise<number> {
    return (await rowOf<{ n: number }>(this.client, "SELECT n FROM answers_version WHERE id = 1"))!.n;
  }

  async outcomeCounts(): Promise<OutcomeCounts | null> {
    return this.scope.kind === "run" ? finalCounts(this.client, this.scope.runId, this.scope.lookups) : null;
  }

  inputRows(): RowBatches<InputRow> {
    if (this.scope.kind !== "run") return none();
    return this.rows(bind("SELECT line, value, postcode, reason, cells FROM run_rows WHERE run_id = @runId ORDER BY line", { runId: this.scope.runId })) as unknown as RowBatches<InputRow>;
  }

  exportTables(): Promise<ExportTableName[]> {
    return exportTables(this.client);
  }

  exportRows(table: ExportTableName, providers: readonly string[]): RowBatches<Cell[]> {
    return exportRows(this.client, this.scope, table, providers, this.areaLoaded);
  }

  exportPackedRows(table: PackedExportTable, providers: readonly string[]): RowBatches<PackedExportRows> {
    return exportPackedRows(this.client, this.scope, table, providers, this.areaLoaded);
  }

  /** One statement's rows as arrays, through a cursor, optionally reshaped; run when the stream is first read. */
  private rows(statement: Bound, shape: (row: Cell[]) => Cell[] = (row) => row): RowBatches<Cell[]> {
    return cursorRows(this.client, statement, (row) => shape(row as Cell[]));
  }
}

/** An empty row stream. */
async function* none<R>(): AsyncGenerator<R[]> {}
