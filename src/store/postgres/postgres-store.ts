// The PostgreSQL store: the Store interface (store.ts) over one connection pool, for teams whose
// machines share one database: every batch holds its own lease, claims its pairs, and
// shares the ledger and the pace. Reports and the export read one snapshot (report/source.ts).
import { sqlSampleStore } from "../sql/sample.js";
import { hostname } from "node:os";
import type pg from "pg";
import { UserError } from "../../errors.js";
import { processAlive } from "../process-identity.js";
import type { Store } from "../store.js";
import { DatabaseError, type LeaseHolder } from "../types.js";
import { connectPostgres } from "./connect.js";
import { databaseError, isDatabaseFailure } from "./errors.js";
import { postgresAnswers } from "./answers.js";
import { postgresClaims } from "./claims.js";
import { postgresInputRows } from "./input-rows.js";
import { postgresLeases, type LeaseContext } from "./leases.js";
import { postgresLedger } from "./ledger.js";
import { postgresOpenData } from "./open-data.js";
import { postgresPace } from "./pace.js";
import { postgresRuns } from "./runs.js";
import { migratePostgres, PG_SCHEMA_VERSION, postgresSchemaVersion } from "./schema.js";
import { postgresStatus } from "./status.js";
import { postgresSnapshotSource } from "./report/source.js";
import { namingFailures } from "../sql/naming.js";
import { sqlPlan } from "../sql/plan.js";
import { sqlAnswerReads } from "../sql/answer-reads.js";
import { sqlReleaseChecks, sqlReleases } from "../sql/releases.js";
import { postgresSession } from "./session.js";
import { postgresTransact } from "./transact.js";

export interface PostgresStoreOptions {
  /** read only: never creates, migrates or changes the store (status, report, export) */
  readonly?: boolean;
  /**
   * With `readonly`: a database of an older schema is migrated first (on a connection of its own
   * that may write), as SQLite's reader does; without it such a database is refused in one line.
   */
  upgrade?: boolean;
  /** whether a lease holder on this host still runs (tests inject one; default: process-identity.ts) */
  isAlive?: (holder: LeaseHolder) => boolean;
}

/** The part with the database's failures turned into one-line DatabaseErrors naming the store (its URL without password). */
function naming<T extends object>(part: T, location: string): T {
  return namingFailures(part, (err) => {
    throw isDatabaseFailure(err) ? databaseError(err, location) : err;
  });
}

/**
 * Checks a reader's database: refuses an empty one or a newer schema; an older one is migrated
 * when `upgrade` (a reader's own connection is read only, so through a connection of its own),
 * else refused, since the reads are written for this program's schema.
 */
async function readableSchema(url: string, pool: pg.Pool, location: string, upgrade: boolean): Promise<void> {
  const version = await postgresSchemaVersion(pool);
  if (version === 0) throw new DatabaseError(`${location} holds no postcode-coverage data yet (run a batch first)`);
  if (version > PG_SCHEMA_VERSION) throw new DatabaseError(`${location} has schema version ${version}; this program knows up to ${PG_SCHEMA_VERSION}`);
  if (version === PG_SCHEMA_VERSION) return;
  if (!upgrade)
    throw new DatabaseError(`${location} has schema version ${version}, older than this program's ${PG_SCHEMA_VERSION}: run a batch or \`report\` once to upgrade it`);
  const writer = await connectPostgres(url, {});
  try {
    await migratePostgres(writer.pool, location);
  } finally {
    await writer.close();
  }
}

/** Opens the store at `url` (creating and migrating its schema unless read only). Throws DatabaseError naming it. */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<Store> {
  const connection = await connectPostgres(url, options.readonly ? { readOnly: true } : {});
  const { pool, location } = connection;
  try {
    if (options.readonly) await readableSchema(url, pool, location, options.upgrade === true);
    else await migratePostgres(pool, location);
  } catch (err) {
    await connection.close().catch(() => {});
    throw err instanceof UserError ? err : databaseError(err, location);
  }
  const ctx: LeaseContext = { here: hostname(), isAlive: options.isAlive ?? ((holder) => processAlive(holder.pid, holder.process)) };
  const session = postgresSession(pool, { inTransaction: false });
  const transact = postgresTransact(pool);
  return {
    engine: "postgres",
    location,
    runs: naming(postgresRuns(pool, ctx), location),
    inputRows: naming(postgresInputRows(pool, session), location),
    answers: naming({ ...postgresAnswers(pool, location), ...sqlAnswerReads(session) }, location),
    releases: naming(sqlReleases(session, transact), location),
    plan: naming(sqlPlan(session, transact), location),
    ledger: naming(postgresLedger(pool), location),
    leases: naming(postgresLeases(pool, ctx), location),
    claims: naming(postgresClaims(pool, ctx), location),
    pace: naming(postgresPace(pool), location),
    releaseChecks: naming(sqlReleaseChecks(session), location),
    openData: naming(postgresOpenData(pool, session), location),
    status: naming(postgresStatus(pool, ctx), location),
    sample: naming(sqlSampleStore(session), location),
    snapshot: postgresSnapshotSource(pool, location).snapshot,
    close: () => connection.close(),
  };
}
