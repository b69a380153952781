// Every table and column of both engines' schemas has a class in src/store/compared-columns.ts:
// compared between a chaos run and a clean one, or declared to differ and why. A column added to
// the schema without one fails here (the soak would otherwise skip it, or fail on every run).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { DEFAULT_PROVIDERS, mobileFields, SPEED_FIELDS } from "../src/contract/fields.js";
import { COMPARED_COLUMNS, columnClass, type TableClass } from "../src/store/compared-columns.js";
import { ensureProviderColumns } from "../src/store/sqlite/db.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import { dropPostgresDatabase, freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";

type Schema = Map<string, string[]>;

/** What is wrong with the declaration against one engine's schema: empty when every table and column has a class. */
function unclassified(schema: Schema, engine: "sqlite" | "postgres"): string[] {
  const out: string[] = [];
  for (const [table, columns] of schema) {
    const declared: TableClass | undefined = COMPARED_COLUMNS[table];
    if (!declared) out.push(`table ${table} has no class`);
    else if (declared.compared) for (const c of columns) if (columnClass(table, c) === null) out.push(`${table}.${c} has no class`);
  }
  for (const [table, declared] of Object.entries(COMPARED_COLUMNS)) {
    if (declared.only && declared.only !== engine) continue;
    const columns = schema.get(table);
    if (!columns) out.push(`table ${table} is declared but not in the schema`);
    else if (declared.compared)
      for (const c of Object.keys(declared.columns))
        if (!columns.some((x) => x.toLowerCase() === c.toLowerCase())) out.push(`${table}.${c} is declared but not in the schema`);
  }
  return out;
}

function sqliteSchema(): Schema {
  const dir = mkdtempSync(join(tmpdir(), "pcc-columns-"));
  const store = openSqliteStore(join(dir, "t.sqlite"));
  try {
    ensureProviderColumns(store.db, DEFAULT_PROVIDERS);
    const tables = store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
    return new Map(tables.map((t) => [t, store.db.prepare(`SELECT name FROM pragma_table_info('${t}')`).pluck().all() as string[]]));
  } finally {
    store.db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("the classes of the stored columns", () => {
  it("cover every table and column of a new SQLite database, and name none it lacks", () => {
    const schema = sqliteSchema();
    expect(unclassified(schema, "sqlite")).toEqual([]);
    // the address tables' value fields are classed through the contract, not listed
    expect(schema.get("broadband_addresses")).toEqual(expect.arrayContaining([...SPEED_FIELDS]));
    expect(schema.get("mobile_addresses")).toEqual(expect.arrayContaining(mobileFields()));
  });

  it("fail a column or a table added without a class", () => {
    const schema = sqliteSchema();
    schema.get("lookups")!.push("answered_by");
    schema.set("night_notes", ["id"]);
    expect(unclassified(schema, "sqlite")).toEqual(["lookups.answered_by has no class", "table night_notes has no class"]);
    schema.get("runs")!.splice(schema.get("runs")!.indexOf("message"), 1);
    expect(unclassified(schema, "sqlite")).toContain("runs.message is declared but not in the schema");
  });

  it("class any provider's rating fields as compared, and say why each differing column differs", () => {
    expect(columnClass("mobile_addresses", "ProvEVoiceIndoorNo4g")).toBe("same");
    expect(columnClass("mobile_addresses", "provavoiceindoor")).toBe("same");
    expect(columnClass("broadband_addresses", "MaxPredictedDown")).toBe("same");
    expect(columnClass("broadband_addresses", "ProvAVoiceIndoor")).toBeNull();
    expect(columnClass("lookups", "returned_at")).toEqual({ differs: expect.stringMatching(/\w/) });
    expect(columnClass("request_ledger", "sent_at")).toBeNull();
  });

  describe.skipIf(requiresPostgres().skip)("on PostgreSQL", () => {
    it("cover every table and column of a new database, and name none it lacks", async () => {
      const url = await freshPostgresDatabase({ schema: true });
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const rows = (
          await client.query<{ table_name: string; column_name: string }>(
            `SELECT c.table_name, c.column_name FROM information_schema.columns c
               JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
              WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
              ORDER BY c.table_name, c.ordinal_position`,
          )
        ).rows;
        const schema: Schema = new Map();
        for (const r of rows) schema.set(r.table_name, [...(schema.get(r.table_name) ?? []), r.column_name]);
        expect(schema.size).toBeGreaterThan(10);
        expect(unclassified(schema, "postgres")).toEqual([]);
      } finally {
        await client.end();
        await dropPostgresDatabase(url);
      }
    });
  });
});
