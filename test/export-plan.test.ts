// The export's pure parts: which postcode area a row belongs to, and how a table's columns are
// staged (as JavaScript hands them over) and cast back to their types.
import { describe, expect, it } from "vitest";
import { EXPORT_TABLES, postcodeArea } from "../src/figures/export-tables.js";
import { packedPlan, stagePlan } from "../src/export/stage-plan.js";
import { DEFAULT_PROVIDERS, SPEED_FIELDS, mobileFields } from "../src/contract/fields.js";

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
  it("stages each column as JavaScript hands it over, and casts back to the export's types in order", () => {
    const columns = table("mobile").columns(DEFAULT_PROVIDERS);
    expect(columns.map((c) => c.name)).toEqual(["PostCode", "UPRN", "AddressShortDescription", ...mobileFields()]);
    const plan = stagePlan(columns);
    expect(plan.stage.slice(0, 4)).toEqual([
      { name: "PostCode", type: "VARCHAR" },
      { name: "UPRN", type: "DOUBLE" },
      { name: "AddressShortDescription", type: "VARCHAR" },
      { name: "ProvAVoiceOutdoor", type: "TINYINT" },
    ]);
    expect(plan.select).toMatch(/^SELECT "PostCode", CAST\("UPRN" AS BIGINT\) AS "UPRN", "AddressShortDescription", "ProvAVoiceOutdoor", /);
    expect(plan.select).toMatch(/"ProvDDataIndoorNo4g" FROM stage$/);
  });

  it("keeps speeds as doubles, casts timestamps from their text and flags through an integer", () => {
    expect(stagePlan(table("broadband").columns(DEFAULT_PROVIDERS)).select).toContain(`"MaxPredictedUp"`);
    for (const f of SPEED_FIELDS) expect(stagePlan(table("broadband").columns(DEFAULT_PROVIDERS)).stage).toContainEqual({ name: f, type: "DOUBLE" });
    const plan = stagePlan(table("postcodes").columns(DEFAULT_PROVIDERS));
    expect(plan.select).toContain(`CAST("fetched_at" AS TIMESTAMP) AS "fetched_at"`);
    expect(plan.select).toContain(`CAST("simulated" AS BOOLEAN) AS "simulated"`);
  });
});

describe("packedPlan", () => {
  it("stages a postcode and its packed rows; takes texts and timestamps as themselves or from hex, and casts the rest", () => {
    const plan = packedPlan(table("postcodes").columns(DEFAULT_PROVIDERS));
    expect(plan.stage).toEqual([
      { name: "PostCode", type: "VARCHAR" },
      { name: "__rows", type: "VARCHAR" },
    ]);
    const text = (i: number) => `CASE WHEN NULLIF(__cells[${i}], '')[1] = 'x' THEN decode(unhex(NULLIF(__cells[${i}], '')[2:])) ELSE NULLIF(__cells[${i}], '')[2:] END`;
    expect(plan.select).toContain(`${text(1)} AS "lookup"`);
    expect(plan.select).toContain(`CAST(NULLIF(__cells[3], '') AS INTEGER) AS "http_status"`);
    expect(plan.select).toContain(`CAST(${text(6)} AS TIMESTAMP) AS "fetched_at"`);
    expect(plan.select).toContain(`CAST(CAST(NULLIF(__cells[11], '') AS INTEGER) AS BOOLEAN) AS "simulated"`);
    expect(plan.select).toContain("string_split(__rows, chr(30))");
  });

  it("packs every table keyed by postcode, and not runs", () => {
    expect(EXPORT_TABLES.filter((t) => t.packed).map((t) => t.name)).toEqual(["broadband", "mobile", "postcodes", "versions"]);
  });
});
