// One pool of connections to a PostgreSQL database, shared by the store and (later) the report
// snapshot. The URL is the user's `--db`; `pg` adds what it lacks from the PG* environment
// variables and ~/.pgpass (PGPASSFILE), as libpq does. Only the redacted URL is ever shown.
import { userInfo } from "node:os";
import pg from "pg";
import pgpass from "pgpass";
import { databaseError } from "./errors.js";
import { DatabaseError } from "../types.js";
import { redactUrl } from "./url.js";

/** bigint (int8) and numeric as JavaScript numbers: ids, counts and sums stay far below 2^53, and
 * the SQLite engine returns numbers for the same columns. */
const INT8 = 20;
const NUMERIC = 1700;
const TYPES = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8 || oid === NUMERIC ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** What runs a statement: the pool (one statement, its own transaction) or a transaction's client. */
export type Queryable = pg.Pool | pg.PoolClient;

/** The rows of one statement. */
export async function rowsOf<T>(q: Queryable, sql: string, params: readonly unknown[] = []): Promise<T[]> {
  return (await q.query(sql, params as unknown[])).rows as T[];
}

/** The first row of one statement, or null. */
export async function rowOf<T>(q: Queryable, sql: string, params: readonly unknown[] = []): Promise<T | null> {
  return ((await q.query(sql, params as unknown[])).rows[0] as T | undefined) ?? null;
}

export interface PostgresConnection {
  readonly pool: pg.Pool;
  /** the URL without its password: what logs, errors, status and run rows show */
  readonly location: string;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** connections at most (the batch's writers and claim renewal share them) */
  max?: number;
  /** application_name: what pg_stat_activity shows for these connections */
  applicationName?: string;
  /** every transaction read only (status): the server refuses any change */
  readOnly?: boolean;
}

/**
 * The password, asked for only when the server wants one: PGPASSWORD, else the matching line of
 * ~/.pgpass (PGPASSFILE). pg would read the file itself, but that support is deprecated there and
 * warns on stderr (and goes in pg 9), so we call the same reader ourselves. A URL never carries one
 * (refused on the command line).
 */
function passwordFor(params: { host?: string; port?: number; database?: string; user?: string }): Promise<string | undefined> {
  if (process.env.PGPASSWORD !== undefined) return Promise.resolve(process.env.PGPASSWORD);
  return new Promise((resolve) => pgpass(params, resolve));
}

/**
 * A client that asks passwordFor. Given in the config, the function would be lost: pg overlays the
 * connection string's fields on the config, and a URL without a password has an empty one, so pg
 * then reads ~/.pgpass itself, with its deprecation warning on stderr. Set after construction, it
 * is what pg asks when the server wants a password.
 */
class PasswordClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // pg calls it with the connection's parameters and takes undefined for none (its types say neither)
    Object.defineProperty(this, "password", { value: passwordFor, writable: true, enumerable: false, configurable: true });
  }

  // A connection that fails on our side (no password to give) is left open by pg, and its pool
  // drops the client without ending it: the server would keep that half-made session until its
  // authentication_timeout (a minute), and CREATE or DROP DATABASE anywhere on that server waits for it.
  override connect(): Promise<pg.Client>;
  override connect(callback: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): void;
  override connect(callback?: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): Promise<pg.Client> | void {
    if (!callback) return super.connect().catch((err: unknown) => Promise.reject(this.hangUp(err)));
    const done = callback as (err: Error | null, c?: pg.Client) => void;
    super.connect((err: Error | null, c?: pg.Client) => done(err && this.hangUp(err), c));
  }

  private hangUp<E>(err: E): E {
    this.connection.stream.destroy();
    return err;
  }
}

/** Where a missing password is explained (the message names it). */
export const PASSWORD_HELP = "docs/postgres.md#connecting";

/**
 * A URL without a user takes PGUSER, else the OS user, as psql does: pg reads USER instead, which
 * cron does not set, and the server then refuses a start-up packet without a user.
 */
function defaultUserFromOs(): void {
  if (pg.defaults.user) return;
  try {
    pg.defaults.user = userInfo().username;
  } catch {
    // no entry for this uid (a container): the server's message names the missing user
  }
}

/** What the connection failed with, in a form that says what to do when it is the missing password. */
function connectFailure(err: unknown, location: string): Error {
  if (err instanceof Error && /client password must be a string/.test(err.message))
    return new DatabaseError(
      `cannot connect to ${location}: the server asks for a password and none was found: set PGPASSWORD, or add a line host:port:database:user:password to ~/.pgpass (chmod 600; PGPASSFILE names another file); see ${PASSWORD_HELP}`,
      { cause: err },
    );
  return databaseError(err, location, "cannot connect to");
}

/** How long a connection may sit idle inside a transaction: ours never pause between statements. */
export const IDLE_IN_TRANSACTION_MS = 10_000;

/** Connects (one round trip to check it), or throws a one-line DatabaseError naming the redacted URL. */
export async function connectPostgres(url: string, options: ConnectOptions = {}): Promise<PostgresConnection> {
  const location = redactUrl(url);
  defaultUserFromOs();
  const pool = new pg.Pool({
    connectionString: url,
    Client: PasswordClient,
    max: options.max ?? 4,
    application_name: options.applicationName ?? "postcode-coverage",
    types: TYPES,
    connectionTimeoutMillis: 30_000,
    // A process stopped mid-transaction (SIGSTOP, a frozen VM) would hold its row and advisory locks
    // for ever, and every machine taking over its work would wait on them: the server ends such a
    // session after this long, rolling its transaction back (its lease has lapsed or soon will).
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    ...(options.readOnly ? { options: "-c default_transaction_read_only=on" } : {}),
  });
  // An idle connection the server drops (a restart, an admin) must not kill the process: the next
  // query takes a new one, and its failure is reported there.
  pool.on("error", () => {});
  try {
    await pool.query("SELECT 1");
  } catch (err) {
    await pool.end().catch(() => {});
    throw connectFailure(err, location);
  }
  return { pool, location, close: () => pool.end() };
}

/**
 * A connection of the pool for the caller's own use. While it is checked out, the pool no longer
 * hears its "error" events: a connection the server ends (a restart, an administrator) would then
 * be an uncaught exception that kills the process. Its failure is heard here and ignored, since the
 * next query on it rejects with it, where the caller names it.
 */
export async function checkOut(pool: pg.Pool): Promise<pg.PoolClient> {
  const client = await pool.connect();
  const heard = () => {};
  client.on("error", heard);
  const release = client.release.bind(client);
  client.release = (err?: Error | boolean) => {
    client.off("error", heard);
    release(err);
  };
  return client;
}

/**
 * Runs `work` in one transaction on one connection: committed when it resolves, rolled back when it
 * throws (and the error passed on). `commit`: the text that ends it, COMMIT unless statements go with
 * it in the same round trip (leases.ts, commitFence).
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, commit: () => string = () => "COMMIT"): Promise<T> {
  const client = await checkOut(pool);
  let broken = false;
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query(commit());
    return result;
  } catch (err) {
    // a connection that cannot even roll back is dropped, not returned to the pool
    await client.query("ROLLBACK").catch(() => (broken = true));
    throw err;
  } finally {
    client.release(broken);
  }
}
