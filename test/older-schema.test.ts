// A reader on a database of an older schema: the report and the export migrate it first (their
// user may write it), on both engines; PostgreSQL's status, whose reads are written for this
// program's schema, refuses it in one line naming both versions.
import Database from "better-sqlite3";
import pg from "pg";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../src/store/open-store.js";
import { MIGRATIONS, SCHEMA_VERSION } from "../src/store/sqlite/schema.js";
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from "../src/store/postgres/schema.js";
import { dropPostgresDatabase, freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "pcc-older-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A SQLite database holding the first `version` migrations only. */
function olderSqlite(version: number): string {
  const path = join(dir, `v${version}.sqlite`);
  const db = new Database(path);
  for (let v = 0; v < version; v++) db.exec(MIGRATIONS[v]!);
  db.pragma(`user_version = ${version}`);
  db.close();
  return path;
}

/** A PostgreSQL database holding the first `version` migrations only. */
async function olderPostgres(version: number): Promise<string> {
  const url = await freshPostgresDatabase();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("CREATE TABLE schema_version (id bigint PRIMARY KEY CHECK (id = 1), version bigint NOT NULL)");
    for (let v = 0; v < version; v++) await client.query(PG_MIGRATIONS[v]!);
    await client.query("INSERT INTO schema_version (id, version) VALUES (1, $1)", [version]);
  } finally {
    await client.end();
  }
  return url;
}

async function schemaOf(location: string): Promise<{ version: number; latest: number }> {
  const store = await openStore(location, { readonly: true });
  try {
    const s = await store.status.database(1, Date.UTC(2026, 10, 27, 12));
    return { version: s.schemaVersion, latest: s.schemaLatest };
  } finally {
    await store.close();
  }
}

describe("SQLite: a reader on an older schema", () => {
  it("migrates it when the reader may upgrade (report, export)", async () => {
    const path = olderSqlite(SCHEMA_VERSION - 1);
    const reader = await openStore(path, { readonly: true, upgrade: true });
    await reader.close();
    expect(await schemaOf(path)).toEqual({ version: SCHEMA_VERSION, latest: SCHEMA_VERSION });
  });

  it("status reads it as it is and says it is behind", async () => {
    const path = olderSqlite(1);
    expect(await schemaOf(path)).toEqual({ version: 1, latest: SCHEMA_VERSION });
  });
});

const postgres = requiresPostgres();
describe.skipIf(postgres.skip)("PostgreSQL: a reader on an older schema", () => {
  it("migrates it when the reader may upgrade (report, export)", async () => {
    const url = await olderPostgres(PG_SCHEMA_VERSION - 1);
    try {
      const reader = await openStore(url, { readonly: true, upgrade: true });
      await reader.close();
      expect(await schemaOf(url)).toEqual({ version: PG_SCHEMA_VERSION, latest: PG_SCHEMA_VERSION });
    } finally {
      await dropPostgresDatabase(url);
    }
  });

  it("refuses it in one line otherwise (status), changing nothing", async () => {
    const url = await olderPostgres(1);
    try {
      await expect(openStore(url, { readonly: true })).rejects.toThrow(
        new RegExp(`has schema version 1, older than this program's ${PG_SCHEMA_VERSION}: run a batch or \`report\` once to upgrade it$`),
      );
      await expect(openStore(url, { readonly: true })).rejects.toThrow(/schema version 1,/);
    } finally {
      await dropPostgresDatabase(url);
    }
  });
});
