// The SQLite engine's SnapshotSource: a snapshot is one read transaction on the database, its scope
// resolved inside it (the shared SqlReportSnapshot over the connection's session), its temp tables
// and views dropped after the work (also after a failure, whose cleanup errors are reported, never
// thrown over it).
import Database from "better-sqlite3";
import { DatabaseError, type Db } from "../db.js";
import type { AreaRow, GroupDimension, ReportSnapshot, ScopeRequest, SnapshotSource } from "../../snapshot.js";
import { cleanupAfter } from "../../../errors.js";
import { AREA_TABLE, GROUP_TABLE, POSTCODE_TABLE } from "../../sql/report/postcode-table.js";
import { SqlReportSnapshot } from "../../sql/report/snapshot.js";
import { POSTCODE_PART_FUNCTION } from "../dialect.js";
import { sqliteSession } from "../session.js";
import { showExpired } from "./expiry-views.js";

type Part = NonNullable<GroupDimension["part"]>;
// The district is the outward code (SW1A), as Royal Mail and the ONS directory name it; the package's
// toDistrict would give SW1, which is no postcode district of its own. Read off the compact form as
// PostgreSQL's dialect does (postcodePart), so GIR 0AA, outside the package's pattern, has its parts too.
const outward = (p: string) => p.slice(0, -3);
const PARTS: Record<Part, (postcode: string) => string | null> = {
  area: (p) => /^[A-Z]+/.exec(p)?.[0] ?? null,
  district: outward,
  sector: (p) => `${outward(p)} ${p.charAt(p.length - 3)}`,
};

/** --area-file's rows, one insert each in a transaction a batch: the first row of a postcode wins (INSERT OR IGNORE). */
function areaRowsInsert(db: Db) {
  return async (table: string, rows: AsyncIterable<readonly AreaRow[]>): Promise<void> => {
    const insert = db.prepare(
      `INSERT OR IGNORE INTO ${table} (postcode, cells, latitude, longitude)
       SELECT @postcode, @cells, @latitude, @longitude WHERE EXISTS (SELECT 1 FROM ${POSTCODE_TABLE} WHERE postcode = @postcode)`,
    );
    const insertMany = db.transaction((batch: readonly AreaRow[]) => {
      for (const b of batch) insert.run({ postcode: b.postcode, cells: JSON.stringify(b.cells), latitude: b.latitude, longitude: b.longitude });
    });
    for await (const batch of rows) insertMany(batch);
  };
}

export function sqliteSnapshotSource(db: Db): SnapshotSource {
  return {
    async snapshot<T>(request: ScopeRequest, work: (snapshot: ReportSnapshot) => Promise<T>, options: { onWarning?: (message: string) => void } = {}): Promise<T> {
      const ownTransaction = !db.inTransaction;
      if (ownTransaction) db.exec("BEGIN");
      const cleanUp = (afterFailure: boolean) => {
        const drop = () => [GROUP_TABLE, AREA_TABLE, POSTCODE_TABLE].forEach((t) => db.exec(`DROP TABLE IF EXISTS temp.${t}`));
        for (const step of [drop, () => showExpired(db), () => ownTransaction && db.inTransaction && db.exec("COMMIT")])
          if (afterFailure) cleanupAfter(step, (m) => options.onWarning?.(m));
          else step();
      };
      let result: T;
      try {
        db.function(POSTCODE_PART_FUNCTION, { deterministic: true }, (kind: unknown, postcode: unknown) => PARTS[kind as Part](String(postcode)));
        result = await work(await SqlReportSnapshot.open({ session: sqliteSession(db), insertAreaRows: areaRowsInsert(db) }, request));
      } catch (err) {
        cleanUp(true);
        throw err;
      }
      cleanUp(false);
      return result;
    },
  };
}

/** An SQLite failure while reading as one line naming the database (a damaged file, a vanished one). */
export function readFailure(err: unknown, path: string): unknown {
  return err instanceof Database.SqliteError ? new DatabaseError(`cannot read ${path}: ${err.message}`) : err;
}
