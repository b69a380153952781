// Issue 25, points 2 and 4: the reports with Ofcom's open data (the simulator's, published as
// Ofcom's are). Ofcom's shares are checked against the simulated addresses counted here; the
// summary's means against postcodes.csv; the cross-check against the API's own counts, and its
// "more than 20 points" count against a postcode whose stored share is moved by 50 points.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import ExcelJS from "exceljs";
import { afterAll, describe, expect, it } from "vitest";
import { generatePostcode, generatePostcodes, simulatedAreaFile, simulatedOpenDataArchive } from "../src/simulator/index.js";
import { openStore } from "../src/store/open-store.js";
import type { Store } from "../src/store/store.js";
import { readOpenData } from "../src/input/open-data.js";
import { OPEN_DATA_COLUMNS } from "../src/contract/open-data.js";
import { writeReports } from "../src/report/index.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { readSummaryJson } from "./helpers/summary-json.js";

const SEED = 1; // the seed --simulate's simulator uses
const d = tempDir("pcc-open-report-");
afterAll(() => rmSync(d, { recursive: true, force: true }));

type Row = Record<string, string>;
const readCsv = (path: string) => parse(readFileSync(path, "utf8"), { columns: true, bom: true }) as Row[];

/** Ofcom's superfast availability as the simulated addresses give it: % at 30 Mbit/s or more, one decimal. */
function superfastOf(postcode: string, residential = false): string {
  const addresses = generatePostcode(SEED, postcode)!.addresses.filter((a) => !residential || a.UPRN % 10 !== 0);
  return String(Math.round((1000 * addresses.filter((a) => a.speeds.MaxPredictedDown >= 30).length) / addresses.length) / 10);
}

describe("reports with Ofcom's open data", () => {
  it("give every postcode Ofcom's figures, means for those without API figures apart from the API's, and the cross-check", async () => {
    const list = generatePostcodes(SEED + 7, 40);
    const archive = simulatedOpenDataArchive(SEED, list);
    writeFileSync(join(d, archive.name), archive.bytes);
    const input = writeCsv(d, "in.csv", ["postcode", ...list]);
    const r = await runIn(d, { in: input, simulate: true, lookups: "broadband", maxRequests: 10, openData: join(d, archive.name) }, {});
    expect(r.exitCode).toBe(3);
    const out = join(d, "out");

    const rows = readCsv(join(out, "postcodes.csv"));
    expect(rows).toHaveLength(40);
    const known = rows.filter((row) => generatePostcode(SEED, row.PostCode!) !== null);
    for (const row of known) {
      expect(row.OfcomDataMonth, row.PostCode).toBe("2026-01");
      expect(row.OfcomSuperfast, row.PostCode).toBe(superfastOf(row.PostCode!));
    }
    for (const row of rows.filter((x) => !known.includes(x))) expect(row.OfcomDataMonth, row.PostCode).toBe("");

    // the summary: means of the shares of the postcodes without API addresses; the API's figures untouched
    const summary = readSummaryJson(join(out, "summary.json"));
    const without = rows.filter((row) => Number(row.BroadbandAddresses) === 0);
    const listed = without.filter((row) => row.OfcomSuperfast !== "");
    const mean = (column: string) => listed.reduce((s, row) => s + Number(row[column]), 0) / listed.length;
    expect(summary.openData).toMatchObject({
      month: "2026-01",
      attribution: expect.stringContaining("Open Government Licence v3.0"),
      withoutApi: {
        postcodes: without.length,
        inOpenData: listed.length,
        allGigabit: listed.filter((row) => row.OfcomGigabit === "100").length,
      },
    });
    // each mean to one decimal: within 0.05 of the exact one (a mean ending in 5 may round either way in binary)
    for (const [share, column] of [["superfast", "OfcomSuperfast"], ["gigabit", "OfcomGigabit"]] as const) {
      const stated = summary.openData!.withoutApi.meanShares[share] as number;
      expect(Number(stated.toFixed(1)), share).toBe(stated);
      expect(Math.abs(stated - mean(column)), `${share}: ${stated} against ${mean(column)}`).toBeLessThanOrEqual(0.05 + 1e-9);
    }
    expect(summary.broadband!.addresses).toBe(rows.reduce((s, row) => s + Number(row.BroadbandAddresses), 0));

    // the cross-check: the simulator's open data and API agree everywhere
    const both = readCsv(join(out, "open-data-vs-api.csv"));
    expect(both.map((row) => row.PostCode).sort()).toEqual(rows.filter((row) => Number(row.BroadbandAddresses) > 0 && row.OfcomSuperfast !== "").map((row) => row.PostCode).sort());
    for (const row of both) {
      const p = rows.find((x) => x.PostCode === row.PostCode)!;
      expect(Number(row.ApiSuperfast)).toBeCloseTo((100 * Number(p.Superfast)) / Number(p.BroadbandAddresses), 1);
      expect(Number(row.Difference), row.PostCode).toBe(0);
    }
    expect(summary.openData?.crossCheck).toEqual({ postcodes: both.length, differing: 0, points: 20 });

    // a postcode whose stored share is 50 points off is counted, one 20 points off is not
    const db = await openStore(join(d, "coverage.sqlite"));
    try {
      const shift = (row: Row, by: number) => [row.PostCode!.replace(" ", ""), Math.max(0, Number(row.OfcomSuperfast) + (Number(row.OfcomSuperfast) >= 50 ? -by : by))] as const;
      await reimportShifted(db, join(d, archive.name), new Map([shift(both[0]!, 50), shift(both[1]!, 20)]));
      const again = await writeReports(db, { outDir: join(d, "again") });
      expect(again.summary.openData!.crossCheck.differing).toBe(1);
      const moved = readCsv(join(d, "again", "open-data-vs-api.csv"));
      expect(moved.map((row) => Math.abs(Number(row.Difference)))).toEqual([50, 20, ...Array(both.length - 2).fill(0)]);

      // postcodes.geojson (with an area file) carries the open-data month and shares that postcodes.csv has
      writeFileSync(join(d, "areas.csv"), simulatedAreaFile(new Set(list.map((p) => p.replace(" ", "")))).join("\r\n") + "\r\n");
      await writeReports(db, { outDir: join(d, "geo"), areaFile: join(d, "areas.csv") });
      const csvRows = new Map(readCsv(join(d, "geo", "postcodes.csv")).map((row) => [row.PostCode!, row]));
      const features = JSON.parse(readFileSync(join(d, "geo", "postcodes.geojson"), "utf8")).features as { properties: Record<string, unknown> }[];
      expect(features.length).toBeGreaterThan(0);
      for (const f of features) {
        const row = csvRows.get(f.properties.PostCode as string)!;
        expect(f.properties.OfcomDataMonth, row.PostCode).toBe(row.OfcomDataMonth === "" ? null : row.OfcomDataMonth);
        expect(f.properties.OfcomSuperfast, row.PostCode).toBe(row.OfcomSuperfast === "" ? null : Number(row.OfcomSuperfast));
        expect(f.properties.OfcomGigabit, row.PostCode).toBe(row.OfcomGigabit === "" ? null : Number(row.OfcomGigabit));
      }
      expect(features.some((f) => typeof f.properties.OfcomSuperfast === "number")).toBe(true);
    } finally {
      await db.close();
    }

    // the words: summary.csv, report.html and the workbook's Summary print the source and keep the figures apart
    const summaryCsv = readFileSync(join(out, "summary.csv"), "utf8");
    expect(summaryCsv).toContain(`Open data,Source,"Contains Ofcom data`);
    expect(summaryCsv).toContain(`Open data,"Superfast (30 Mbit/s or more) available: mean share of premises per postcode, %`);
    const html = readFileSync(join(out, "report.html"), "utf8");
    expect(html).toContain("Open data for postcodes without API figures");
    expect(html).toContain("licensed under the Open Government Licence v3.0");
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(join(out, "coverage.xlsx"));
    const sections = new Set<string>();
    workbook.getWorksheet("Summary")!.eachRow((row) => sections.add(String(row.getCell(1).value)));
    expect(sections).toContain("Open data");
    const header = (workbook.getWorksheet("Postcodes")!.getRow(1).values as unknown[]).map(String);
    expect(header).toContain("Ofcom: superfast available, % of premises");

    // --open-data-premises residential: the residential files' shares instead (the release is not read again)
    const res = await runIn(d, { in: input, simulate: true, lookups: "broadband", maxRequests: 0, openData: join(d, archive.name), openDataPremises: "residential" }, {});
    expect(res.logs.some((l) => l.includes("not read again"))).toBe(true);
    const residential = readCsv(join(out, "postcodes.csv"));
    let differ = 0;
    for (const row of residential.filter((x) => generatePostcode(SEED, x.PostCode!) !== null)) {
      if (generatePostcode(SEED, row.PostCode!)!.addresses.every((a) => a.UPRN % 10 === 0)) continue;
      expect(row.OfcomSuperfast, row.PostCode).toBe(superfastOf(row.PostCode!, true));
      if (row.OfcomSuperfast !== superfastOf(row.PostCode!)) differ++;
    }
    expect(differ).toBeGreaterThan(0);
    expect(readFileSync(join(out, "summary.csv"), "utf8")).toContain("residential premises");
  }, 60_000);
});

/** Imports the release at `path` again through the store's writer, with these postcodes' superfast share (all premises) moved to the value given. */
async function reimportShifted(store: Store, path: string, superfast: Map<string, number>): Promise<void> {
  const current = (await store.openData.current())!;
  const column = OPEN_DATA_COLUMNS.indexOf("OfcomSuperfast");
  const writer = await store.openData.startImport();
  const read = await readOpenData(path, (premises, postcode, values) => {
    const moved = premises === "all" ? superfast.get(postcode) : undefined;
    writer.row(premises, postcode, moved === undefined ? values : values.map((v, i) => (i === column ? moved : v)));
  });
  // recorded as the same import (its fingerprint too): a later batch with this file does not read it again, as it would not after a hand edit
  await writer.commit({ month: read.month, revision: read.revision, source: current.source, fingerprint: current.fingerprint, importedAt: current.importedAt, files: read.files, runId: null });
}
