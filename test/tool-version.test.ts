// The version: package.json holds it (and the lock file's root entries agree), the changelog's newest
// release is it, every command's --version prints it, and each database records the version that
// last wrote it, on both engines, which status names.
import { spawn } from "node:child_process";
import Database from "better-sqlite3";
import pg from "pg";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { toolVersion } from "../src/contract/version.js";
import { openStore } from "../src/store/open-store.js";
import { MIGRATIONS } from "../src/store/sqlite/schema.js";
import { formatStatus, writtenByText } from "../src/cli/status-text.js";
import { dropPostgresDatabase, freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";
import { childOutput, ROOT } from "./helpers/child-cli.js";
import { scriptArgs } from "./helpers/compiled-tree.js";

const json = (file: string) => JSON.parse(readFileSync(join(ROOT, file), "utf8")) as Record<string, unknown>;
const dir = mkdtempSync(join(tmpdir(), "pcc-version-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const NOW = Date.UTC(2026, 11, 8, 12);

describe("the version", () => {
  it("is package.json's, agreed by the lock file and the changelog's newest release", () => {
    const version = json("package.json").version;
    expect(toolVersion()).toBe(version);
    const lock = json("package-lock.json") as { version: string; packages: Record<string, { version: string }> };
    expect([lock.version, lock.packages[""]!.version]).toEqual([version, version]);
    const releases = [...readFileSync(join(ROOT, "CHANGELOG.md"), "utf8").matchAll(/^## \[(.+?)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)];
    expect(releases[0]![1]).toBe("Unreleased");
    expect(releases[1]![1]).toBe(version);
    expect(releases[1]![2]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // Keep a Changelog's categories only
    const categories = [...readFileSync(join(ROOT, "CHANGELOG.md"), "utf8").matchAll(/^### (.+)$/gm)].map((m) => m[1]);
    expect(categories.filter((c) => !["Added", "Changed", "Fixed", "Removed", "Security"].includes(c!))).toEqual([]);
  });

  it("names the tarball the README and docs/install.md install", () => {
    const named = ["README.md", "docs/install.md"].flatMap((f) => [...readFileSync(join(ROOT, f), "utf8").matchAll(/postcode-coverage-(\d[\w.-]*)\.tgz/g)].map((m) => m[1]));
    expect(named.length).toBeGreaterThan(0);
    expect(new Set(named)).toEqual(new Set([toolVersion()]));
  });

  it("is what the installed command prints, for itself and for the demo", async () => {
    for (const args of [["--version"], ["demo", "--version"]]) {
      const r = await childOutput(spawn(process.execPath, [...scriptArgs("src/cli/main.ts"), ...args], { cwd: ROOT }));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`${toolVersion()}\n`);
    }
  });
});

/** The version status names for the database at `location`, and its first lines as text. */
async function writtenBy(location: string): Promise<{ version: string | null; text: string }> {
  const store = await openStore(location, { readonly: true });
  try {
    const s = await store.status.database(1, NOW);
    return { version: s.writtenBy, text: formatStatus(s, location).split("\n").slice(0, 2).join("\n") };
  } finally {
    await store.close();
  }
}

describe("the version that last wrote a database", () => {
  it("says so when none is recorded", () => {
    expect(writtenByText(null)).toBe("last written by a postcode-coverage version before 0.2.0");
    expect(writtenByText("0.2.0")).toBe("last written by postcode-coverage 0.2.0");
  });

  it("SQLite: is recorded as a writer opens it, replacing an older one; status names it", async () => {
    const path = join(dir, "older.sqlite");
    const old = new Database(path);
    for (const sql of MIGRATIONS.slice(0, -1)) old.exec(sql);
    old.pragma(`user_version = ${MIGRATIONS.length - 1}`);
    old.close();
    // a database from before versions were recorded: an upgrading reader records this program's
    const reader = await openStore(path, { readonly: true, upgrade: true });
    await reader.close();
    expect(await writtenBy(path)).toEqual({ version: toolVersion(), text: `database ${path} (schema up to date)\nlast written by postcode-coverage ${toolVersion()}` });
    const db = new Database(path);
    db.prepare("UPDATE tool_version SET version = '0.1.9'").run();
    db.close();
    expect((await writtenBy(path)).version).toBe("0.1.9");
    await (await openStore(path)).close();
    expect((await writtenBy(path)).version).toBe(toolVersion());
  });

  describe.skipIf(requiresPostgres().skip)("PostgreSQL", () => {
    it("is recorded as a writer opens it, replacing an older one; status names it", async () => {
      const url = await freshPostgresDatabase({ schema: true });
      try {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query("UPDATE tool_version SET version = '0.1.9'");
        await client.end();
        expect((await writtenBy(url)).version).toBe("0.1.9");
        await (await openStore(url)).close();
        expect((await writtenBy(url)).version).toBe(toolVersion());
      } finally {
        await dropPostgresDatabase(url);
      }
    });
  });
});
