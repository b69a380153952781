// Issue 24's workbook that reads and prints: the demo's run (input/sample-postcodes.csv, 300
// postcodes, against the bundled simulator) writes coverage.xlsx; exceljs reads back its page
// set-up, and LibreOffice prints it to PDF: the whole workbook in a few dozen pages, and every text
// of the Summary sheet in full (pdftotext reads the PDF; a cut cell loses its text there).
import { execFile } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runIn, tempDir, type HarnessRun } from "./helpers/batch-harness.js";
import { requiresTool, TOOLS } from "./helpers/requires-tool.js";

// outside CI a missing program skips the print test, named at the end of the run; on CI it fails
const LIBREOFFICE = requiresTool(TOOLS.soffice);
const PDFTOTEXT = requiresTool(TOOLS.pdftotext);

let dir: string;
let run: HarnessRun;
let book: ExcelJS.Workbook;

beforeAll(async () => {
  dir = tempDir("pcc-workbook-print-");
  run = await runIn(dir, { in: "input/sample-postcodes.csv", simulate: true, rate: 6000 }, {});
  book = new ExcelJS.Workbook();
  await book.xlsx.readFile(join(dir, "out", "coverage.xlsx"));
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Rows of a sheet as arrays of cell values, the header first. */
const values = (name: string) => book.getWorksheet(name)!.getSheetValues().slice(1).map((r) => (r as unknown[]).slice(1));

describe("the demo's workbook", () => {
  it("prints each sheet landscape when wide, its header row on every page: fit to one page wide, or, too wide for that, full size with its key columns on every page", () => {
    expect(run.exitCode).toBe(0);
    const setups = Object.fromEntries(
      book.worksheets.map((w) => [
        w.name,
        {
          orientation: w.pageSetup.orientation,
          fitToWidth: w.pageSetup.fitToWidth,
          fitToHeight: w.pageSetup.fitToHeight,
          titles: w.pageSetup.printTitlesRow,
          keys: w.pageSetup.printTitlesColumn,
          area: w.pageSetup.printArea,
        },
      ]),
    );
    const landscape = { orientation: "landscape", fitToWidth: 1, fitToHeight: 0, titles: "1:1", keys: undefined };
    const split = (pages: number, keys: string) => ({ orientation: "landscape", fitToWidth: pages, fitToHeight: 0, titles: "1:1", keys });
    expect(setups).toEqual({
      Summary: { ...landscape, area: undefined },
      // grouped by, group
      Groups: { ...split(4, "A:B"), area: undefined },
      "Your rows": { ...split(2, "A:A"), area: undefined },
      Postcodes: { ...split(2, "A:A"), area: undefined },
      // 8,411 addresses each: only the first 50 print (the footer says so), every row is in the CSV
      Broadband: { ...landscape, area: "A1:L51" },
      Mobile: { ...split(3, "A:A"), area: "A1:AQ51" },
    });
    expect(book.getWorksheet("Broadband")!.headerFooter.oddFooter).toMatch(/^&LPrinted: the first 50 of 8,411 rows \(every row: broadband\.csv\)/);
  });

  it("says there is nothing to compare with yet on a first run, instead of rows of zero changes", () => {
    const changes = values("Summary").filter((r) => r[0] === "Changes").map((r) => r.slice(0, 3));
    expect(changes).toEqual([["Changes", "Compared with", expect.stringMatching(/^nothing yet: these are the first answers stored/)]]);
  });

  it("labels ratings with what they mean", () => {
    const definitions = values("Summary").filter((r) => r[0] === "Definitions" && String(r[1]).startsWith("Mobile rating"));
    expect(definitions.map((r) => r[2])).toEqual([
      // the demo runs on the current scale, as the service does
      "None (0): you should not expect coverage",
      "Limited (3): coverage may be limited",
      "Likely (4): you are likely to have coverage (good)",
    ]);
  });

  it.skipIf(LIBREOFFICE.skip || PDFTOTEXT.skip)("prints in LibreOffice in a few dozen pages, every Summary text in full", async () => {
    const pdf = join(dir, "pdf");
    await promisify(execFile)(
      "soffice",
      ["--headless", "--norestore", `-env:UserInstallation=file://${join(dir, "lo-profile")}`, "--convert-to", "pdf", "--outdir", pdf, join(dir, "out", "coverage.xlsx")],
      { timeout: 120_000 },
    );
    const file = join(pdf, "coverage.pdf");
    const pages = readFileSync(file, "latin1").match(/\/Type\s*\/Page(?!s)/g)?.length ?? 0;
    expect(pages).toBeGreaterThanOrEqual(6); // one sheet a page at least
    // 73 measured: the wide sheets print readable, split across 2-4 pages wide, not shrunk to one
    expect(pages).toBeLessThanOrEqual(80);
    // The Summary's pages: those whose repeated header row is the Summary's
    const text = (await promisify(execFile)("pdftotext", ["-raw", file, "-"], { maxBuffer: 64 * 2 ** 20 })).stdout;
    // the Groups sheet, 3 pages wide: its key columns (Grouped by, Group) head each of them
    const groupPages = text.split("\f").filter((p) => /^Grouped by Group /m.test(p));
    expect(groupPages.length).toBeGreaterThanOrEqual(3);
    const summaryPages = text.split("\f").filter((p) => p.includes("Section Figure Count Share Low High Of"));
    expect(summaryPages.length).toBeGreaterThan(0);
    // 6 measured once the Summary held the estimates for the whole list and the scale's rating shares
    expect(summaryPages.length).toBeLessThanOrEqual(6);
    const printed = summaryPages.join(" ").replace(/\s+/g, "");
    const cells = values("Summary")
      .slice(1)
      .flatMap((r) => [r[1], r[2], r[6]])
      .filter((v): v is string => typeof v === "string");
    expect(cells.length).toBeGreaterThan(50);
    expect(cells.filter((c) => !printed.includes(c.replace(/\s+/g, "")))).toEqual([]);
  }, 180_000);
});
