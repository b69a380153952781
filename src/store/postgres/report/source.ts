// The PostgreSQL engine's SnapshotSource. A snapshot is one REPEATABLE READ transaction on one
// pooled connection: every statement of the work sees the database as it was at its first read,
// while batches on other machines go on writing. PostgreSQL refuses CREATE in a read-only
// transaction, even of a temporary table, so the transaction starts read-write, resolves the
// scope, creates its temporary tables (ON COMMIT DROP), and then turns read only (SET TRANSACTION
// READ ONLY) before the work: from there the server refuses any write but to those tables.
import pg from "pg";
import { UserError } from "../../../errors.js";
import type { ReportSnapshot, ScopeRequest, SnapshotSource } from "../../snapshot.js";
import { databaseError } from "../errors.js";
import { checkOut } from "../connect.js";
import { createTemporaryTables } from "./postcode-table.js";
import { resolveScope } from "./scope.js";
import { PostgresReportSnapshot } from "./snapshot.js";
import { hideExpired } from "./expiry-views.js";

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
        const hiding = await hideExpired(client, request.nowMs ?? Date.now());
        const scope = await resolveScope(client, request);
        await createTemporaryTables(client, scope);
        await client.query("SET TRANSACTION READ ONLY");
        const result = await work(new PostgresReportSnapshot(client, scope));
        // nothing to keep: a rollback also drops the views that hid expired answers
        await client.query(hiding ? "ROLLBACK" : "COMMIT");
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
