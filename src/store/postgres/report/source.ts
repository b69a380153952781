// The PostgreSQL engine's SnapshotSource. A snapshot is one REPEATABLE READ transaction on one
// pooled connection: every statement of the work sees the database as it was at its first read,
// while batches on other machines go on writing. PostgreSQL refuses CREATE in a read-only
// transaction, even of a temporary table, so the transaction starts read-write, resolves the
// scope, creates its temporary tables (ON COMMIT DROP; SqlReportSnapshot.open), and then turns read only (SET TRANSACTION
// READ ONLY) before the work: from there the server refuses any write but to those tables.
import pg from "pg";
import { UserError } from "../../../errors.js";
import type { ReportSnapshot, ScopeRequest, SnapshotSource } from "../../snapshot.js";
import { databaseError } from "../errors.js";
import { checkOut } from "../connect.js";
import type { AreaRowsInsert } from "../../sql/report/area.js";
import { POSTCODE_TABLE } from "../../sql/report/postcode-table.js";
import { SqlReportSnapshot } from "../../sql/report/snapshot.js";
import { postgresSession } from "../session.js";

/** --area-file's rows, one statement a batch: four arrays kept in order (WITH ORDINALITY) so the first of a postcode wins. */
function areaRowsInsert(client: pg.PoolClient): AreaRowsInsert {
  return async (table, rows) => {
    for await (const batch of rows) {
      if (batch.length === 0) continue;
      await client.query(
        `INSERT INTO ${table} (postcode, cells, latitude, longitude)
         SELECT r.postcode, r.cells, r.latitude, r.longitude
           FROM unnest($1::text[], $2::text[], $3::float8[], $4::float8[]) WITH ORDINALITY AS r(postcode, cells, latitude, longitude, i)
          WHERE EXISTS (SELECT 1 FROM ${POSTCODE_TABLE} s WHERE s.postcode = r.postcode)
          ORDER BY r.i
         ON CONFLICT (postcode) DO NOTHING`,
        [batch.map((b) => b.postcode), batch.map((b) => JSON.stringify(b.cells)), batch.map((b) => b.latitude), batch.map((b) => b.longitude)],
      );
    }
  };
}

/**
 * A failure of the server or the connection (pg's error, or a connection that ended), not the
 * work's own: narrower than errors.ts's isDatabaseFailure, since the work writes files, and a file
 * error carries a code too (EACCES is the report folder's, not the database's).
 */
function isServerFailure(err: unknown): boolean {
  if (!(err instanceof Error) || err instanceof UserError) return false;
  return err instanceof pg.DatabaseError || /^Connection terminated|^timeout exceeded when trying to connect|^Client has encountered a connection error/.test(err.message);
}

export function postgresSnapshotSource(pool: pg.Pool, location: string): SnapshotSource {
  return {
    async snapshot<T>(request: ScopeRequest, work: (snapshot: ReportSnapshot) => Promise<T>, options: { onWarning?: (message: string) => void } = {}): Promise<T> {
      let client: pg.PoolClient;
      try {
        client = await checkOut(pool);
      } catch (err) {
        throw databaseError(err, location, "cannot connect to");
      }
      let broken = false;
      try {
        // READ WRITE said outright: a store opened read only (default_transaction_read_only) could not create the tables
        await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ WRITE");
        const snapshot = await SqlReportSnapshot.open({ session: postgresSession(client, { inTransaction: true }), insertAreaRows: areaRowsInsert(client) }, request);
        await client.query("SET TRANSACTION READ ONLY");
        const result = await work(snapshot);
        // nothing to keep: a rollback also drops the views that hid expired answers
        await client.query(snapshot.hidingExpired ? "ROLLBACK" : "COMMIT");
        return result;
      } catch (err) {
        // the rollback drops the temporary tables; a connection that cannot even roll back is dropped, not pooled
        await client.query("ROLLBACK").catch((rollbackError: unknown) => {
          broken = true;
          options.onWarning?.(`could not end the snapshot of ${location} cleanly: ${(rollbackError as Error).message}`);
        });
        throw isServerFailure(err) ? databaseError(err, location) : err;
      } finally {
        client.release(broken);
      }
    },
  };
}
