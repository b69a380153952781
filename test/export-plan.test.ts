// The export's pure parts: which postcode area a row belongs to, and how a table's columns are
// staged (numbers packed into one text cell and cast back; text on its own).
import { describe, expect, it } from "vitest";
import { EXPORT_TABLES, postcodeArea } from "../src/export/tables.js";
import { groupedPlan, stagePlan } from "../src/export/stage-plan.js";
import { DEFAULT_PROVIDERS, SPEED_FIELDS, mobileFields } from "../src/spec/fields.js";

const table = (name: string) => EXPORT_TABLES.find((t) => t.name === name)!;

describe("postcodeArea", () => {
  it.each([
    ["CF10 1AA", "CF"],
    ["CF101AA", "CF"],
    ["W1A 1AA", "W"],
    ["W1A1AA", "W"],
    ["EC1A 1BB", "EC"],
    ["B33 8TH", "B"],
  ])("%s is in area %s", (postcode, area) => expect(postcodeArea(postcode)).toBe(area));
});

describe("stagePlan", () => {
  it("stages a mobile row as postcode, address and one cell of the UPRN and 32 ratings", () => {
    const columns = table("mobile").columns(DEFAULT_PROVIDERS);
    expect(columns.map((c) => c.name)).toEqual(["PostCode", "UPRN", "AddressShortDescription", ...mobileFields()]);
    const plan = stagePlan(columns);
    expect(plan.stage).toEqual([
      { name: "PostCode", type: "VARCHAR" },
      { name: "AddressShortDescription", type: "VARCHAR" },
      { name: "__packed_0", type: "VARCHAR" },
    ]);
    expect(plan.read[2]).toMatch(new RegExp(`^printf\\('${"%s,".repeat(32)}%s', t\\.uprn, t\\.ProvAVoiceOutdoor, `));
    // Back in the columns' order and types.
    expect(plan.select).toMatch(/^SELECT "PostCode", CAST\(NULLIF\(__parts_0\[1\], ''\) AS BIGINT\) AS "UPRN", "AddressShortDescription", CAST\(NULLIF\(__parts_0\[2\], ''\) AS TINYINT\) AS "ProvAVoiceOutdoor", /);
    expect(plan.select).toContain(`CAST(NULLIF(__parts_0[33], '') AS TINYINT) AS "ProvDDataIndoorNo4g" FROM (SELECT *, string_split(__packed_0, ',') AS __parts_0 FROM stage)`);
  });

  it("prints speeds with 17 significant digits, NULL as an empty cell", () => {
    const plan = stagePlan(table("broadband").columns(DEFAULT_PROVIDERS));
    for (const f of SPEED_FIELDS) expect(plan.read[2]).toContain(`iif(t.${f} IS NULL, '', printf('%!.17g', t.${f}))`);
    expect(plan.select).toContain(`CAST(NULLIF(__parts_0[9], '') AS DOUBLE) AS "MaxPredictedUp"`);
  });

  it("casts timestamps from their text and flags through an integer", () => {
    const plan = stagePlan(table("postcodes").columns(DEFAULT_PROVIDERS));
    expect(plan.select).toContain(`CAST(NULLIF("fetched_at", '') AS TIMESTAMP) AS "fetched_at"`);
    expect(plan.select).toMatch(/CAST\(CAST\(NULLIF\(__parts_0\[\d+\], ''\) AS INTEGER\) AS BOOLEAN\) AS "simulated"/);
  });

  it("packs more than 500 numbers into several cells", () => {
    const providers = Array.from({ length: 70 }, (_, i) => `P${i}`);
    const plan = stagePlan(table("mobile").columns(providers));
    expect(plan.stage.map((s) => s.name)).toEqual(["PostCode", "AddressShortDescription", "__packed_0", "__packed_1"]);
    expect(plan.select).toContain(`CAST(NULLIF(__parts_1[61], '') AS TINYINT) AS "P69DataIndoorNo4g"`);
  });
});

describe("groupedPlan", () => {
  it("reads one row per postcode: its addresses joined, text as hex, numbers exact, and its row count", () => {
    const plan = groupedPlan(table("broadband").columns(DEFAULT_PROVIDERS));
    expect(plan.grouped).toBe(true);
    expect(plan.stage.map((s) => s.name)).toEqual(["PostCode", "__rows"]);
    expect(plan.read).toHaveLength(3);
    expect(plan.read[1]).toMatch(/^group_concat\(printf\('%s,%s,%s,%s,%s,%s,%s,%s,%s,%s', t\.uprn, iif\(t\.address IS NULL, '', 'x' \|\| hex\(t\.address\)\), iif\(t\.MaxBbPredictedDown IS NULL, '', printf\('%!\.17g'/);
    expect(plan.read[1]).toMatch(/, ';'\)$/);
    expect(plan.read[2]).toBe("count(*)");
    expect(plan.select).toContain(`decode(unhex(NULLIF(__cells[2], '')[2:])) AS "AddressShortDescription"`);
    expect(plan.select).toContain(`CAST(NULLIF(__cells[10], '') AS DOUBLE) AS "MaxPredictedUp"`);
    expect(plan.select).toContain("unnest(string_split(__rows, ';'))");
  });

  it("joins more than 500 cells of a row in several printf calls", () => {
    const providers = Array.from({ length: 70 }, (_, i) => `P${i}`);
    const plan = groupedPlan(table("mobile").columns(providers));
    expect(plan.read[1]!.match(/printf\('/g)).toHaveLength(2);
    expect(plan.select).toContain(`CAST(NULLIF(__cells[562], '') AS TINYINT) AS "P69DataIndoorNo4g"`);
  });

  it("needs the text key first", () => {
    expect(() => groupedPlan(table("runs").columns(DEFAULT_PROVIDERS))).toThrow(/text key/);
  });
});
