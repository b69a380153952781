// --area-file in SQLite: the rows of postcodes in scope kept in a temp table (postcode, cells as a
// JSON array, coordinates) that the groups join, their coordinates copied into the postcode table.
// SQLite-specific: the temp table, INSERT OR IGNORE (first row of a postcode wins) and UPDATE … FROM.
import type { Db } from "../db.js";
import type { AreaMatch, AreaRow } from "../../snapshot.js";
import { COORDINATE_COLUMNS } from "../../../figures/coordinates.js";
import { POSTCODE_TABLE } from "./postcode-table.js";

export const AREA_TABLE = "temp.report_areas";

export async function loadArea(db: Db, rows: AsyncIterable<readonly AreaRow[]>): Promise<AreaMatch> {
  db.exec(`DROP TABLE IF EXISTS ${AREA_TABLE}`);
  db.exec(`CREATE TABLE ${AREA_TABLE} (postcode TEXT PRIMARY KEY, cells TEXT NOT NULL, latitude REAL, longitude REAL) WITHOUT ROWID`);
  const insert = db.prepare(
    `INSERT OR IGNORE INTO ${AREA_TABLE} (postcode, cells, latitude, longitude)
     SELECT @postcode, @cells, @latitude, @longitude WHERE EXISTS (SELECT 1 FROM ${POSTCODE_TABLE} WHERE postcode = @postcode)`,
  );
  const insertMany = db.transaction((batch: readonly AreaRow[]) => {
    for (const b of batch) insert.run({ postcode: b.postcode, cells: JSON.stringify(b.cells), latitude: b.latitude, longitude: b.longitude });
  });
  for await (const batch of rows) insertMany(batch);
  const [lat, lon] = COORDINATE_COLUMNS;
  const located = db
    .prepare(
      `UPDATE ${POSTCODE_TABLE} AS s SET ${lat} = a.latitude, ${lon} = a.longitude
         FROM ${AREA_TABLE} a WHERE a.postcode = s.postcode AND a.latitude IS NOT NULL`,
    )
    .run().changes;
  const matched = db.prepare(`SELECT COUNT(*) FROM ${AREA_TABLE}`).pluck().get() as number;
  const inScope = db.prepare(`SELECT COUNT(*) FROM ${POSTCODE_TABLE}`).pluck().get() as number;
  return { matched, unmatched: inScope - matched, located };
}

export function dropAreaTable(db: Db): void {
  db.exec(`DROP TABLE IF EXISTS ${AREA_TABLE}`);
}

/** Whether --area-file's rows are loaded in this snapshot. */
export function areaLoaded(db: Db): boolean {
  return db.prepare("SELECT 1 FROM sqlite_temp_master WHERE name = 'report_areas'").get() !== undefined;
}
