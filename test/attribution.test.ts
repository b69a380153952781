// The attribution Ofcom's terms ask for beside the API's data: report.html, the workbook's Summary
// and summary.csv carry it, by default Ofcom with each lookup's dataset release, or the exact
// words given with --attribution.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import ExcelJS from "exceljs";
import { parse } from "csv-parse/sync";
import { afterAll, describe, expect, it } from "vitest";
import { buildFixture, FIXED_NOW } from "./fixtures/report-golden/build-fixture.js";
import { writeReports } from "../src/report/index.js";
import { REPORT_OPTIONS } from "../src/cli/report-options.js";
import { parseTable } from "../src/cli/options/engine.js";
import { tempDir } from "./helpers/batch-harness.js";

const dir = tempDir("pcc-attribution-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const { store: db, runId } = await buildFixture(join(dir, "fixture.sqlite"));
afterAll(() => db.close());

async function attributionIn(out: string): Promise<{ csv: string; sheet: string; html: string }> {
  const rows = parse(readFileSync(join(out, "summary.csv")), { columns: true, bom: true }) as Record<string, string>[];
  const book = new ExcelJS.Workbook();
  await book.xlsx.readFile(join(out, "coverage.xlsx"));
  const figures = book.getWorksheet("Summary")!.getSheetValues().slice(2).map((r) => (r as unknown[]).slice(1));
  return {
    csv: rows.find((r) => r.Figure === "Attribution of the API's data")!.Count!,
    sheet: String(figures.find((r) => r[1] === "Attribution of the API's data")![2]),
    html: readFileSync(join(out, "report.html"), "utf8"),
  };
}

describe("attribution of the API's data", () => {
  it("names Ofcom and each lookup's release by default, in summary.csv, the workbook's Summary and report.html", async () => {
    const out = join(dir, "default");
    await writeReports(db, { outDir: out, runId, now: () => FIXED_NOW });
    const found = await attributionIn(out);
    const expected = "Source: Ofcom. Broadband data fetched 2026-01-02 (the API names no release); mobile data from release MobileAvailability-202601010000.";
    expect(found.csv).toBe(expected);
    expect(found.sheet).toBe(expected);
    expect(found.html).toContain(`<p class="meta attribution">${expected}</p>`);
  });

  it("prints --attribution's exact words, and refuses more than one line", async () => {
    const words = "Contains Ofcom data © Ofcom copyright 2026 & used under licence";
    const o = parseTable(REPORT_OPTIONS, { attribution: `  ${words} ` });
    expect(o.attribution).toBe(words);
    const out = join(dir, "custom");
    await writeReports(db, { outDir: out, runId, now: () => FIXED_NOW, attribution: o.attribution });
    const found = await attributionIn(out);
    expect(found.csv).toBe(words);
    expect(found.sheet).toBe(words);
    expect(found.html).toContain("Contains Ofcom data © Ofcom copyright 2026 &amp; used under licence");
    expect(() => parseTable(REPORT_OPTIONS, { attribution: "one\ntwo" })).toThrow(/^--attribution: give the attribution as one line/);
  });
});
