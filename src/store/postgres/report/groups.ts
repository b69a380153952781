// The groups (--group-by) on PostgreSQL: the snapshot's group table of (dimension, group, postcode,
// input rows), then one aggregate over it joined to the postcode table, read through a cursor.
// PostgreSQL-specific: the postcode's parts are substrings of the compact postcode (SQLite calls
// the `postcode` package from SQL instead); the equality test (test/report-engines.test.ts) holds
// the two to the same groups.
import type pg from "pg";
import { BLANK_GROUP, INVALID_GROUP, UNMATCHED_GROUP, type GroupDimension, type GroupTotals, type ReportScope, type RowBatches } from "../../snapshot.js";
import { bind, cellSql } from "./dialect.js";
import { cursorRows } from "./cursor.js";
import { ADDRESSES_COLUMN } from "../../../figures/postcode-columns.js";
import { AREA_TABLE, GROUP_TABLE, POSTCODE_TABLE } from "./postcode-table.js";

type Part = NonNullable<GroupDimension["part"]>;

/**
 * The parts of a stored (valid, compact, upper-case) postcode: the area is its leading letters, the
 * district its outward code (SW1A, as Royal Mail names it), the sector the outward code and the
 * inward code's digit ("SW1A 1").
 */
function partSql(part: Part, p: string): string {
  const outward = `left(${p}, length(${p}) - 3)`;
  switch (part) {
    case "area":
      return `substring(${p} from '^[A-Z]+')`;
    case "district":
      return outward;
    case "sector":
      return `${outward} || ' ' || substr(${p}, length(${p}) - 2, 1)`;
  }
}

/** A trimmed cell, or (blank) when empty or missing. */
const cellValue = (json: string, index: number) => `COALESCE(NULLIF(trim(${cellSql(json, index)}), ''), '${BLANK_GROUP}')`;

function valueSql(d: GroupDimension): string {
  switch (d.source) {
    case "postcode":
      return `CASE WHEN x.postcode IS NULL THEN '${INVALID_GROUP}' ELSE COALESCE(${partSql(d.part!, "x.postcode")}, '${INVALID_GROUP}') END`;
    case "input":
      return cellValue("x.cells", d.index);
    case "area-file":
      return `CASE WHEN x.postcode IS NULL THEN '${INVALID_GROUP}' WHEN a.postcode IS NULL THEN '${UNMATCHED_GROUP}' ELSE ${cellValue("a.cells", d.index)} END`;
  }
}

/** Fills the group table: per dimension, its (group, postcode) pairs with the input rows behind each. */
export async function buildGroupTable(client: pg.PoolClient, scope: ReportScope, dimensions: readonly GroupDimension[]): Promise<void> {
  await client.query(`DELETE FROM ${GROUP_TABLE}`);
  const source =
    scope.kind === "run"
      ? "SELECT r.postcode AS postcode, r.cells AS cells, 1 AS n FROM run_rows r WHERE r.run_id = @runId"
      : `SELECT s.postcode AS postcode, '[]' AS cells, 0 AS n FROM ${POSTCODE_TABLE} s`;
  for (const [dim, d] of dimensions.entries()) {
    const join = d.source === "area-file" ? `LEFT JOIN ${AREA_TABLE} a ON a.postcode = x.postcode` : "";
    await client.query(
      bind(
        `INSERT INTO ${GROUP_TABLE} (dim, grp, postcode, n)
         SELECT ${dim}, ${valueSql(d)} AS grp, x.postcode, SUM(x.n) FROM (${source}) x ${join} GROUP BY 2, x.postcode`,
        scope.kind === "run" ? { runId: scope.runId } : {},
      ),
    );
  }
}

/** The group rows, dimension by dimension, groups sorted by name with the bracketed ones last. */
export function groupTotals(client: pg.PoolClient, countColumns: readonly string[]): RowBatches<GroupTotals> {
  const sum = (column: string) => `COALESCE(SUM(s.${column}), 0)`;
  const sql = `SELECT g.dim, g.grp, SUM(g.n), COUNT(g.postcode), ${sum("Addresses")},
                      ${sum(ADDRESSES_COLUMN.broadband)}, ${sum(ADDRESSES_COLUMN.mobile)}${countColumns.map((c) => `, ${sum(c)}`).join("")}
                 FROM ${GROUP_TABLE} g LEFT JOIN ${POSTCODE_TABLE} s ON s.postcode = g.postcode
                GROUP BY g.dim, g.grp
                ORDER BY g.dim, g.grp IN ('${BLANK_GROUP}', '${UNMATCHED_GROUP}', '${INVALID_GROUP}'), g.grp`;
  return cursorRows(client, bind(sql), (r) => ({
    dimension: r[0] as number,
    group: r[1] as string,
    inputRows: r[2] as number,
    postcodes: r[3] as number,
    addresses: r[4] as number,
    broadbandAddresses: r[5] as number,
    mobileAddresses: r[6] as number,
    counts: Object.fromEntries(countColumns.map((c, i) => [c, r[7 + i] as number])),
  }));
}
