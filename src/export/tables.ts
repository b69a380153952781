// What the export writes: one entry per table, each column with its SQLite expression and its
// typed DuckDB column. Address columns come from the spec's field lists; adding a table (the
// history's versions, say) is one more entry in EXPORT_TABLES.
import { ADDRESS_FIELDS, SPEED_FIELDS, mobileFields } from "../spec/fields.js";
import { displayPostcodeSql } from "../spec/postcode.js";
import { EXPORT_COORDINATES } from "./coordinates.js";
import type { ExportTableName } from "../store/snapshot.js";

/** The DuckDB types the export uses. Speeds stay DOUBLE: the spec's speeds are doubles (0.5 Mbit/s up is real). */
export type ExportType = "VARCHAR" | "BIGINT" | "INTEGER" | "TINYINT" | "DOUBLE" | "BOOLEAN" | "TIMESTAMP";

export interface ExportColumn {
  name: string;
  /** SQLite expression over the table's alias `t` */
  sql: string;
  type: ExportType;
}

export interface ExportScopeSql {
  /** SQLite condition on `t.postcode` limiting rows to the postcodes in scope ("1" for all) */
  postcodeFilter: string;
}

export interface ExportTable {
  /** output name without extension: broadband -> broadband.parquet */
  name: ExportTableName;
  /** the SQLite table read */
  source: string;
  /** written as a Hive-partitioned directory (area=CF/) instead of one file */
  partitionedByArea: boolean;
  /** whether the rows are limited to the postcodes in scope (false: the whole table) */
  scoped: boolean;
  /** the table's columns, given the providers in scope */
  columns(providers: readonly string[]): ExportColumn[];
  /** ORDER BY of the read: the table's key, so that a postcode area arrives in one stretch */
  orderBy: string;
}

const POSTCODE: ExportColumn = { name: ADDRESS_FIELDS[2], sql: displayPostcodeSql("t.postcode"), type: "VARCHAR" };
const addressColumns = (): ExportColumn[] => [
  POSTCODE,
  { name: ADDRESS_FIELDS[0], sql: "t.uprn", type: "BIGINT" },
  { name: ADDRESS_FIELDS[1], sql: "t.address", type: "VARCHAR" },
];
const timestamp = (column: string): ExportColumn => ({ name: column, sql: `t.${column}`, type: "TIMESTAMP" });
const plain = (column: string, type: ExportType): ExportColumn => ({ name: column, sql: `t.${column}`, type });

export const EXPORT_TABLES: readonly ExportTable[] = [
  {
    name: "broadband",
    source: "broadband_addresses",
    partitionedByArea: true,
    scoped: true,
    columns: () => [...addressColumns(), ...SPEED_FIELDS.map((f) => plain(f, "DOUBLE"))],
    orderBy: "t.postcode, t.uprn",
  },
  {
    name: "mobile",
    source: "mobile_addresses",
    partitionedByArea: true,
    scoped: true,
    columns: (providers) => [...addressColumns(), ...mobileFields(providers).map((f) => plain(f, "TINYINT"))],
    orderBy: "t.postcode, t.uprn",
  },
  {
    // One row per postcode and lookup: the latest final answer's status.
    name: "postcodes",
    source: "lookups",
    partitionedByArea: false,
    scoped: true,
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
      ...(["latitude", "longitude"] as const).map(
        (c): ExportColumn => ({ name: c, sql: `(SELECT c.${c} FROM ${EXPORT_COORDINATES} c WHERE c.postcode = t.postcode)`, type: "DOUBLE" }),
      ),
    ],
    orderBy: "t.postcode, t.lookup",
  },
  {
    // The history's versions of each answer (a database without the history has no such table and
    // exports none): an old version's addresses are its content, JSON rows [uprn, address, ...values].
    name: "versions",
    source: "answer_versions",
    partitionedByArea: false,
    scoped: true,
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
    orderBy: "t.postcode, t.lookup, t.id",
  },
  {
    name: "runs",
    source: "runs",
    partitionedByArea: false,
    scoped: false,
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
    orderBy: "t.id",
  },
];

/** The SELECT of these SQLite expressions over one table, in key order (or one row per postcode), limited to the scope's postcodes. */
export function selectSql(table: ExportTable, expressions: readonly string[], scope: ExportScopeSql, perPostcode = false): string {
  const where = table.scoped ? `WHERE ${scope.postcodeFilter}` : "";
  if (perPostcode) return `SELECT ${expressions.join(", ")} FROM ${table.source} t ${where} GROUP BY t.postcode ORDER BY t.postcode`;
  return `SELECT ${expressions.join(", ")} FROM ${table.source} t ${where} ORDER BY ${table.orderBy}`;
}

/** The postcode area of a compact or display postcode: its leading letters (CF10 1AA -> CF). */
export function postcodeArea(postcode: string): string {
  const second = postcode.charCodeAt(1);
  return second >= 65 && second <= 90 ? postcode.slice(0, 2) : postcode.slice(0, 1);
}
