// The run's input rows with their postcode's figures (enriched.csv, the workbook's Your rows) and,
// with --uprn-column, their property's own: SQL joins the row to the stored address by postcode and
// UPRN. SQLite-specific: json_extract over the stored cells (a JSON array of text) and GLOB.
import { mobileField } from "../../../spec/fields.js";
import type { Db } from "../db.js";
import type { EnrichedRow, ReportScope, UprnCandidate, Cell } from "../../snapshot.js";
import { goodColumns } from "../../../report/measures.js";
import { UPRN_NOT_FOUND } from "../../../report/property-figures.js";
import { goodSql, tierSql } from "../../shared/measures.js";
import { POSTCODE_TABLE } from "./postcode-table.js";

/** The UPRN of the row as an integer: digits only (spaces around allowed), else NULL. */
function uprnSql(cells: string, index: number): string {
  const cell = `trim(json_extract(${cells}, '$[${index}]'))`;
  return `(CASE WHEN ${cell} GLOB '[0-9]*' AND ${cell} NOT GLOB '*[^0-9]*' AND length(${cell}) <= 15 THEN CAST(${cell} AS INTEGER) END)`;
}

/** The joins that find the row's property (aliases pb, pm), for a query over run_rows r. */
function propertyJoinSql(scope: ReportScope, index: number): string {
  const uprn = uprnSql("r.cells", index);
  return [
    scope.lookups.includes("broadband") ? `LEFT JOIN broadband_addresses pb ON pb.postcode = r.postcode AND pb.uprn = ${uprn}` : "",
    scope.lookups.includes("mobile") ? `LEFT JOIN mobile_addresses pm ON pm.postcode = r.postcode AND pm.uprn = ${uprn}` : "",
  ].join(" ");
}

/** Whether the row names a UPRN (non-blank) and whether any answer holds it: decides uprn_not_found. */
function propertyFoundSql(scope: ReportScope, index: number): { named: string; found: string } {
  const found = [scope.lookups.includes("broadband") ? "pb.uprn IS NOT NULL" : "", scope.lookups.includes("mobile") ? "pm.uprn IS NOT NULL" : ""].filter(Boolean);
  return {
    named: `trim(COALESCE(json_extract(r.cells, '$[${index}]'), '')) <> ''`,
    found: found.length > 0 ? `(${found.join(" OR ")})` : "0",
  };
}

/** The property's cells: down, up, tier, the good yes/no cells, then each provider's indoor data and voice ratings. */
function propertySelectSql(scope: ReportScope): string {
  const bb = scope.lookups.includes("broadband");
  const mb = scope.lookups.includes("mobile");
  const ratings = scope.providers.flatMap((p) => [mobileField(p, "Data", "Indoor"), mobileField(p, "Voice", "Indoor")]);
  return [
    bb ? "pb.MaxPredictedDown" : "NULL",
    bb ? "pb.MaxPredictedUp" : "NULL",
    bb ? `CASE WHEN pb.uprn IS NULL THEN NULL ELSE ${tierSql("pb")} END` : "NULL",
    ...goodColumns(scope.providers).map((g) => (mb ? `CASE WHEN pm.uprn IS NULL THEN NULL ELSE ${goodSql(`pm.${g.rating}`)} END` : "NULL")),
    ...ratings.map((r) => (mb ? `pm.${r}` : "NULL")),
  ].join(", ");
}

/** The run's input rows in input order, each padded to `width` cells, with its postcode's figures (and its property's). */
export function* enrichedRows(
  db: Db,
  scope: ReportScope,
  columns: readonly string[],
  goodRating: number,
  property: { index: number } | null,
  width: number,
): Generator<EnrichedRow> {
  const found = property ? propertyFoundSql(scope, property.index) : null;
  const status = found
    ? `CASE WHEN r.postcode IS NULL THEN 'invalid' WHEN f.Status = 'ok' AND ${found.named} AND NOT ${found.found} THEN '${UPRN_NOT_FOUND}' ELSE f.Status END`
    : "CASE WHEN r.postcode IS NULL THEN 'invalid' ELSE f.Status END";
  const select = db
    .prepare(
      `SELECT r.cells, f.display, ${status}${columns.map((c) => `, f.${c}`).join("")}${property ? `, ${propertySelectSql(scope)}` : ""}
         FROM run_rows r LEFT JOIN ${POSTCODE_TABLE} f ON f.postcode = r.postcode ${property ? propertyJoinSql(scope, property.index) : ""}
        WHERE r.run_id = @runId ORDER BY r.line`,
    )
    .raw(true);
  const params = property && scope.lookups.includes("mobile") ? { runId: scope.runId, good: goodRating } : { runId: scope.runId };
  const figureCells = 2 + columns.length;
  for (const [cells, ...rest] of select.iterate(params) as Iterable<Cell[]>) {
    const input = JSON.parse(cells as string) as string[];
    while (input.length < width) input.push("");
    yield { cells: input, figures: property ? rest.slice(0, figureCells) : rest, property: property ? rest.slice(figureCells) : null };
  }
}

/** The longest text of each of the first `width` input cells of the run. */
export function longestInputCells(db: Db, runId: number, width: number): (number | null)[] {
  if (width === 0) return [];
  return db
    .prepare(`SELECT ${Array.from({ length: width }, (_, i) => `MAX(length(json_extract(cells, '$[${i}]')))`).join(", ")} FROM run_rows WHERE run_id = ?`)
    .raw(true)
    .get(runId) as (number | null)[];
}

/** Rows naming a UPRN whose postcode has an ok answer, and whether an address matched it. */
export function uprnCandidates(db: Db, scope: ReportScope, index: number): UprnCandidate[] {
  const { named, found } = propertyFoundSql(scope, index);
  const lookups = scope.lookups.map((l) => `'${l}'`).join(", ");
  const rows = db
    .prepare(
      `SELECT r.line, r.postcode, json_extract(r.cells, '$[${index}]') AS cell, MAX(${found}) AS found
         FROM run_rows r ${propertyJoinSql(scope, index)}
        WHERE r.run_id = ? AND r.postcode IS NOT NULL AND ${named}
          AND EXISTS (SELECT 1 FROM lookups l WHERE l.postcode = r.postcode AND l.status = 'ok' AND l.lookup IN (${lookups}))
        GROUP BY r.line ORDER BY r.line`,
    )
    .all(scope.runId) as { line: number; postcode: string; cell: unknown; found: number }[];
  return rows.map((r) => ({ line: r.line, postcode: r.postcode, cell: String(r.cell), found: Boolean(r.found) }));
}
