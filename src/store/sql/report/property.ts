// An input row's property (--uprn-column), as SQL over run_rows r: the joins to the stored
// addresses (aliases pb, pm), whether the row names a UPRN and any answer holds it, the property's
// cells, and the enriched rows' query.
import { mobileField } from "../../../contract/fields.js";
import { goodColumns } from "../../../figures/measures.js";
import { MOBILE_GOOD_COLUMN, UPRN_NOT_FOUND } from "../../../figures/postcode-columns.js";
import type { Cell, EnrichedRow, ReportScope } from "../../snapshot.js";
import type { Dialect } from "../dialect.js";
import { goodSql, tierSql } from "../measures.js";

/** The UPRN a row names in its cell at `index`, as an integer (NULL when the cell is not one). */
const uprnSql = (d: Dialect, cells: string, index: number) => d.uprn(`trim(${d.cell(cells, index)})`);

/** The joins that find the row's property (aliases pb, pm), for a query over run_rows r. */
export function propertyJoinSql(d: Dialect, scope: ReportScope, index: number): string {
  const uprn = uprnSql(d, "r.cells", index);
  return [
    scope.lookups.includes("broadband") ? `LEFT JOIN broadband_addresses pb ON pb.postcode = r.postcode AND pb.uprn = ${uprn}` : "",
    scope.lookups.includes("mobile") ? `LEFT JOIN mobile_addresses pm ON pm.postcode = r.postcode AND pm.uprn = ${uprn}` : "",
  ].join(" ");
}

/** Whether the row names a UPRN (non-blank) and whether any answer holds it: decides uprn_not_found. */
export function propertyFoundSql(d: Dialect, scope: ReportScope, index: number): { named: string; found: string } {
  const found = [scope.lookups.includes("broadband") ? "pb.uprn IS NOT NULL" : "", scope.lookups.includes("mobile") ? "pm.uprn IS NOT NULL" : ""].filter(Boolean);
  return { named: `trim(COALESCE(${d.cell("r.cells", index)}, '')) <> ''`, found: found.length > 0 ? `(${found.join(" OR ")})` : d.falseSql };
}

/** The property's cells: down, up, tier, the good yes/no cells, each provider's indoor data and voice ratings, then the good rating of its answer (postcode table f). */
function propertySelectSql(scope: ReportScope): string {
  const bb = scope.lookups.includes("broadband");
  const mb = scope.lookups.includes("mobile");
  const ratings = scope.providers.flatMap((p) => [mobileField(p, "Data", "Indoor"), mobileField(p, "Voice", "Indoor")]);
  return [
    bb ? "pb.MaxPredictedDown" : "NULL",
    bb ? "pb.MaxPredictedUp" : "NULL",
    bb ? `CASE WHEN pb.uprn IS NULL THEN NULL ELSE ${tierSql("pb")} END` : "NULL",
    ...goodColumns(scope.providers).map((g) => (mb ? `CASE WHEN pm.uprn IS NULL THEN NULL ELSE ${goodSql(`pm.${g.rating}`, `f.${MOBILE_GOOD_COLUMN}`)} END` : "NULL")),
    ...ratings.map((r) => (mb ? `pm.${r}` : "NULL")),
    mb ? `f.${MOBILE_GOOD_COLUMN}` : "NULL",
  ].join(", ");
}

/**
 * The run's input rows in input order with their postcode's figures (the postcode table's
 * `columns`) and, with a property column, its property's cells; `toRow` shapes a result row.
 */
export function enrichedRowsQuery(
  d: Dialect,
  scope: ReportScope,
  postcodeTable: string,
  columns: readonly string[],
  property: { index: number } | null,
  width: number,
): { sql: string; params: Record<string, unknown>; toRow: (row: Cell[]) => EnrichedRow } {
  const found = property ? propertyFoundSql(d, scope, property.index) : null;
  const status = found
    ? `CASE WHEN r.postcode IS NULL THEN 'invalid' WHEN f.Status = 'ok' AND ${found.named} AND NOT ${found.found} THEN '${UPRN_NOT_FOUND}' ELSE f.Status END`
    : "CASE WHEN r.postcode IS NULL THEN 'invalid' ELSE f.Status END";
  const sql = `SELECT r.cells, f.display, ${status}${columns.map((c) => `, f.${c}`).join("")}${property ? `, ${propertySelectSql(scope)}` : ""}
                 FROM run_rows r LEFT JOIN ${postcodeTable} f ON f.postcode = r.postcode ${property ? propertyJoinSql(d, scope, property.index) : ""}
                WHERE r.run_id = @runId ORDER BY r.line`;
  const params = { runId: scope.runId };
  const figureCells = 2 + columns.length;
  const toRow = ([cells, ...rest]: Cell[]): EnrichedRow => {
    const input = JSON.parse(cells as string) as string[];
    while (input.length < width) input.push("");
    return { cells: input, figures: property ? rest.slice(0, figureCells) : rest, property: property ? rest.slice(figureCells) : null };
  };
  return { sql, params, toRow };
}
