// PostgreSQL as an operator meets it from cron: the password in ~/.pgpass with a JSON log (every
// line one JSON object, a library warning included), no password at all (one line saying where
// to put it), a socket URL with no user and no USER variable (the OS user, as psql), and status
// saying the same thing about the schema on both engines.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, test } from "vitest";
import { inject } from "vitest";
import { connectPostgres } from "../src/store/postgres/connect.js";
import { DatabaseError } from "../src/store/types.js";
import { spawnCli } from "./helpers/child-cli.js";
import { freshPostgresDatabase, passwordRole, postgresUrl, requiresPostgres } from "./helpers/postgres.js";

const { skip } = requiresPostgres();
const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The child's environment never holds the test's own PG password settings. */
const NO_PASSWORD = { PGPASSWORD: undefined, PGPASSFILE: undefined };

describe.skipIf(skip)("PostgreSQL from cron", () => {
  test("--log-format json with the password in ~/.pgpass: every line of the run is one JSON object, a library warning too", async () => {
    const secret = "pgpass-secret-for-the-json-test";
    const role = await passwordRole(secret);
    const own = await freshPostgresDatabase();
    const owner = new pg.Client({ connectionString: own });
    await owner.connect();
    await owner.query(`ALTER SCHEMA public OWNER TO ${role}`).finally(() => owner.end());
    const url = own.replace(/^postgres:\/\/\w+@/, `postgres://${role}@`);
    const home = tempDir("pcc-home-");
    writeFileSync(join(home, ".pgpass"), `*:*:*:${role}:${secret}\n`, { mode: 0o600 });
    const input = join(home, "in.csv");
    writeFileSync(input, "postcode\nSW1A 2AA\nCF10 1AA\n");
    // a warning as a library would emit one, in the middle of the run (after its first log line)
    const warns = join(home, "warns.mjs");
    writeFileSync(
      warns,
      `const write = process.stderr.write.bind(process.stderr);\n` +
        `process.stderr.write = (...a) => { process.stderr.write = write; process.emitWarning("something is deprecated", "DeprecationWarning", "DEP_TEST"); return write(...a); };\n`,
    );
    const run = spawnCli("batch", ["--in", input, "--simulate", "--db", url, "--out", join(home, "out"), "--log-format", "json", "--no-progress"], {
      env: { ...NO_PASSWORD, HOME: home, NODE_OPTIONS: `--import ${warns}` },
    });
    const r = await run.done;
    expect(r.code).toBe(0);
    const lines = (r.stdout + r.stderr).split("\n").filter((l) => l !== "");
    expect(lines.length).toBeGreaterThan(3);
    const parsed = lines.map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON line: ${l}`);
      }
    });
    expect(parsed.find((o) => o.event === "process_warning")?.message).toBe("DeprecationWarning DEP_TEST: something is deprecated");
    expect(r.stderr).not.toContain(secret);
    // pg is never left to read ~/.pgpass itself (its deprecated way, which warns)
    expect(r.stderr).not.toContain("pgpass support is deprecated");
  }, 60_000);

  test("no password anywhere: one line naming PGPASSWORD, ~/.pgpass and the docs", async () => {
    const role = await passwordRole("a-password-nobody-gives");
    const url = (await freshPostgresDatabase()).replace(/^postgres:\/\/\w+@/, `postgres://${role}@`);
    const saved = { PGPASSWORD: process.env.PGPASSWORD, PGPASSFILE: process.env.PGPASSFILE };
    delete process.env.PGPASSWORD;
    process.env.PGPASSFILE = join(tempDir("pcc-nopass-"), "none");
    try {
      const err = await connectPostgres(url).then(() => null, (e: unknown) => e as Error);
      expect(err).toBeInstanceOf(DatabaseError);
      expect(err!.message).not.toContain("\n");
      expect(err!.message).not.toMatch(/SASL/);
      expect(err!.message).toMatch(/^cannot connect to postgres:\/\/pcc_password@\/t_\w+\?host=\S+: the server asks for a password and none was found: set PGPASSWORD, or add a line .* to ~\/\.pgpass .*docs\/postgres\.md/);
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  test("postgresql:///db with PGHOST and no USER (cron) connects as the OS user, as psql does; status says the schema is up to date", async () => {
    const url = await freshPostgresDatabase({ schema: true });
    const database = /\/(t_\w+)\?/.exec(url)![1]!;
    const me = userInfo().username;
    const admin = new pg.Client({ connectionString: postgresUrl("postgres") });
    await admin.connect();
    try {
      await admin.query(`DO $$ BEGIN CREATE ROLE "${me}" LOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`);
      await admin.query(`GRANT pg_read_all_data TO "${me}"`);
    } finally {
      await admin.end();
    }
    const status = await spawnCli("status", ["--db", `postgresql:///${database}`], {
      env: { ...NO_PASSWORD, USER: undefined, LOGNAME: undefined, PGUSER: undefined, PGHOST: inject("postgres")!.socketDir },
    }).done;
    expect(status.stderr).toBe("");
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`database postgresql:///${database} (schema up to date)`);
  }, 60_000);
});

describe("status's schema line", () => {
  test("a SQLite database a batch made says the same as PostgreSQL's: up to date", async () => {
    const dir = tempDir("pcc-status-");
    const input = join(dir, "in.csv");
    writeFileSync(input, "postcode\nSW1A 2AA\n");
    const db = join(dir, "c.sqlite");
    expect((await spawnCli("batch", ["--in", input, "--simulate", "--db", db, "--out", join(dir, "out"), "--no-progress", "--quiet"]).done).code).toBe(0);
    const status = await spawnCli("status", ["--db", db]).done;
    expect(status.stdout).toContain(`database ${db} (schema up to date)`);
  }, 60_000);
});
