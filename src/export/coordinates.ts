// The export's latitude and longitude per postcode: read from --area-file as the reports read it
// (area-file.ts: streamed, only the postcodes in scope kept) into a temporary table that the
// postcodes table's columns look up; empty without an area file, so the columns are always there.
import type { Db } from "../store/sqlite/db.js";
import { loadAreaFile, readAreaHeader } from "../report/area-file.js";
import { AREA_TABLE, dropAreaTable } from "../store/sqlite/report/area.js";
import { createPostcodeTable, dropPostcodeTable } from "../store/sqlite/report/postcode-table.js";
import { SqliteReportSnapshot } from "../store/sqlite/report/snapshot.js";
import type { ReportScope } from "../report/scope.js";

export const EXPORT_COORDINATES = "temp.export_coordinates";

/** Fills EXPORT_COORDINATES from the area file (when given); returns how many postcodes it placed. */
export async function loadExportCoordinates(db: Db, scope: ReportScope, areaFile: string | undefined): Promise<number> {
  db.exec(`DROP TABLE IF EXISTS ${EXPORT_COORDINATES}`);
  db.exec(`CREATE TABLE ${EXPORT_COORDINATES} (postcode TEXT PRIMARY KEY, latitude REAL NOT NULL, longitude REAL NOT NULL) WITHOUT ROWID`);
  if (areaFile === undefined) return 0;
  const header = await readAreaHeader(areaFile);
  // the area file keeps only the postcodes of the report's postcode table: the scope's
  createPostcodeTable(db, scope);
  try {
    const load = await loadAreaFile(new SqliteReportSnapshot(db, scope), header, []);
    db.exec(`INSERT INTO ${EXPORT_COORDINATES} SELECT postcode, latitude, longitude FROM ${AREA_TABLE} WHERE latitude IS NOT NULL`);
    return load.located;
  } finally {
    dropAreaTable(db);
    dropPostcodeTable(db);
  }
}

export function dropExportCoordinates(db: Db): void {
  db.exec(`DROP TABLE IF EXISTS ${EXPORT_COORDINATES}`);
}
