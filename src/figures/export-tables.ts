// What the export writes: one entry per table, each column with its typed DuckDB column; the
// store reads them (ReportSnapshot.exportRows; src/store/sql/report/export-rows.ts).
// Address columns come from the spec's field lists; adding a table (the history's versions, say)
// is one more entry in EXPORT_TABLES and its source in each engine.
import { ADDRESS_FIELDS, SPEED_FIELDS, mobileFields } from "../contract/fields.js";

/** The DuckDB types the export uses. Speeds stay DOUBLE: the spec's speeds are doubles (0.5 Mbit/s up is real). */
export type ExportType = "VARCHAR" | "BIGINT" | "INTEGER" | "TINYINT" | "DOUBLE" | "BOOLEAN" | "TIMESTAMP";

/** The export's tables. */
export type ExportTableName = "broadband" | "mobile" | "postcodes" | "versions" | "runs" | "releases";

export interface ExportColumn {
  /** the stored column of the same name, except PostCode (display form), UPRN, AddressShortDescription and the coordinates */
  name: string;
  type: ExportType;
}

export interface ExportTable {
  /** output name without extension: broadband -> broadband.parquet */
  name: ExportTableName;
  /** written as a Hive-partitioned directory (area=CF/) instead of one file */
  partitionedByArea: boolean;
  /** keyed by postcode first: crosses from the store packed one postcode a row (ReportSnapshot.exportPackedRows) */
  packed: boolean;
  /** the table's columns, given the providers in scope */
  columns(providers: readonly string[]): ExportColumn[];
}

const POSTCODE: ExportColumn = { name: ADDRESS_FIELDS[2], type: "VARCHAR" };
const addressColumns = (): ExportColumn[] => [POSTCODE, { name: ADDRESS_FIELDS[0], type: "BIGINT" }, { name: ADDRESS_FIELDS[1], type: "VARCHAR" }];
const timestamp = (column: string): ExportColumn => ({ name: column, type: "TIMESTAMP" });
const plain = (column: string, type: ExportType): ExportColumn => ({ name: column, type });

export const EXPORT_TABLES: readonly ExportTable[] = [
  {
    name: "broadband",
    partitionedByArea: true,
    packed: true,
    columns: () => [...addressColumns(), ...SPEED_FIELDS.map((f) => plain(f, "DOUBLE"))],
  },
  {
    name: "mobile",
    partitionedByArea: true,
    packed: true,
    columns: (providers) => [...addressColumns(), ...mobileFields(providers).map((f) => plain(f, "TINYINT"))],
  },
  {
    // One row per postcode and lookup: the latest final answer's status.
    name: "postcodes",
    partitionedByArea: false,
    packed: true,
    columns: () => [
      POSTCODE,
      plain("lookup", "VARCHAR"),
      plain("status", "VARCHAR"),
      plain("http_status", "INTEGER"),
      plain("attempts", "INTEGER"),
      plain("last_error", "VARCHAR"),
      timestamp("fetched_at"),
      plain("run_id", "BIGINT"),
      plain("dataset", "VARCHAR"),
      plain("address_count", "INTEGER"),
      plain("providers", "VARCHAR"),
      plain("simulated", "BOOLEAN"),
      // WGS84 degrees from --area-file; null without one
      ...(["latitude", "longitude"] as const).map((c) => plain(c, "DOUBLE")),
    ],
  },
  {
    // The history's versions of each answer (a database without the history has no such table and
    // exports none): an old version's addresses are its content, JSON rows [uprn, address, ...values].
    name: "versions",
    partitionedByArea: false,
    packed: true,
    columns: () => [
      POSTCODE,
      plain("id", "BIGINT"),
      plain("lookup", "VARCHAR"),
      plain("status", "VARCHAR"),
      plain("hash", "VARCHAR"),
      plain("release", "VARCHAR"),
      timestamp("first_seen"),
      timestamp("last_seen"),
      plain("run_id", "BIGINT"),
      plain("simulated", "BOOLEAN"),
      plain("address_count", "INTEGER"),
      plain("providers", "VARCHAR"),
      plain("content", "VARCHAR"),
    ],
  },
  {
    name: "runs",
    partitionedByArea: false,
    packed: false,
    columns: () => [
      plain("id", "BIGINT"),
      timestamp("started_at"),
      timestamp("ended_at"),
      plain("state", "VARCHAR"),
      plain("exit_code", "INTEGER"),
      plain("simulated", "BOOLEAN"),
      plain("input_name", "VARCHAR"),
      plain("input_columns", "VARCHAR"),
      plain("postcode_column", "VARCHAR"),
      plain("args", "VARCHAR"),
      plain("lookups", "VARCHAR"),
      plain("providers", "VARCHAR"),
      ...["input_rows", "postcodes", "rejects", "ok", "not_found", "failed", "pending", "requests", "retries", "throttled"].map((c) =>
        plain(c, "BIGINT"),
      ),
      plain("message", "VARCHAR"),
    ],
  },
  {
    // Each release of each lookup; a mobile release carries its stored rating scale ("current" or
    // "legacy", contract/mobile-scales.ts) and the evidence: its ratings, and how many are 1 or 2.
    name: "releases",
    partitionedByArea: false,
    packed: false,
    columns: () => [
      plain("id", "BIGINT"),
      plain("lookup", "VARCHAR"),
      plain("name", "VARCHAR"),
      timestamp("detected_at"),
      plain("run_id", "BIGINT"),
      plain("scale", "VARCHAR"),
      plain("scale_ratings", "BIGINT"),
      plain("scale_legacy_ratings", "BIGINT"),
    ],
  },
];

/** The postcode area of a compact or display postcode: its leading letters (CF10 1AA -> CF). */
export function postcodeArea(postcode: string): string {
  const second = postcode.charCodeAt(1);
  return second >= 65 && second <= 90 ? postcode.slice(0, 2) : postcode.slice(0, 1);
}
