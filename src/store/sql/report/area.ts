// --area-file: the rows of postcodes in scope kept in the snapshot's area table (postcode, cells as
// a JSON array, coordinates) that the groups join, their coordinates copied into the postcode
// table. Putting the rows in is the engine's bulk path (AreaRowsInsert): the first row of a
// postcode wins, a postcode out of scope is skipped.
import { COORDINATE_COLUMNS } from "../../../figures/coordinates.js";
import type { AreaMatch, AreaRow } from "../../snapshot.js";
import type { SqlSession } from "../session.js";
import { AREA_TABLE, POSTCODE_TABLE } from "./postcode-table.js";

/** An engine's insert of --area-file's rows into AREA_TABLE (kept only for postcodes in POSTCODE_TABLE; the first of a postcode wins). */
export type AreaRowsInsert = (table: string, rows: AsyncIterable<readonly AreaRow[]>) => Promise<void>;

export async function loadArea(q: SqlSession, insert: AreaRowsInsert, rows: AsyncIterable<readonly AreaRow[]>): Promise<AreaMatch> {
  await q.exec(`DELETE FROM ${AREA_TABLE}`);
  await insert(AREA_TABLE, rows);
  const [lat, lon] = COORDINATE_COLUMNS;
  const located = await q.exec(
    `UPDATE ${POSTCODE_TABLE} AS s SET ${lat} = a.latitude, ${lon} = a.longitude FROM ${AREA_TABLE} a WHERE a.postcode = s.postcode AND a.latitude IS NOT NULL`,
  );
  const { matched, inScope } = (await q.get<{ matched: number; inScope: number }>(
    `SELECT (SELECT COUNT(*) FROM ${AREA_TABLE}) AS matched, (SELECT COUNT(*) FROM ${POSTCODE_TABLE}) AS "inScope"`,
  ))!;
  return { matched, unmatched: inScope - matched, located };
}
