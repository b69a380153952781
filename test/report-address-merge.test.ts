// coverage.csv is written in the same pass as broadband.csv and mobile.csv, as the merge of their
// two streams (src/report/csv/address-files.ts). Here the lookups' addresses overlap only in part,
// across several stream batches (SNAPSHOT_BATCH_ROWS) and UPRNs of different lengths, and
// coverage.csv must be exactly the full join of the other two files, computed here from them.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPORT_FILES, writeReports } from "../src/report/index.js";
import { DEFAULT_PROVIDERS } from "../src/contract/fields.js";
import type { Store } from "../src/store/store.js";
import { SNAPSHOT_BATCH_ROWS } from "../src/store/snapshot.js";
import { addRun, buildFixture, FIXED_NOW, writeAnswers } from "./fixtures/report-golden/build-fixture.js";

const ratings = (uprn: number) => DEFAULT_PROVIDERS.flatMap((_, p) => Array.from({ length: 8 }, (_, i) => (uprn + p + i) % 5));
const speeds = (uprn: number) => [uprn % 40, 1, uprn % 7 === 0 ? -1 : uprn / 4, 5, -1, -1, uprn % 90, 2];
const range = (from: number, to: number, step = 1) => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);
const broadband = (uprns: number[]) => uprns.map((uprn) => ({ uprn, address: `${uprn}, Heol "Fawr"`, speeds: speeds(uprn) }));
const mobile = (uprns: number[]) => uprns.map((uprn) => ({ uprn, address: `${uprn} Heol Fawr`, ratings: ratings(uprn) }));

/** Postcodes (compact) whose two lookups overlap in part, in runs longer than a batch. */
const PLACES = {
  // both, overlapping in the middle; UPRNs 1 to 1,000 sort as numbers (9 before 10)
  CF101AB: { broadband: broadband(range(1, 700)), mobile: mobile(range(350, 1000)) },
  // broadband alone; mobile not found
  CF101AC: { broadband: broadband(range(5, 3000, 10)), mobile: "not_found" as const },
  // mobile alone; broadband not found
  CF101AD: { broadband: "not_found" as const, mobile: mobile(range(7, 3000, 10)) },
  // both, never the same address: even and odd UPRNs interleaved
  CF101AE: { broadband: broadband(range(2, 800, 2)), mobile: mobile(range(1, 801, 2)) },
  // both, the same addresses
  CF101AF: { broadband: broadband(range(100000000000, 100000000300)), mobile: mobile(range(100000000000, 100000000300)) },
};

let dir: string;
let db: Store;
let runId: number;
const out = () => join(dir, "out");
const read = (name: string, at = out()) => parse(readFileSync(join(at, name)), { bom: true }) as string[][];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pcc-merge-"));
  ({ store: db } = await buildFixture(join(dir, "coverage.sqlite")));
  const postcodes = Object.keys(PLACES).map((p) => `${p.slice(0, -3)} ${p.slice(-3)}`);
  runId = await addRun(db, postcodes.map((p, i) => [String(i), p, ""]), ["broadband", "mobile"]);
  for (const [postcode, place] of Object.entries(PLACES)) await writeAnswers(db, runId, postcode, place, ["broadband", "mobile"]);
  await writeReports(db, { outDir: out(), runId, now: () => FIXED_NOW });
});
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("coverage.csv from the broadband and mobile streams in one pass", () => {
  it("is the full join of broadband.csv and mobile.csv on PostCode and UPRN, in PostCode then UPRN order", () => {
    const [bHeader, ...bRows] = read("broadband.csv");
    const [mHeader, ...mRows] = read("mobile.csv");
    const [cHeader, ...cRows] = read("coverage.csv");
    expect(cHeader).toEqual([...bHeader!, ...mHeader!.slice(3)]);
    const key = (r: string[]) => `${r[0]}|${r[1]}`;
    const mobileByKey = new Map(mRows.map((r) => [key(r), r]));
    const broadbandKeys = new Set(bRows.map(key));
    const noBroadband = bHeader!.slice(3).map(() => "");
    const noMobile = mHeader!.slice(3).map(() => "");
    const expected = [
      ...bRows.map((b) => [...b, ...(mobileByKey.get(key(b))?.slice(3) ?? noMobile)]),
      ...mRows.filter((m) => !broadbandKeys.has(key(m))).map((m) => [...m.slice(0, 3), ...noBroadband, ...m.slice(3)]),
    ].sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : Number(BigInt(a[1]!) - BigInt(b[1]!))));
    expect(cRows).toEqual(expected);

    const both = 351 + 301;
    const broadbandOnly = 349 + 300 + 400;
    const mobileOnly = 300 + 300 + 401;
    expect(cRows).toHaveLength(both + broadbandOnly + mobileOnly);
    expect(cRows.length).toBeGreaterThan(8 * SNAPSHOT_BATCH_ROWS);
    // from the lookups' own columns: the address is broadband's where it has one
    expect(cRows.find((r) => r[1] === "9")![2]).toBe('9, Heol "Fawr"');
    expect(cRows.find((r) => r[1] === "1000")![2]).toBe("1000 Heol Fawr");
    expect(cRows.filter((r) => r[0] === "CF10 1AB").map((r) => Number(r[1]))).toEqual(range(1, 1000));
  });

  it("writes the same bytes when the set holds only some of the three files", async () => {
    for (const names of [["coverage.csv"], ["mobile.csv"], ["broadband.csv", "coverage.csv"]]) {
      const at = join(dir, names.join("+"));
      const files = REPORT_FILES.filter((f) => names.includes(f.name));
      const result = await writeReports(db, { outDir: at, runId, now: () => FIXED_NOW, files });
      expect(result.files.map((f) => f.slice(at.length + 1))).toEqual(names);
      for (const name of names) expect(readFileSync(join(at, name)).equals(readFileSync(join(out(), name)))).toBe(true);
    }
  });
});
