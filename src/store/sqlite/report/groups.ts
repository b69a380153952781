// The groups (--group-by) in SQLite: one temporary table of (dimension, group, postcode, input
// rows), then one aggregate over it joined to the postcode table, streamed in order.
// SQLite-specific: the temp table, json_extract over the stored input cells, and a JavaScript SQL
// function for the postcode's parts (the `postcode` package's rules, so that the groups name the
// parts exactly as the rest of the program does); another engine computes the parts in SQL
// (substrings of the compact postcode) or groups a stream of (part, postcode) rows.
import { toArea, toOutcode, toSector } from "postcode";
import type { Db } from "../db.js";
import { BLANK_GROUP, INVALID_GROUP, UNMATCHED_GROUP, type GroupDimension, type GroupTotals, type ReportScope } from "../../snapshot.js";
import { ADDRESSES_COLUMN } from "../../../figures/postcode-columns.js";
import { POSTCODE_TABLE } from "./postcode-table.js";
import { AREA_TABLE } from "./area.js";

const GROUP_TABLE = "temp.report_groups";
const PART_FUNCTION = "pcc_postcode_part";

type Part = NonNullable<GroupDimension["part"]>;
// The district is the outward code (SW1A), as Royal Mail and the ONS directory name it; the package's
// toDistrict would give SW1, which is no postcode district of its own.
const PARTS: Record<Part, (postcode: string) => string | null> = { area: toArea, district: toOutcode, sector: toSector };

/** A trimmed cell, or (blank) when empty or missing. */
const cellValue = (json: string, index: number) => `COALESCE(NULLIF(trim(json_extract(${json}, '$[${index}]')), ''), '${BLANK_GROUP}')`;

function valueSql(d: GroupDimension): string {
  switch (d.source) {
    case "postcode":
      return `CASE WHEN x.postcode IS NULL THEN '${INVALID_GROUP}' ELSE ${PART_FUNCTION}('${d.part}', x.postcode) END`;
    case "input":
      return cellValue("x.cells", d.index);
    case "area-file":
      return `CASE WHEN x.postcode IS NULL THEN '${INVALID_GROUP}' WHEN a.postcode IS NULL THEN '${UNMATCHED_GROUP}' ELSE ${cellValue("a.cells", d.index)} END`;
  }
}

/**
 * Fills the group table: for each dimension, its (group, postcode) pairs with the input rows
 * behind each. Needs the postcode table (and the area table for area-file dimensions).
 */
export function buildGroupTable(db: Db, scope: ReportScope, dimensions: readonly GroupDimension[]): void {
  db.function(PART_FUNCTION, { deterministic: true }, (kind: unknown, postcode: unknown) => PARTS[kind as Part](String(postcode)) ?? INVALID_GROUP);
  db.exec(`DROP TABLE IF EXISTS ${GROUP_TABLE}`);
  db.exec(`CREATE TABLE ${GROUP_TABLE} (dim INTEGER NOT NULL, grp TEXT NOT NULL, postcode TEXT, n INTEGER NOT NULL)`);
  const source =
    scope.kind === "run"
      ? "SELECT r.postcode AS postcode, r.cells AS cells, 1 AS n FROM run_rows r WHERE r.run_id = @runId"
      : `SELECT s.postcode AS postcode, '[]' AS cells, 0 AS n FROM ${POSTCODE_TABLE} s`;
  dimensions.forEach((d, dim) => {
    const join = d.source === "area-file" ? `LEFT JOIN ${AREA_TABLE} a ON a.postcode = x.postcode` : "";
    db.prepare(
      `INSERT INTO ${GROUP_TABLE} (dim, grp, postcode, n)
       SELECT ${dim}, ${valueSql(d)} AS grp, x.postcode, SUM(x.n) FROM (${source}) x ${join} GROUP BY grp, x.postcode`,
    ).run(scope.kind === "run" ? { runId: scope.runId } : {});
  });
}

export function dropGroupTable(db: Db): void {
  db.exec(`DROP TABLE IF EXISTS ${GROUP_TABLE}`);
}

/** The group rows, dimension by dimension, groups sorted by name with the bracketed ones last. Streams. */
export function* groupTotals(db: Db, countColumns: readonly string[]): Generator<GroupTotals> {
  const sum = (column: string) => `COALESCE(SUM(s.${column}), 0)`;
  const select = db.prepare(
    `SELECT g.dim, g.grp, SUM(g.n) AS inputRows, COUNT(g.postcode) AS postcodes, ${sum("Addresses")} AS addresses,
            ${sum(ADDRESSES_COLUMN.broadband)} AS broadbandAddresses, ${sum(ADDRESSES_COLUMN.mobile)} AS mobileAddresses
            ${countColumns.map((c) => `, ${sum(c)} AS ${c}`).join("")}
       FROM ${GROUP_TABLE} g LEFT JOIN ${POSTCODE_TABLE} s ON s.postcode = g.postcode
      GROUP BY g.dim, g.grp
      ORDER BY g.dim, g.grp IN ('${BLANK_GROUP}', '${UNMATCHED_GROUP}', '${INVALID_GROUP}'), g.grp`,
  );
  for (const r of select.iterate() as Iterable<Record<string, number | string>>)
    yield {
      dimension: r.dim as number,
      group: r.grp as string,
      inputRows: r.inputRows as number,
      postcodes: r.postcodes as number,
      addresses: r.addresses as number,
      broadbandAddresses: r.broadbandAddresses as number,
      mobileAddresses: r.mobileAddresses as number,
      counts: Object.fromEntries(countColumns.map((c) => [c, r[c] as number])),
    };
}
