// A migration that has shipped never changes: databases in the field ran it as it was, and a
// changed one would leave them on a schema no new database has. Each engine's released migrations
// are held here by checksum; a new migration is appended to its list and its checksum added below
// (the failure message prints it), and one already listed is never edited: write a new one instead.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MIGRATIONS } from "../src/store/sqlite/schema.js";
import { PG_MIGRATIONS } from "../src/store/postgres/schema.js";

const RELEASED: Record<string, { migrations: readonly string[]; checksums: readonly string[] }> = {
  sqlite: {
    migrations: MIGRATIONS,
    checksums: [
      "eff5b03982dacac8",
      "4ee9283a3c1fdca3",
      "8266575ad1bcb711",
      "1196e60433d15c2d",
      "d0f39aa5df1f39ac",
      "831cf8c44647820a",
      "1fc01ffcd393705b",
      "fc443e8932a9e732",
      "3fd4cc3f19feaf14",
      "c478d634d45c4e16",
      "1a376a0b41976a6d",
      "8c8f94efcad0aaba",
      "98a6fd4d10deed22",
      "34fa555f99aa125d",
      "19b995d8688ce43b",
    ],
  },
  postgres: {
    migrations: PG_MIGRATIONS,
    checksums: ["a36f6352f7ba09a2", "dee0af053475609c", "0e7fc5c8fcfeabde", "baf5f3789800b05d", "2ad0b8779b02b357", "e34f5c54fcfbac79", "daecd742064f36a7", "54fee639786dae31"],
  },
};

const checksum = (sql: string) => createHash("sha256").update(sql).digest("hex").slice(0, 16);

describe.each(Object.entries(RELEASED))("%s migrations", (_engine, { migrations, checksums }) => {
  it("every released one is unchanged", () => {
    checksums.forEach((sum, i) => expect(checksum(migrations[i] ?? ""), `migration ${i + 1} changed after release: write a new one instead`).toBe(sum));
  });

  it("every one is recorded here (none dropped, none unlisted)", () => {
    const unlisted = migrations.slice(checksums.length).map((sql, i) => `migration ${checksums.length + i + 1}: "${checksum(sql)}"`);
    expect(unlisted, "add these checksums to RELEASED").toEqual([]);
    expect(migrations.length).toBe(checksums.length);
  });
});
