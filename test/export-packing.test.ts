// The export's packed address rows (one postcode a row, joined by each engine, unpacked by DuckDB)
// on both engines: addresses holding commas, semicolons, quotes, non-ASCII letters or the packing's
// own separators, an empty address, doubles that need all their digits and a missing speed all
// come back as written.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, describe, expect, test } from "vitest";
import { DEFAULT_PROVIDERS } from "../src/contract/fields.js";
import { openStore } from "../src/store/open-store.js";
import type { Store } from "../src/store/store.js";
import { writeExport } from "../src/export/write-export.js";
import { tempDir } from "./helpers/batch-harness.js";
import { freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";

const { skip } = requiresPostgres();
const AT = "2026-11-24T00:30:00.000Z";
const ADDRESSES = ['Flat 1, Tŷ Newydd; "Rear"', "", "x41,;;,", "Ünit 7 — 3;4", "O'Brien's\tBarn", "r1\x1f2\x1e3"];
const UP: (number | null)[] = [0.1, 1 / 3, 1e-7, null, -1, 0.1 + 0.2];
const POSTCODES = ["CF101AA", "W1A1AA"];

/** Broadband answers for POSTCODES, ADDRESSES each, written through the store's own writers. */
async function fill(store: Store): Promise<void> {
  const providers = [...DEFAULT_PROVIDERS];
  await store.answers.prepareProviders(providers);
  const runId = await store.runs.create({ startedAt: AT, simulated: false, inputName: "in.csv", args: {}, lookups: ["broadband"], providers });
  await store.runs.setInput(runId, ["postcode"], "postcode");
  const rows = await store.inputRows.openWriter(runId);
  for (const [i, p] of POSTCODES.entries()) await rows.add({ line: i + 2, value: p, postcode: p, reason: null, cells: [p] });
  await rows.flush();
  const answers = await store.answers.openWriter({ providers });
  for (const p of POSTCODES) {
    const addresses = ADDRESSES.map((address, i) => ({ uprn: 100000000000 + i, address, speeds: [40.5, UP[i]!, 40, 10, -1, -1, 2 ** 0.5, 10] }));
    answers.write({ postcode: p, lookup: "broadband", status: "ok", httpStatus: 200, attempts: 1, lastError: null, fetchedAt: AT, runId, answer: { lookup: "broadband", dataset: null, addresses } });
  }
  await answers.flush();
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("packed export rows", () => {
  const engines: [string, () => Promise<string>][] = [
    ["SQLite", async () => join(dirs[dirs.push(tempDir("pcc-packing-")) - 1]!, "coverage.sqlite")],
    // without a PostgreSQL server (outside CI) its case is left out, and requiresPostgres says so
    ...(skip ? [] : [["PostgreSQL", freshPostgresDatabase] as [string, () => Promise<string>]]),
  ];
  test.each(engines)("%s: every text and double of an address table comes back as written", async (_engine, location) => {
    const store = await openStore(await location());
    const out = tempDir("pcc-packing-out-");
    dirs.push(out);
    try {
      await fill(store);
      const result = await writeExport(store, { outDir: out, all: true });
      expect(result.tables.find((t) => t.name === "broadband")!.rows).toBe(POSTCODES.length * ADDRESSES.length);
    } finally {
      await store.close();
    }
    const duck = await DuckDBInstance.create(":memory:");
    const con = await duck.connect();
    try {
      const back = await con.runAndReadAll(
        `SELECT PostCode, UPRN, AddressShortDescription, MaxBbPredictedDown, MaxBbPredictedUp, MaxUfbbPredictedDown, MaxPredictedDown FROM read_parquet('${out}/broadband.parquet/*/*.parquet') ORDER BY PostCode, UPRN`,
      );
      const expected = ["CF10 1AA", "W1A 1AA"].flatMap((p) => ADDRESSES.map((a, i) => [p, BigInt(100000000000 + i), a, 40.5, UP[i], -1, 2 ** 0.5]));
      expect(back.getRowsJS()).toEqual(expected);
    } finally {
      con.closeSync();
      duck.closeSync();
    }
  });
});
