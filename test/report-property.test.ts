// --uprn-column: enriched.csv gives each named property's own figures, equal to its stored
// answers, and Status uprn_not_found when the postcode's answers lack the UPRN.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeReports } from "../src/report/index.js";
import { bestProviders } from "../src/report/summary/property-figures.js";
import { classifyUprnMiss } from "../src/report/summary/uprn-matching.js";
import type { Store } from "../src/store/store.js";
import { addRun, buildFixture, FIXED_NOW } from "./fixtures/report-golden/build-fixture.js";
import { expectedProperty } from "./helpers/independent-figures.js";

const COLUMNS = ["id", "Post Code", "uprn"];
const ROWS = [
  ["01", "CF10 1AA", "100020416747"], // in both lookups
  ["02", "CF10 1AA", " 300000000003 "], // mobile only, spaces around
  ["03", "CF10 1AA", "200000000001"], // broadband only
  ["04", "CF10 1AA", "42"], // in neither: uprn_not_found
  ["05", "CF10 1AA", "abc"], // not a UPRN: not found either
  ["06", "SW1A 2AA", ""], // no UPRN: the postcode's figures only
  ["07", "B1 1AA", "5"], // postcode not found: stays not_found
  ["08", "CF10 1AA", "12"],
];

let dir: string;
let db: Store;
let runId: number;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pcc-property-"));
  ({ store: db } = await buildFixture(join(dir, "coverage.sqlite")));
  runId = await addRun(db, ROWS, ["broadband", "mobile"], false, COLUMNS);
});
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const PROVIDERS = ["ProvA", "ProvB", "ProvC", "ProvD"];
const expected = (postcode: string, uprn: string) => expectedProperty(db, postcode, uprn, PROVIDERS, 3);

describe("--uprn-column", () => {
  it("gives each property its own stored figures, and uprn_not_found when no answer holds it", async () => {
    const out = join(dir, "out");
    await writeReports(db, { outDir: out, runId, now: () => FIXED_NOW, uprnColumn: "UPRN", groupBy: [] });
    const rows = parse(readFileSync(join(out, "enriched.csv")), { bom: true, columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.id, r.Status])).toEqual([
      ["01", "ok"],
      ["02", "ok"],
      ["03", "ok"],
      ["04", "uprn_not_found"],
      ["05", "uprn_not_found"],
      ["06", "ok"],
      ["07", "not_found"],
      ["08", "ok"],
    ]);
    for (const [i, r] of rows.entries()) expect(r).toMatchObject(await expected(normalised(ROWS[i]![1]!), ROWS[i]![2]!));
    expect(rows[0]).toMatchObject({ PropertyMaxPredictedDown: "30.5", PropertyTier: "Superfast", PropertyBestProviderIndoors: "ProvA, ProvB, ProvC, ProvD" });
    expect(rows[7]).toMatchObject({ PropertyTier: "Below decent", PropertyBestProviderIndoors: "ProvA" });
    expect(rows[1]).toMatchObject({ PropertyMaxPredictedDown: "", PropertyProvAIndoorDataGood: "yes" });
  });

  it("names the columns when the input has no such column", async () => {
    await expect(writeReports(db, { outDir: join(dir, "x"), runId, uprnColumn: "property" })).rejects.toThrow(
      '--uprn-column "property": the input has no such column; its columns are "id", "Post Code", "uprn"',
    );
  });

  it("the best provider: highest indoor data, then indoor voice; equals all named; none without ratings", () => {
    expect(bestProviders(["A", "B", "C"], [3, 2, 3, 4, 1, 4], 3)).toBe("B");
    expect(bestProviders(["A", "B"], [3, 3, 3, 3], 3)).toBe("A, B");
    expect(bestProviders(["A", "B"], [null, null, 0, 4], 3)).toBe("B");
    expect(bestProviders(["A"], [null, null], 3)).toBe("");
  });

  it("the best provider is empty when no provider is good indoors, and only good ones compete", () => {
    expect(bestProviders(["A", "B"], [1, 1, 0, 0], 3)).toBe("");
    expect(bestProviders(["A", "B", "C", "D"], [3, 3, 3, 3, 3, 3, 3, 3], 4)).toBe("");
    // A's data is higher, but only B is good (its voice): B is the best of the good ones
    expect(bestProviders(["A", "B"], [3, 0, 0, 4], 4)).toBe("B");
  });

  it("a property where every Good column is no has no best provider (--good-rating 4 on ratings of 3)", async () => {
    const out = join(dir, "strict");
    await writeReports(db, { outDir: out, runId, now: () => FIXED_NOW, uprnColumn: "UPRN", groupBy: [], goodRating: 4 });
    const rows = parse(readFileSync(join(out, "enriched.csv")), { bom: true, columns: true }) as Record<string, string>[];
    const goods = Object.keys(rows[0]!).filter((k) => /^Property.*Good$/.test(k));
    expect(goods).toHaveLength(8);
    expect(goods.map((k) => rows[0]![k])).toEqual(goods.map(() => "no"));
    expect(rows[0]!.PropertyBestProviderIndoors).toBe("");
  });
});

const normalised = (p: string) => p.replace(/\s+/g, "").toUpperCase();

describe("--uprn-column says how its UPRNs matched", () => {
  it("counts the matches, and tells a spreadsheet's mangling from a UPRN the answer lacks", async () => {
    const rows = [
      ["01", "CF10 1AA", "100020416747"], // matches
      ["02", "CF10 1AA", "1.0002E+11"], // what Excel saves for 100020416747 in a General column
      ["03", "CF10 1AA", "100020000000"], // the same, read back as a number: digits lost
      ["04", "CF10 1AA", "42"], // simply not in the answer
      ["05", "B1 1AA", "5"], // its postcode was not found: not counted
      ["06", "SW1A 2AA", ""], // names no UPRN: not counted
    ];
    const id = await addRun(db, rows, ["broadband", "mobile"], false, COLUMNS);
    const result = await writeReports(db, { outDir: join(dir, "out-matching"), runId: id, now: () => FIXED_NOW, uprnColumn: "uprn", groupBy: [] });
    expect(result.notes).toEqual([
      "--uprn-column uprn: 1 of 4 UPRNs match an address in their postcode's answer; " +
        "2 look mangled by a spreadsheet (scientific notation, digits lost to rounding: line 3: 1.0002E+11, line 4: 100020000000); " +
        "format the column as text in the spreadsheet, type the UPRNs again and save; " +
        "1 is not in its postcode's answer (line 5: 42)",
    ]);
    const all = await addRun(db, rows.slice(0, 1), ["broadband", "mobile"], false, COLUMNS);
    const matched = await writeReports(db, { outDir: join(dir, "out-matched"), runId: all, now: () => FIXED_NOW, uprnColumn: "uprn", groupBy: [] });
    expect(matched.notes).toEqual(["--uprn-column uprn: the 1 UPRN matches an address in its postcode's answer"]);
    // without --uprn-column there is nothing to say
    expect((await writeReports(db, { outDir: join(dir, "out-plain"), runId: all, now: () => FIXED_NOW, groupBy: [] })).notes).toEqual([]);
  });

  it("classifies a UPRN that matched nothing from how it looks beside its postcode's UPRNs", () => {
    const answer = [100020416747, 200000000001];
    expect(classifyUprnMiss("1.00020E+11", answer)).toBe("scientific");
    expect(classifyUprnMiss(" 1,0002E+11 ", answer)).toBe("scientific"); // a comma-decimal locale
    expect(classifyUprnMiss("100020000000", answer)).toBe("lost_digits");
    expect(classifyUprnMiss("100020400000", answer)).toBe("lost_digits");
    // rounded, but to no UPRN of this postcode; or not rounded at all
    expect(classifyUprnMiss("300000000000", answer)).toBe("not_in_answer");
    expect(classifyUprnMiss("10002000000", answer)).toBe("not_in_answer");
    expect(classifyUprnMiss("100020416748", answer)).toBe("not_in_answer");
    expect(classifyUprnMiss("abc", answer)).toBe("not_in_answer");
  });
});
