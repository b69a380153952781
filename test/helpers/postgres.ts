// Tests on a real PostgreSQL server: the run's throwaway server (postgres-server.ts, started by
// test/global-setup.ts) and a new database per test, reached over its Unix socket with no password.
import pg from "pg";
import { beforeAll, inject } from "vitest";
import { connectPostgres } from "../../src/store/postgres/connect.js";
import { migratePostgres, PG_SCHEMA_VERSION } from "../../src/store/postgres/schema.js";
import { PASSWORD_ROLE } from "./postgres-server.js";
import { requiresTool, TOOLS } from "./requires-tool.js";

export interface ProvidedPostgres {
  socketDir: string;
  user: string;
  /** why the server did not start although the package is installed; null when it runs */
  failure: string | null;
}

declare module "vitest" {
  export interface ProvidedContext {
    /** absent when the package is missing */
    postgres?: ProvidedPostgres;
  }
}

/**
 * Whether this file's PostgreSQL tests skip: outside CI when the package is missing (the run ends
 * naming `apt-get install postgresql`); with CI=true they fail, as they do wherever the package is
 * installed but the server did not start.
 */
export function requiresPostgres(): { skip: boolean } {
  const need = requiresTool(TOOLS.postgresql);
  if (need.skip) return need;
  const server = inject("postgres");
  if (server && server.failure === null) return need;
  beforeAll(() => {
    throw new Error(`the test PostgreSQL server did not start: ${server?.failure ?? "the package is missing"}`);
  });
  return need;
}

/** The URL of `database` on the run's server (no password: the socket trusts its user). */
export function postgresUrl(database: string): string {
  const server = inject("postgres")!;
  return `postgres://${server.user}@/${database}?host=${server.socketDir}`;
}

let made = 0;

/** The template holding this program's schema: made once per server, by the first test to need it. */
const SCHEMA_TEMPLATE = `pcc_schema_v${PG_SCHEMA_VERSION}`;
/** An advisory lock number of the tests' own, held while the template is made. */
const TEMPLATE_LOCK = 7_316_402_212;

async function ensureSchemaTemplate(admin: pg.Client): Promise<void> {
  await admin.query("SELECT pg_advisory_lock($1)", [TEMPLATE_LOCK]);
  try {
    if ((await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [SCHEMA_TEMPLATE])).rowCount === 1) return;
    await admin.query(`CREATE DATABASE ${SCHEMA_TEMPLATE}_making STRATEGY = FILE_COPY`);
    const made = await connectPostgres(postgresUrl(`${SCHEMA_TEMPLATE}_making`));
    try {
      await migratePostgres(made.pool, made.location);
    } finally {
      await made.close();
    }
    // renamed only once whole: a failure above leaves no half-made template behind its name
    await admin.query(`ALTER DATABASE ${SCHEMA_TEMPLATE}_making RENAME TO ${SCHEMA_TEMPLATE}`);
  } finally {
    await admin.query("SELECT pg_advisory_unlock($1)", [TEMPLATE_LOCK]);
  }
}

/**
 * A new database on the run's server; its URL. Empty, or with `{ schema: true }` a copy of a
 * template already holding the store's schema, which saves each test the migration (about 0.2 s).
 */
export async function freshPostgresDatabase(options: { schema?: boolean } = {}): Promise<string> {
  const name = `t_${process.pid}_${++made}`;
  const admin = new pg.Client({ connectionString: postgresUrl("postgres") });
  await admin.connect();
  try {
    if (options.schema) await ensureSchemaTemplate(admin);
    await admin.query(`CREATE DATABASE ${name} ${options.schema ? `TEMPLATE ${SCHEMA_TEMPLATE} ` : ""}STRATEGY = FILE_COPY`);
  } finally {
    await admin.end();
  }
  return postgresUrl(name);
}

/** Creates (once per server) the role that must give a password, with this one; returns its name. */
export async function passwordRole(password: string): Promise<string> {
  const admin = new pg.Client({ connectionString: postgresUrl("postgres") });
  await admin.connect();
  try {
    // several test files may ask at once
    await admin.query(`DO $$ BEGIN CREATE ROLE ${PASSWORD_ROLE} LOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`);
    await admin.query(`ALTER ROLE ${PASSWORD_ROLE} PASSWORD '${password.replace(/'/g, "''")}'`);
  } finally {
    await admin.end();
  }
  return PASSWORD_ROLE;
}

/** Drops a database freshPostgresDatabase made (its connections closed first). */
export async function dropPostgresDatabase(url: string): Promise<void> {
  const name = /^postgres(?:ql)?:\/\/[^/]*\/(\w+)/.exec(url)![1]!;
  const admin = new pg.Client({ connectionString: postgresUrl("postgres") });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
