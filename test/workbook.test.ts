// Issue 13's "done when": a batch on the simulator over real HTTP, on an input with a text ID
// column with leading zeros, a region column and a UPRN column, run with --group-by region
// --uprn-column uprn, writes coverage.xlsx. LibreOffice opens it (converted headless to one CSV
// per sheet and read back): the IDs and UPRNs are intact, the figures per region equal an
// independent computation and the per-UPRN figures equal the stored answers. exceljs reads the
// workbook back for its structure: sheet order, frozen filtered headers, notes, text cells.
import { execFile } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import ExcelJS from "exceljs";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePostcode, generatePostcodes, startSimulator, type Simulator } from "../src/simulator/index.js";
import { openStore } from "../src/store/open-store.js";
import type { Store } from "../src/store/store.js";
import { runIn, tempDir, writeCsv, type HarnessRun } from "./helpers/batch-harness.js";
import { expectedProperty, independentGroups } from "./helpers/independent-figures.js";
import { rankingFigure } from "../src/report/estimates/ranking.js";
import { buildFixture } from "./fixtures/report-golden/build-fixture.js";
import { storedTable } from "./helpers/stored.js";
import { computeSummary } from "../src/report/summary/summary.js";
import { writeWorkbook } from "../src/report/xlsx/workbook.js";
import { requiresTool, TOOLS } from "./helpers/requires-tool.js";

const KEY = "Zq4-secret-77x-Lp2";
const SEED = 13;
const PROVIDERS = ["ProvA", "ProvB", "ProvC", "ProvD"];
const LIBREOFFICE = requiresTool(TOOLS.soffice);

let dir: string;
/** The good rating of each scale, as the live-service notes give it (4 Likely; 3 Green). */
const GOOD_RATING = { current: 4, legacy: 3 } as const;
/** A scale's rating words as the Mobile sheet's notes start them. */
const RATING_NOTE = {
  current: /^ProvAVoiceIndoor \(Ofcom's current 0\/3\/4 scale; good coverage: Likely \(4\)\): None \(0\): you should not expect coverage; Limited \(3\): coverage may be limited; Likely \(4\): you are likely to have coverage$/,
  legacy: /^ProvAVoiceIndoor \(Ofcom's earlier 0-4 scale; good coverage: Green \(3\) or Enhanced \(4\)\): Clear \(0\): no signal; Red \(1\): reliable signal unlikely; Amber \(2\): .*; Enhanced \(4\): /,
} as const;

describe.each(["current", "legacy"] as const)("on the %s scale", (scale) => {
  let sim: Simulator;
  let run: HarnessRun;
  let db: Store;
  /** input rows as written: id, postcode, region, uprn */
  const rows: string[][] = [];

  beforeAll(async () => {
    dir = tempDir(`pcc-workbook-${scale}-`);
    sim = await startSimulator({ port: 0, seed: SEED, key: KEY, mobileScale: scale });
    // Postcodes the simulator knows, each with a real UPRN of its; some rows name a UPRN it lacks or none.
    const known = generatePostcodes(SEED, 40)
      .map((p) => generatePostcode(SEED, p, PROVIDERS, 1, scale))
      .filter((p) => p !== null)
      .slice(0, 8);
    const regions = ["Wales", "England", "Scotland", ""];
    known.forEach((p, i) => {
      const display = `${p.PostCode.slice(0, -3)} ${p.PostCode.slice(-3)}`;
      rows.push([String(i + 1).padStart(5, "0"), display, regions[i % 4]!, String(p.addresses[0]!.UPRN)]);
      rows.push([String(100 + i).padStart(6, "0"), display.toLowerCase(), regions[(i + 1) % 4]!, String(p.addresses.at(-1)!.UPRN)]);
    });
    rows.push(["000999", known[0]!.PostCode, "Wales", "1"]); // a UPRN the answer lacks
    rows.push(["0001000", known[1]!.PostCode, "Wales", ""]); // no UPRN
    rows.push(["0001001", "NOT A POSTCODE", "Wales", "100000000001"]);
    const input = writeCsv(dir, "input.csv", ["id,postcode,region,uprn", ...rows.map((r) => r.join(","))]);
    run = await runIn(dir, { in: input, baseUrl: sim.url, groupBy: "region", uprnColumn: "uprn" }, { COVERAGE_API_KEY: KEY });
    db = await openStore(join(dir, "coverage.sqlite"), { readonly: true });
  }, 60_000);

  afterAll(async () => {
    await db?.close();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const GOOD = GOOD_RATING[scale];

  const out = () => join(dir, "out");

  describe("the batch's workbook", () => {
    it("is written with the reports, and the closing lines name it as the file to open first", () => {
      expect(run.exitCode).toBe(0);
      const results = run.logs.map((l) => JSON.parse(l) as { level: string; message: string }).map((l) => l.message);
      expect(results).toContain(
        `open ${join(out(), "coverage.xlsx")} first: the summary, figures per group and your rows with their figures; ${join(out(), "report.html")} shows them as charts in a browser`,
      );
    });

    it("has its sheets in order, each with a frozen, filtered header and readable headings (API names in notes)", async () => {
      const book = new ExcelJS.Workbook();
      await book.xlsx.readFile(join(out(), "coverage.xlsx"));
      expect(book.worksheets.map((w) => w.name)).toEqual(["Summary", "Groups", "Your rows", "Postcodes", "Broadband", "Mobile"]);
      for (const sheet of book.worksheets) {
        expect(sheet.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
        expect(sheet.autoFilter).toMatch(/^A1:[A-Z]+1$/);
        expect(sheet.getRow(1).getCell(1).font?.bold).toBe(true);
      }
      const mobile = book.getWorksheet("Mobile")!;
      expect(mobile.getRow(1).getCell(6).value).toBe("ProvA voice indoor (rating)");
      expect(String(mobile.getRow(1).getCell(6).note)).toMatch(RATING_NOTE[scale]);
      const broadband = book.getWorksheet("Broadband")!;
      expect(broadband.getRow(1).getCell(10).value).toBe("Best download (Mbit/s)");
      expect(typeof broadband.getRow(2).getCell(2).value).toBe("string"); // UPRN as text
      expect(typeof broadband.getRow(2).getCell(10).value).toBe("number");
      const yours = book.getWorksheet("Your rows")!;
      expect(yours.getRow(2).getCell(1).value).toBe(rows[0]![0]);
      expect(yours.getColumn(1).numFmt).toBe("@");
      // statuses in words, in a column wide enough for the longest (the code cut to width 8 read "uprn_not_fo")
      const headings = yours.getRow(1).values as unknown[];
      const statusAt = headings.findIndex((h, i) => i > 4 && /status/i.test(String(h)));
      const statuses = yours.getColumn(statusAt).values.slice(2);
      expect(statuses).toContain("UPRN not in the answer");
      expect(statuses).toContain("no valid postcode");
      expect(statuses.filter((v) => /_/.test(String(v)))).toEqual([]);
      expect(yours.getColumn(statusAt).width).toBeGreaterThanOrEqual("pending (no answer yet)".length);
      // one meaning per label: the nested count says "at least"; a bare "Superfast" is only ever the 30-300 band
      const groupHeadings = (book.getWorksheet("Groups")!.getRow(1).values as unknown[]).map(String);
      expect(groupHeadings).toContain("At least superfast");
      expect(groupHeadings).not.toContain("Superfast");
      // each group's answered postcodes per lookup, and why a group has no estimate, in groups.csv's words
      const groupSheet = book.getWorksheet("Groups")!;
      const [answeredAt, noteAt] = ["Broadband answered postcodes", "Estimate note"].map((h) => groupHeadings.indexOf(h));
      expect(answeredAt).toBeGreaterThan(0);
      const groupValues = (groupSheet.getSheetValues() as unknown[][]).slice(2);
      expect(groupValues.every((r) => typeof r[answeredAt!] === "number")).toBe(true);
      expect(noteAt).toBeGreaterThan(answeredAt!);
      // beside a ranked figure's share, the figure to sort by allowing for size: its 95% interval's low end
      const [shareAt, rankAt] = ["Below superfast %", "Below superfast % (low, 95%)"].map((h) => groupHeadings.indexOf(h));
      expect(rankAt).toBe(shareAt! + 1);
      const ranked = groupValues.filter((r) => typeof r[shareAt!] === "number");
      expect(ranked.length).toBeGreaterThan(0);
      for (const r of ranked) expect(r[rankAt!]).toBeCloseTo(rankingFigure(Number(r[shareAt! - 1]), Number(r[groupHeadings.indexOf("Broadband addresses")]))!, 4);
      expect(ranked.some((r) => (r[rankAt!] as number) < (r[shareAt!] as number))).toBe(true);
      for (const note of groupValues.map((r) => r[noteAt!]).filter((v) => v !== undefined && v !== null && v !== ""))
        expect(note).toMatch(/^(Broadband|Mobile): no estimate: fewer than 2 of its postcodes answered(; Mobile: no estimate: fewer than 2 of its postcodes answered)?$/);
      const summary = book.getWorksheet("Summary")!;
      const figures = summary.getSheetValues().slice(2).map((r) => (r as unknown[]).slice(1));
      const below = figures.find((r) => r[1] === "Addresses below superfast (under 30 Mbit/s down)")!;
      expect(below[2]).toBeTypeOf("number");
      // numbers in every figure's cells: the share and an estimate's interval are fractions under a percent format
      expect(below[3]).toBeCloseTo((below[2] as number) / Number(String(below[6]).split(" ")[0]!.replace(/,/g, "")), 4);
      expect(figures.some((r) => r[0] === "Provenance" && r[1] === "Mobile data" && /^release /.test(String(r[2])))).toBe(true);
    });

    it.skipIf(LIBREOFFICE.skip)("opens in LibreOffice with IDs and UPRNs intact, figures per region and per property as stored", async () => {
      const lo = join(dir, "lo");
      // one CSV per sheet (the last filter option, -1); a profile of its own so that parallel runs do not collide
      await promisify(execFile)(
        "soffice",
        [
          "--headless",
          "--norestore",
          `-env:UserInstallation=file://${join(dir, "lo-profile")}`,
          "--convert-to",
          "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1",
          "--outdir",
          lo,
          join(out(), "coverage.xlsx"),
        ],
        { timeout: 120_000 },
      );
      expect(readdirSync(lo).sort()).toEqual(["Broadband", "Groups", "Mobile", "Postcodes", "Summary", "Your rows"].map((s) => `coverage-${s}.csv`));
      const sheet = (name: string) => parse(readFileSync(join(lo, `coverage-${name}.csv`)), { columns: true, bom: true }) as Record<string, string>[];

      const yours = sheet("Your rows");
      expect(yours.map((r) => [r.id, r.uprn])).toEqual(rows.map((r) => [r[0], r[3]]));
      const runId = run.runId!;
      for (const [i, r] of yours.entries()) {
        const postcode = rows[i]![1]!.replace(/\s+/g, "").toUpperCase();
        const want = await expectedProperty(db, postcode, rows[i]![3]!, PROVIDERS, GOOD);
        expect({
          down: r["This property: best download (Mbit/s)"],
          up: r["This property: best upload (Mbit/s)"],
          tier: r["This property: broadband tier"],
          best: r["This property: best provider indoors"],
          provAVoice: r["This property: ProvA good indoor voice"],
          provDData: r["This property: ProvD good indoor data"],
        }).toEqual({
          down: want.PropertyMaxPredictedDown,
          up: want.PropertyMaxPredictedUp,
          tier: want.PropertyTier,
          best: want.PropertyBestProviderIndoors,
          provAVoice: want.PropertyProvAIndoorVoiceGood,
          provDData: want.PropertyProvDIndoorDataGood,
        });
      }
      // statuses in words, whole (a code cut to the column's width read "uprn_not_fo")
    expect(yours.map((r) => r.Status)).toEqual([...rows.slice(0, -3).map(() => "found"), "UPRN not in the answer", "found", "no valid postcode"]);
      expect(yours.slice(0, -3).every((r) => r["This property: broadband tier"] !== "")).toBe(true);

      const groups = sheet("Groups").filter((g) => g["Grouped by"] === "region");
      const expected = await independentGroups(db, runId, GOOD, [{ name: "region", valueOf: (cells) => cells[2] }]);
      expect(groups.map((g) => g.Group)).toEqual(["England", "Scotland", "Wales", "(blank)"]);
      expect(
        groups.map((g) => ({
          group: g.Group,
          inputRows: Number(g["Input rows"]),
          postcodes: Number(g.Postcodes),
          addresses: Number(g.Addresses),
          broadbandAddresses: Number(g["Broadband addresses"]),
          belowSuperfast: Number(g["Below superfast"]),
          gigabit: Number(g.Gigabit),
          noData: Number(g["No broadband data"]),
          voiceTotal: Number(g["Indoor voice total notspots"]),
          dataPartial: Number(g["Indoor data partial notspots"]),
          provCVoice: Number(g["ProvC indoor voice notspots"]),
        })),
      ).toEqual(
        expected.map((e) => ({
          group: e.group,
          inputRows: e.inputRows,
          postcodes: e.postcodes,
          addresses: e.addresses,
          broadbandAddresses: e.broadbandAddresses,
          belowSuperfast: e.broadband.BelowSuperfast,
          gigabit: e.broadband.Gigabit,
          noData: e.broadband.NoData,
          voiceTotal: e.mobile.IndoorVoiceTotalNotspots,
          dataPartial: e.mobile.IndoorDataPartialNotspots,
          provCVoice: e.mobile.ProvCIndoorVoiceNotspots,
        })),
      );

      const stored = (await storedTable(db, "broadband")).length;
      const broadband = sheet("Broadband");
      expect(broadband).toHaveLength(stored);
      expect(broadband.every((r) => /^\d{1,12}$/.test(r.UPRN!))).toBe(true);
    }, 180_000);
  });
});

beforeAll(() => {
  dir ??= tempDir("pcc-workbook-fixture-");
});

describe("a sheet longer than --workbook-rows", () => {
  it("holds a note naming the CSV and the Parquet export instead of its rows, and the Summary says so", async () => {
    const fixture = await buildFixture(join(dir, "fixture.sqlite"));
    try {
      const source = fixture.store;
      const workbook = (rows: number, path: string) =>
        source.snapshot({ runId: fixture.runId, nowMs: Date.now() }, async (snapshot) => {
          await snapshot.preparePostcodes(3);
          const summary = await computeSummary(snapshot, 3, "2026-01-02T03:04:05.000Z");
          return writeWorkbook(snapshot, { summary, groups: null, goodRating: 3, workbookRows: rows }, path);
        });
      const path = join(dir, "small.xlsx");
      // 6 input rows, 4 postcodes, 6 broadband and 7 mobile addresses: a limit of 6 rows leaves out Mobile's rows only
      const result = await workbook(6, path);
      expect(result).toEqual({ sheets: ["Summary", "Your rows", "Postcodes", "Broadband", "Mobile"], leftOut: [{ sheet: "Mobile", rows: 7, csv: "mobile.csv" }] });
      const book = new ExcelJS.Workbook();
      await book.xlsx.readFile(path);
      expect(book.worksheets.map((w) => w.name)).toEqual(result.sheets);
      const mobile = book.getWorksheet("Mobile")!;
      expect(mobile.getSheetValues().slice(1).map((r) => (r as unknown[]).slice(1))).toEqual([
        ["Note"],
        ["7 rows are more than this sheet is set to hold (--workbook-rows 6): every row is in mobile.csv in this folder, or mobile/ of `npm run export` (Parquet)."],
      ]);
      expect(book.getWorksheet("Broadband")!.rowCount).toBe(7);
      // a limit of 3: every sheet of rows holds a note, Your rows' naming only its CSV
      const tiny = await workbook(3, join(dir, "tiny.xlsx"));
      expect(tiny.leftOut.map((l) => [l.sheet, l.rows])).toEqual([["Your rows", 6], ["Postcodes", 4], ["Broadband", 6], ["Mobile", 7]]);
      const tinyBook = new ExcelJS.Workbook();
      await tinyBook.xlsx.readFile(join(dir, "tiny.xlsx"));
      expect(tinyBook.getWorksheet("Your rows")!.getCell("A2").value).toBe("6 rows are more than this sheet is set to hold (--workbook-rows 3): every row is in enriched.csv in this folder.");
      expect(tinyBook.getWorksheet("Postcodes")!.getCell("A2").value).toMatch(/every row is in postcodes\.csv in this folder, or postcodes\.parquet of `npm run export`/);
      const about = book.getWorksheet("Summary")!.getSheetValues().slice(2).map((r) => (r as unknown[]).slice(1, 4));
      expect(about).toContainEqual([
        "About",
        "Mobile sheet: rows left out",
        "its 7 rows are more than this workbook's limit (--workbook-rows 6): every row is in mobile.csv in this folder, or mobile/ of `npm run export` (Parquet)",
      ]);
    } finally {
      await fixture.store.close();
    }
  });
});

describe("report options checked before fetching", () => {
  it("a --group-by or --uprn-column naming no input column stops the batch at once: exit 1, nothing fetched", async () => {
    const at = tempDir("pcc-workbook-bad-");
    const sim = await startSimulator({ port: 0, seed: SEED, key: KEY });
    try {
      const input = writeCsv(at, "input.csv", ["id,postcode,region", "001,CF10 1AA,Wales"]);
      for (const [flags, message] of [
        [{ groupBy: "regoin" }, /^--group-by "regoin": no such column; the names available are "area", "district", "sector", "id", "postcode", "region"$/],
        [{ uprnColumn: "uprn" }, /^--uprn-column "uprn": the input has no such column; its columns are "id", "postcode", "region"$/],
      ] as const) {
        const bad = await runIn(at, { in: input, baseUrl: sim.url, ...flags }, { COVERAGE_API_KEY: KEY });
        expect(bad.exitCode).toBe(1);
        const errors = bad.logs.map((l) => JSON.parse(l) as { level: string; message: string }).filter((l) => l.level === "error");
        expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(message)]);
        const store = await openStore(join(at, "coverage.sqlite"), { readonly: true });
        try {
          // the input's one postcode has no answer of either lookup
          expect([await store.answers.get("CF101AA", "broadband"), await store.answers.get("CF101AA", "mobile")]).toEqual([null, null]);
        } finally {
          await store.close();
        }
      }
    } finally {
      await sim.close();
      rmSync(at, { recursive: true, force: true });
    }
  });
});
