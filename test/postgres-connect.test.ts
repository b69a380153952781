// The PostgreSQL engine's connection and schema, on the run's throwaway server: URLs and their
// redaction, one-line connection failures, the PG* variables, and a schema created once when two
// processes open a new database together.
import { afterEach, describe, expect, test } from "vitest";
import { connectPostgres, type PostgresConnection } from "../src/store/postgres/connect.js";
import { ensurePostgresProviderColumns, migratePostgres, PG_MIGRATIONS, PG_SCHEMA_VERSION } from "../src/store/postgres/schema.js";
import { isPostgresUrl, passwordInArgv, redactUrl, urlHasPassword } from "../src/store/postgres/url.js";
import { DatabaseError } from "../src/store/types.js";
import { ConfigError } from "../src/cli/options/config-values.js";
import { BATCH_OPTIONS } from "../src/cli/batch-options.js";
import { dbReadPaths } from "../src/report/set/read-paths.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freshPostgresDatabase, passwordRole, postgresUrl, requiresPostgres } from "./helpers/postgres.js";

/** Sets these variables (undefined: unset) for `work`, then puts each back as it was, whatever `work` changed. */
async function withEnv<T>(vars: Record<string, string | undefined>, work: () => Promise<T>): Promise<T> {
  const assign = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  };
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  assign(vars);
  try {
    return await work();
  } finally {
    assign(saved);
  }
}

describe("PostgreSQL URLs", () => {
  test("postgres:// and postgresql:// select PostgreSQL; a path stays SQLite", () => {
    expect(["postgres://h/db", "postgresql://u@h/db", "POSTGRES:///db"].map(isPostgresUrl)).toEqual([true, true, true]);
    expect(["output/coverage.sqlite", "/tmp/postgres://x", "postgres.sqlite"].map(isPostgresUrl)).toEqual([false, false, false]);
  });

  test("every password is removed from a URL shown, wherever it sits", () => {
    expect(redactUrl("postgres://ana:s3cret@db.example.org:5433/coverage?sslmode=require")).toBe("postgres://ana@db.example.org:5433/coverage?sslmode=require");
    expect(redactUrl("postgresql://db.example.org/coverage?user=ana&password=s3cret&sslmode=require")).toBe(
      "postgresql://db.example.org/coverage?user=ana&sslmode=require",
    );
    expect(redactUrl("postgres://ana:p%40ss:w@rd@h/db")).toBe("postgres://ana@h/db");
    expect(redactUrl("postgres://ana@/db?host=/run/postgresql")).toBe("postgres://ana@/db?host=/run/postgresql");
  });

  test("a URL with a password is refused on the command line, pointing to PGPASSWORD and ~/.pgpass, without echoing it", () => {
    expect(urlHasPassword("postgres://ana@h/db")).toBe(false);
    expect(passwordInArgv("postgres://ana@h/db", "--db")).toBeNull();
    for (const url of ["postgres://ana:s3cret@h/db", "postgres://h/db?password=s3cret"]) {
      const message = passwordInArgv(url, "--db")!;
      expect(message).toMatch(/^--db postgres:\/\/(ana@)?h\/db: a password in the URL is refused .*PGPASSWORD.*~\/\.pgpass/);
      expect(message).not.toContain("s3cret");
      expect(message).not.toContain("\n");
    }
  });

  test("a password is refused and redacted in every spelling the driver reads: percent-encoded or cased names, a tab inside, sslpassword", () => {
    const spellings = [
      "postgres://h/db?pass%77ord=s3cret",
      "postgres://h/db?%70%61%73%73%77%6f%72%64=s3cret",
      "postgres://h/db?sslmode=require&PassWord=s3cret",
      "postgres://h/db?pass\tword=s3cret",
      "postgres://h/db?sslpassword=s3cret",
      "postgres://ana:s3cret@h/db",
      "postgres://an%61:s3cret@h/db",
    ];
    for (const url of spellings) {
      expect(urlHasPassword(url), url).toBe(true);
      expect(redactUrl(url), url).not.toContain("s3cret");
      expect(() => BATCH_OPTIONS.db.parse(url, "--db"), url).toThrow(/a password in the URL is refused/);
    }
    expect(redactUrl("postgres://h/db?sslmode=require&pass%77ord=s3cret")).toBe("postgres://h/db?sslmode=require");
    expect(urlHasPassword("postgres://h/db?passwordless=1&user=ana")).toBe(false);
  });

  test("--db takes a URL without a password and refuses one with it; a URL has no file the report set could clash with", () => {
    expect(BATCH_OPTIONS.db.parse("postgres://ana@db.example.org/coverage", "--db")).toBe("postgres://ana@db.example.org/coverage");
    expect(() => BATCH_OPTIONS.db.parse("postgres://ana:s3cret@db.example.org/coverage", "--db")).toThrow(
      new ConfigError(
        "--db postgres://ana@db.example.org/coverage: a password in the URL is refused (the command line is visible to every user of the machine); set PGPASSWORD or put it in ~/.pgpass",
      ),
    );
    expect(dbReadPaths("postgres://ana@db.example.org/coverage")).toEqual([]);
    expect(dbReadPaths("out/coverage.sqlite").map((r) => r.path)).toContain("out/coverage.sqlite-wal");
  });
});

describe("a PostgreSQL server", () => {
  const { skip } = requiresPostgres();
  const opened: PostgresConnection[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((c) => c.close()));
  });
  const open = async (url: string): Promise<PostgresConnection> => {
    const c = await connectPostgres(url);
    opened.push(c);
    return c;
  };

  // A machine stopped inside a transaction frees its locks only when the server ends its session:
  // the team tests rely on the server's timeouts firing, also under CI's libfaketime (.ci/at-utc).
  test.skipIf(skip)("ends a session left idle inside its transaction, with its locks", async () => {
    const c = await open(await freshPostgresDatabase());
    const stopped = await c.pool.connect();
    const ended = new Promise<Error>((resolve) => stopped.once("error", resolve));
    await stopped.query("SET idle_in_transaction_session_timeout = 300");
    await stopped.query("BEGIN");
    await stopped.query("SELECT pg_advisory_xact_lock(1, 2)");
    const reason = await Promise.race([ended, new Promise<null>((r) => setTimeout(() => r(null), 20_000))]);
    stopped.release(true);
    expect(reason?.message ?? "the session was still open 20 s later").toMatch(/idle-in-transaction timeout/);
    const { rows } = await c.pool.query<{ got: boolean }>("SELECT pg_try_advisory_lock(1, 2) AS got");
    expect(rows[0]!.got).toBe(true);
  });

  test.skipIf(skip)("a database that cannot be reached is one DatabaseError line naming the URL without its password", async () => {
    const url = postgresUrl("no_such_database").replace("postgres://postgres@", "postgres://postgres:s3cret@");
    const err = await connectPostgres(url).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DatabaseError);
    const message = (err as Error).message;
    expect(message).toMatch(/^cannot connect to postgres:\/\/postgres@\/no_such_database\?host=\S+: .*database "no_such_database" does not exist/);
    expect(message).not.toContain("s3cret");
    expect(message).not.toContain("\n");
  });

  test.skipIf(skip)("what the URL leaves out comes from the PG* environment variables, as with libpq", async () => {
    const url = await freshPostgresDatabase();
    const host = new URLSearchParams(url.split("?")[1]).get("host")!;
    const database = url.split("/")[3]!.split("?")[0]!;
    await withEnv({ PGHOST: host, PGUSER: "postgres" }, async () => {
      const c = await open(`postgresql:///${database}`);
      expect((await c.pool.query("SELECT current_database() AS d, current_user AS u")).rows[0]).toEqual({ d: database, u: "postgres" });
      expect(c.location).toBe(`postgresql:///${database}`);
    });
  });

  test.skipIf(skip)("a password comes from PGPASSWORD or ~/.pgpass (PGPASSFILE), never the URL; a wrong one is one line without it", async () => {
    const url = await freshPostgresDatabase();
    const secret = "s3cret-for-tests";
    const role = await passwordRole(secret);
    const asRole = url.replace("postgres://postgres@", `postgres://${role}@`);
    const database = url.split("/")[3]!.split("?")[0]!;
    const host = new URLSearchParams(url.split("?")[1]).get("host")!;
    const dir = mkdtempSync(join(tmpdir(), "pcc-pgpass-"));
    try {
      await withEnv({ PGPASSWORD: undefined, PGPASSFILE: join(dir, "none") }, async () => {
        const without = await connectPostgres(asRole).then(() => null, (e: unknown) => e as Error);
        expect(without).toBeInstanceOf(DatabaseError);
        expect(without!.message).toMatch(/^cannot connect to postgres:\/\/pcc_password@\/t_\w+\?host=\S+: .*password/);

        const file = join(dir, "pgpass");
        writeFileSync(file, `${host}:5432:${database}:${role}:${secret}\n`, { mode: 0o600 });
        process.env.PGPASSFILE = file;
        const c = await open(asRole);
        expect((await c.pool.query("SELECT current_user AS u")).rows).toEqual([{ u: role }]);

        process.env.PGPASSFILE = join(dir, "none");
        process.env.PGPASSWORD = "wrong-one";
        const wrong = await connectPostgres(asRole).then(() => null, (e: unknown) => e as Error);
        expect(wrong!.message).toMatch(/password authentication failed for user "pcc_password"/);
        expect(wrong!.message).not.toContain("wrong-one");
        process.env.PGPASSWORD = secret;
        expect((await (await open(asRole)).pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test.skipIf(skip)("a connection refused for want of a password leaves no session behind: its database drops at once", async () => {
    const url = await freshPostgresDatabase();
    const role = await passwordRole("a-password-nobody-gives-here");
    const dir = mkdtempSync(join(tmpdir(), "pcc-nopass-"));
    try {
      await withEnv({ PGPASSWORD: undefined, PGPASSFILE: join(dir, "none") }, () =>
        expect(connectPostgres(url.replace("postgres://postgres@", `postgres://${role}@`))).rejects.toThrow(/none was found/),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // A half-made session would hold DROP DATABASE for the server's authentication_timeout (a
    // minute); the server's own timeout turns that wait into a failure here.
    const admin = await open(postgresUrl("postgres"));
    const client = await admin.pool.connect();
    try {
      await client.query("SET statement_timeout = '10s'");
      await client.query(`DROP DATABASE ${url.split("/")[3]!.split("?")[0]!} WITH (FORCE)`);
    } finally {
      client.release();
    }
  });

  test.skipIf(skip)("two processes opening one new database at once both succeed, and the schema is created once", async () => {
    const url = await freshPostgresDatabase();
    const [a, b] = await Promise.all([open(url), open(url)]);
    const before = await Promise.all([migratePostgres(a.pool, a.location), migratePostgres(b.pool, b.location)]);
    expect(before.sort()).toEqual([0, PG_SCHEMA_VERSION]);
    expect((await a.pool.query("SELECT version FROM schema_version")).rows).toEqual([{ version: PG_SCHEMA_VERSION }]);
    expect((await a.pool.query("SELECT n FROM answers_version")).rows).toEqual([{ n: 0 }]);
    // and again later: nothing to do
    expect(await migratePostgres(b.pool, b.location)).toBe(PG_SCHEMA_VERSION);
  });

  test.skipIf(skip)("the migration to when the API last returned each answer takes the current version's last seen", async () => {
    const c = await open(await freshPostgresDatabase());
    await c.pool.query("CREATE TABLE schema_version (id bigint PRIMARY KEY CHECK (id = 1), version bigint NOT NULL)");
    // the schema just before the migration that added returned_at
    const before = PG_MIGRATIONS.findIndex((m) => m.includes("ADD COLUMN returned_at"));
    for (const m of PG_MIGRATIONS.slice(0, before)) await c.pool.query(m);
    await c.pool.query("INSERT INTO schema_version (id, version) VALUES (1, $1)", [before]);
    await c.pool.query(`INSERT INTO answer_versions (id, postcode, lookup, status, release, first_seen, last_seen, run_id)
      VALUES (1, 'AB11AA', 'broadband', 'ok', 'r', '2026-12-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z', 1)`);
    await c.pool.query(`INSERT INTO lookups (postcode, lookup, status, attempts, fetched_at, run_id, address_count, version_id)
      VALUES ('AB11AA', 'broadband', 'failed', 1, '2026-12-21T00:00:00.000Z', 1, 2, 1), ('AB11AC', 'broadband', 'failed', 1, '2026-12-21T00:00:00.000Z', 1, 0, NULL)`);
    expect(await migratePostgres(c.pool, c.location)).toBe(before);
    expect((await c.pool.query("SELECT postcode, returned_at FROM lookups ORDER BY postcode")).rows).toEqual([
      { postcode: "AB11AA", returned_at: "2026-12-01T00:00:00.000Z" },
      { postcode: "AB11AC", returned_at: null },
    ]);
  });

  test.skipIf(skip)("a schema newer than this program is refused, naming the database", async () => {
    const url = await freshPostgresDatabase();
    const c = await open(url);
    await migratePostgres(c.pool, c.location);
    await c.pool.query("UPDATE schema_version SET version = version + 1");
    await expect(migratePostgres(c.pool, c.location)).rejects.toThrow(
      new DatabaseError(`${c.location} has schema version ${PG_SCHEMA_VERSION + 1}; this program knows up to ${PG_SCHEMA_VERSION}`),
    );
  });

  test.skipIf(skip)("provider rating columns are added once per provider, also by two processes at once, ignoring case as SQLite does", async () => {
    const url = await freshPostgresDatabase();
    const [a, b] = await Promise.all([open(url), open(url)]);
    await migratePostgres(a.pool, a.location);
    await Promise.all([ensurePostgresProviderColumns(a.pool, ["ProvA", "ProvB"]), ensurePostgresProviderColumns(b.pool, ["ProvB", "ProvC"])]);
    await ensurePostgresProviderColumns(a.pool, ["provc"]);
    const columns = (
      await a.pool.query<{ c: string }>("SELECT column_name AS c FROM information_schema.columns WHERE table_name = 'mobile_addresses' ORDER BY ordinal_position")
    ).rows.map((r) => r.c);
    expect(columns.slice(0, 3)).toEqual(["postcode", "uprn", "address"]);
    expect(columns.length).toBe(3 + 3 * 8);
    expect(new Set(columns.slice(3).map((c) => c.slice(0, 5)))).toEqual(new Set(["prova", "provb", "provc"]));
  });

  test.skipIf(skip)("the answers' version rises with every change the reports read, and not with an identical re-fetch", async () => {
    const c = await open(await freshPostgresDatabase());
    await migratePostgres(c.pool, c.location);
    const n = async (): Promise<number> => (await c.pool.query("SELECT n FROM answers_version")).rows[0].n;
    await c.pool.query("INSERT INTO lookups (postcode, lookup, status, attempts, fetched_at, run_id) VALUES ('SW1A2AA', 'broadband', 'ok', 1, '2026-11-23T00:00:00.000Z', 1)");
    expect(await n()).toBe(1);
    await c.pool.query("UPDATE lookups SET fetched_at = '2026-11-24T00:00:00.000Z', run_id = 2");
    expect(await n()).toBe(1);
    await c.pool.query("UPDATE lookups SET status = 'failed'");
    expect(await n()).toBe(2);
    await c.pool.query("DELETE FROM lookups");
    expect(await n()).toBe(3);
  });
});
