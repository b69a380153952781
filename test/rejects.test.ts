// Rejected and repeated input rows, as a user acts on them: rejects.csv carries each rejected
// row's own cells (its Ref, its site) after Line, Value and Reason; a lone "-" stays "-"; GIR 0AA is
// a postcode; duplicates are counted in summary.csv and report.html, which links rejects.csv.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalisePostcode } from "../src/contract/postcode.js";
import { runIn, tempDir, writeCsv, type HarnessRun } from "./helpers/batch-harness.js";

const dir = tempDir("pcc-rejects-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let run: HarnessRun;
const out = (name: string) => readFileSync(join(dir, "out", name), "utf8");
const csv = (name: string) => parse(out(name), { bom: true, relax_column_count: true }) as string[][];

beforeAll(async () => {
  const input = writeCsv(dir, "sites.csv", [
    "Ref,Site,Postcode",
    "R1,Library,CF10 1AA",
    "R2,Depot,-",
    "R3,Old school,NOT A POSTCODE",
    "R4,Girobank,GIR 0AA",
    "R5,Library annexe,cf10 1aa",
    "R6,Pool,CF10 1AB",
    "R7,Hall,=HYPERLINK(\"x\")",
    "R8,Pool again,CF10 1AB",
  ]);
  run = await runIn(dir, { in: input, simulate: true }, {});
});

describe("rejected and repeated input rows", () => {
  it("accepts GIR 0AA, a real postcode outside the usual pattern", () => {
    expect(normalisePostcode("gir0aa")).toEqual({ ok: true, compact: "GIR0AA", display: "GIR 0AA" });
    expect(run.exitCode).toBe(0);
    const enriched = parse(out("enriched.csv"), { bom: true, columns: true }) as Record<string, string>[];
    expect(enriched.find((r) => r.Ref === "R4")).toMatchObject({ NormalisedPostCode: "GIR 0AA" });
    expect(enriched.find((r) => r.Ref === "R4")!.Status).not.toBe("invalid");
    // its area and district, read off the postcode as PostgreSQL reads them
    const groups = parse(out("groups.csv"), { bom: true, columns: true }) as Record<string, string>[];
    expect(groups.filter((g) => g.Group!.startsWith("GIR")).map((g) => [g.Dimension, g.Group, g.Postcodes])).toEqual([["area", "GIR", "1"], ["district", "GIR", "1"]]);
  });

  it("rejects.csv carries each rejected row's own cells under the input's header; a lone - is written as it is, a formula still neutralised", () => {
    expect(csv("rejects.csv")).toEqual([
      ["Line", "Value", "Reason", "Ref", "Site", "Postcode"],
      ["3", "-", "not a valid UK postcode", "R2", "Depot", "-"],
      ["4", "NOT A POSTCODE", "not a valid UK postcode", "R3", "Old school", "NOT A POSTCODE"],
      ["8", "'=HYPERLINK(\"x\")", "not a valid UK postcode", "R7", "Hall", "'=HYPERLINK(\"x\")"],
    ]);
  });

  it("counts the duplicates in summary.csv, the closing lines and report.html, which links rejects.csv", () => {
    const input = csv("summary.csv").filter((r) => r[0] === "Input");
    expect(input.find((r) => r[1]!.startsWith("Input rows repeating an earlier row's postcode"))?.slice(2, 4)).toEqual(["2", "0.25"]);
    expect(input.find((r) => r[1] === "Input rows without a valid postcode")?.[2]).toBe("3");
    expect(run.logs.join("\n")).toMatch(/8 input rows, 3 invalid, 2 duplicates, 3 unique postcodes/);
    const html = out("report.html");
    expect(html).toContain('3 rows without a valid postcode (each listed with its cells and the reason in <a href="rejects.csv">rejects.csv</a>)');
    expect(html).toContain("2 rows repeating an earlier row's postcode (duplicates, looked up once)");
  });
});
