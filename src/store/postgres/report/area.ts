// --area-file on PostgreSQL: the rows of postcodes in scope kept in the snapshot's area table
// (postcode, cells as a JSON array, coordinates) that the groups join, their coordinates copied
// into the postcode table. The first row of a postcode wins (ON CONFLICT DO NOTHING, as SQLite's
// INSERT OR IGNORE).
import type pg from "pg";
import { COORDINATE_COLUMNS } from "../../../figures/coordinates.js";
import type { AreaMatch, AreaRow } from "../../snapshot.js";
import { AREA_TABLE, POSTCODE_TABLE } from "./postcode-table.js";

export async function loadArea(client: pg.PoolClient, rows: AsyncIterable<readonly AreaRow[]>): Promise<AreaMatch> {
  await client.query(`DELETE FROM ${AREA_TABLE}`);
  for await (const batch of rows) {
    if (batch.length === 0) continue;
    // one statement per batch: the rows travel as four arrays, kept in order (WITH ORDINALITY) so the first of a postcode wins
    await client.query(
      `INSERT INTO ${AREA_TABLE} (postcode, cells, latitude, longitude)
       SELECT r.postcode, r.cells, r.latitude, r.longitude
         FROM unnest($1::text[], $2::text[], $3::float8[], $4::float8[]) WITH ORDINALITY AS r(postcode, cells, latitude, longitude, i)
        WHERE EXISTS (SELECT 1 FROM ${POSTCODE_TABLE} s WHERE s.postcode = r.postcode)
        ORDER BY r.i
       ON CONFLICT (postcode) DO NOTHING`,
      [batch.map((b) => b.postcode), batch.map((b) => JSON.stringify(b.cells)), batch.map((b) => b.latitude), batch.map((b) => b.longitude)],
    );
  }
  const [lat, lon] = COORDINATE_COLUMNS;
  const located = await client.query(
    `UPDATE ${POSTCODE_TABLE} AS s SET ${lat} = a.latitude, ${lon} = a.longitude FROM ${AREA_TABLE} a WHERE a.postcode = s.postcode AND a.latitude IS NOT NULL`,
  );
  const counted = await client.query<{ matched: number; in_scope: number }>(
    `SELECT (SELECT COUNT(*) FROM ${AREA_TABLE}) AS matched, (SELECT COUNT(*) FROM ${POSTCODE_TABLE}) AS in_scope`,
  );
  const { matched, in_scope: inScope } = counted.rows[0]!;
  return { matched, unmatched: inScope - matched, located: located.rowCount ?? 0 };
}
