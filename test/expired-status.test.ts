// Postcodes whose answer expired (deleted by the retention, or hidden at a reader's clock) are shown
// as expired, awaiting refresh, not as pending: postcodes.csv, summary.json, the workbook and
// report.html; Ofcom's open-data figures stay beside them.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import ExcelJS from "exceljs";
import { afterAll, describe, expect, it } from "vitest";
import { generatePostcode, generatePostcodes, simulatedOpenDataArchive, startSimulator } from "../src/simulator/index.js";
import { openStore } from "../src/store/open-store.js";
import { writeReports } from "../src/report/index.js";
import { STATUS_WORDS } from "../src/report/xlsx/status-words.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { FakeClock } from "./helpers/fake-clock.js";
import { readSummaryJson } from "./helpers/summary-json.js";

const KEY = "kq-5d1e-Qx-77Zb-3f0a-9c1d";
const SEED = 1;
const DAY = 24 * 3600 * 1000;
const T0 = Date.parse("2026-03-01T02:00:00Z");
const d = tempDir("pcc-expired-");
afterAll(() => rmSync(d, { recursive: true, force: true }));
type Row = Record<string, string>;

describe("expired, awaiting refresh", () => {
  it("a deleted answer's postcode is expired in postcodes.csv, summary.json, the workbook and report.html, with its open data", async () => {
    const sim = await startSimulator({ port: 0, seed: SEED, key: KEY, release: 1 });
    try {
      const list = generatePostcodes(SEED + 7, 8);
      const archive = simulatedOpenDataArchive(SEED, list);
      writeFileSync(join(d, archive.name), archive.bytes);
      const input = writeCsv(d, "in.csv", ["postcode", ...list]);
      const clock = new FakeClock(T0);
      const env = { COVERAGE_API_KEY: KEY };
      const first = await runIn(d, { in: input, baseUrl: sim.url, lookups: "broadband", openData: join(d, archive.name), reports: false }, env, { clock });
      expect(first.exitCode).toBe(0);
      // day 33: every answer is past the 30 days and deleted; the quota lets two be fetched again
      clock.t = T0 + 33 * DAY;
      const r = await runIn(d, { in: input, baseUrl: sim.url, lookups: "broadband", maxRequests: 2 }, env, { clock });
      expect(r.logs.join("\n")).toMatch(/retention: deleted 8 answer\(s\)/);
      const out = join(d, "out");
      const rows = parse(readFileSync(join(out, "postcodes.csv"), "utf8"), { columns: true, bom: true }) as Row[];
      const expired = rows.filter((row) => row.BroadbandStatus === "expired");
      expect(expired).toHaveLength(6);
      expect(rows.filter((row) => row.BroadbandStatus === "pending")).toEqual([]);
      for (const row of expired) {
        if (generatePostcode(SEED, row.PostCode!) !== null) expect(row.OfcomDataMonth, row.PostCode).toBe("2026-01");
        // its figures are unknown: empty, not 0
        expect([row.BroadbandAddresses, row.BelowSuperfast, row.NoData], row.PostCode).toEqual(["", "", ""]);
      }
      expect(expired.some((row) => row.OfcomSuperfast !== "")).toBe(true);

      const summary = readSummaryJson(join(out, "summary.json"));
      expect(summary.broadband?.postcodes).toMatchObject({ expired: 6, pending: 0 });
      const summaryCsv = parse(readFileSync(join(out, "summary.csv"), "utf8"), { columns: true, bom: true }) as Row[];
      expect(summaryCsv.find((f) => f.Figure === "Postcodes whose answer expired, awaiting refresh")?.Count).toBe("6");
      const html = readFileSync(join(out, "report.html"), "utf8");
      expect(html).toContain("Expired, awaiting refresh");
      expect(html).toContain("past the retention (--retention) and are not shown");

      const book = new ExcelJS.Workbook();
      await book.xlsx.readFile(join(out, "coverage.xlsx"));
      const sheet = book.getWorksheet("Postcodes")!;
      const header = (sheet.getRow(1).values as unknown[]).map(String);
      const at = header.indexOf("Broadband lookup");
      expect(at).toBeGreaterThan(0);
      const words = sheet.getColumn(at).values.slice(2).map(String);
      expect(words.filter((w) => w === "expired, awaiting refresh")).toHaveLength(6);
      expect(sheet.getColumn(at).width!).toBeGreaterThanOrEqual(STATUS_WORDS.expired!.length);
    } finally {
      await sim.close();
    }
  });

  it("an answer hidden at the reader's clock, not yet deleted, is expired too", async () => {
    const sim = await startSimulator({ port: 0, seed: SEED, key: KEY, release: 1 });
    const dir = tempDir("pcc-expired-hidden-");
    try {
      const list = generatePostcodes(SEED, 4);
      const clock = new FakeClock(T0);
      const run = await runIn(dir, { in: writeCsv(dir, "a.csv", ["postcode", ...list]), baseUrl: sim.url, lookups: "broadband", reports: false }, { COVERAGE_API_KEY: KEY }, { clock });
      expect(run.exitCode).toBe(0);
      const out = join(dir, "out-31");
      const db = await openStore(join(dir, "coverage.sqlite"), { readonly: true });
      try {
        await writeReports(db, { outDir: out, now: () => new Date(T0 + 31 * DAY) });
      } finally {
        await db.close();
      }
      const rows = parse(readFileSync(join(out, "postcodes.csv"), "utf8"), { columns: true, bom: true }) as Row[];
      expect(rows.map((row) => row.BroadbandStatus)).toEqual(list.map(() => "expired"));
      expect(readSummaryJson(join(out, "summary.json")).broadband?.postcodes).toMatchObject({ expired: 4, pending: 0 });
    } finally {
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
