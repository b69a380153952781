// The groups (--group-by): one temporary table of (dimension, group, postcode, input rows), then
// one aggregate over it joined to the postcode table, streamed in order. The postcode's parts are
// the dialect's (SQLite asks the `postcode` package through a function, PostgreSQL takes
// substrings); the engines test (test/report-engines.test.ts) holds the two to the same groups.
import { ADDRESSES_COLUMN } from "../../../figures/postcode-columns.js";
import { BLANK_GROUP, INVALID_GROUP, UNMATCHED_GROUP, type GroupDimension, type GroupTotals, type ReportScope, type RowBatches } from "../../snapshot.js";
import type { Dialect } from "../dialect.js";
import type { SqlSession } from "../session.js";
import { AREA_TABLE, GROUP_TABLE, POSTCODE_TABLE } from "./postcode-table.js";

/** A trimmed cell, or (blank) when empty or missing. */
const cellValue = (d: Dialect, json: string, index: number) => `COALESCE(NULLIF(trim(${d.cell(json, index)}), ''), '${BLANK_GROUP}')`;

function valueSql(d: Dialect, g: GroupDimension): string {
  switch (g.source) {
    case "postcode":
      return `CASE WHEN x.postcode IS NULL THEN '${INVALID_GROUP}' ELSE COALESCE(${d.postcodePart(g.part!, "x.postcode")}, '${INVALID_GROUP}') END`;
    case "input":
      return cellValue(d, "x.cells", g.index);
    case "area-file":
      return `CASE WHEN x.postcode IS NULL THEN '${INVALID_GROUP}' WHEN a.postcode IS NULL THEN '${UNMATCHED_GROUP}' ELSE ${cellValue(d, "a.cells", g.index)} END`;
  }
}

/**
 * Fills the group table: for each dimension, its (group, postcode) pairs with the input rows
 * behind each. Needs the postcode table (and the area table for area-file dimensions).
 */
export async function buildGroupTable(q: SqlSession, scope: ReportScope, dimensions: readonly GroupDimension[]): Promise<void> {
  await q.exec(`DELETE FROM ${GROUP_TABLE}`);
  const source =
    scope.kind === "run"
      ? "SELECT r.postcode AS postcode, r.cells AS cells, 1 AS n FROM run_rows r WHERE r.run_id = @runId"
      : `SELECT s.postcode AS postcode, '[]' AS cells, 0 AS n FROM ${POSTCODE_TABLE} s`;
  for (const [dim, d] of dimensions.entries()) {
    const join = d.source === "area-file" ? `LEFT JOIN ${AREA_TABLE} a ON a.postcode = x.postcode` : "";
    await q.exec(
      `INSERT INTO ${GROUP_TABLE} (dim, grp, postcode, n)
       SELECT ${dim}, ${valueSql(q.dialect, d)} AS grp, x.postcode, SUM(x.n) FROM (${source}) x ${join} GROUP BY 2, x.postcode`,
      scope.kind === "run" ? { runId: scope.runId } : {},
    );
  }
}

/** The group rows, dimension by dimension, groups sorted by name with the bracketed ones last. */
export async function* groupTotals(q: SqlSession, countColumns: readonly string[]): RowBatches<GroupTotals> {
  // a group none of whose postcodes has an answer has no figures: empty, not 0
  const sum = (column: string) => `SUM(s.${column})`;
  const sql = `SELECT g.dim, g.grp, SUM(g.n), COUNT(g.postcode), ${sum("Addresses")},
                      ${sum(ADDRESSES_COLUMN.broadband)}, ${sum(ADDRESSES_COLUMN.mobile)}${countColumns.map((c) => `, ${sum(c)}`).join("")}
                 FROM ${GROUP_TABLE} g LEFT JOIN ${POSTCODE_TABLE} s ON s.postcode = g.postcode
                GROUP BY g.dim, g.grp
                ORDER BY g.dim, g.grp IN ('${BLANK_GROUP}', '${UNMATCHED_GROUP}', '${INVALID_GROUP}'), g.grp`;
  for await (const batch of q.stream(sql))
    yield batch.map((r) => ({
      dimension: r[0] as number,
      group: r[1] as string,
      inputRows: r[2] as number,
      postcodes: r[3] as number,
      addresses: r[4] as number | null,
      broadbandAddresses: r[5] as number | null,
      mobileAddresses: r[6] as number | null,
      counts: Object.fromEntries(countColumns.map((c, i) => [c, r[7 + i] as number | null])),
    }));
}
