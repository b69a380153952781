// Night one on a list sorted by district with a quota far below its size: the sample order reaches
// nearly every district, and the reports carry the whole list's estimates beside the answered-only figures.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import ExcelJS from "exceljs";
import { parse } from "csv-parse/sync";
import { afterAll, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { simulatedOpenDataArchive, startSimulator } from "../src/simulator/index.js";
import { compactPostcode } from "../src/contract/postcode.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { clockOnDay } from "./helpers/fake-clock.js";
import { intervalText } from "../src/report/words/estimate-words.js";
import type { EstimatesJson } from "../src/report/json/summary-json.js";
import { readSummaryJson } from "./helpers/summary-json.js";

const KEY = "test-key-Zx81-do-not-leak";
const env = { COVERAGE_API_KEY: KEY };
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const LETTERS = [..."ABDEFGHJLNPQRSTUWXYZ"];
// 28 districts of 20 postcodes, sorted by district
const list = Array.from({ length: 28 }, (_, d) => Array.from({ length: 20 }, (_, i) => compactPostcode(`CF${d + 1} ${i % 10}${LETTERS[Math.floor(i / 10)]}${LETTERS[(d + i) % 20]}`)!)).flat();

interface Extra {
  /** each postcode's input row after it: extra columns */
  columns?: { header: string[]; cells: (postcode: string, i: number) => string[] };
  /** an --area-file: its header and rows */
  area?: string[];
  groupBy?: string;
}

async function nightOne(order: "sample" | "input", openData = false, extra: Extra = {}) {
  // The API's own quota, one request at a time: each lookup answers exactly the first 60 postcodes
  // of the order (a run-wide --max-requests splits between the lookups as their timing falls).
  const s = await startSimulator({ port: 0, seed: 11, key: KEY, quota: 60 });
  try {
    const d = tempDir();
    dirs.push(d);
    const c = extra.columns;
    const input = writeCsv(d, "in.csv", c ? [["postcode", ...c.header].join(","), ...list.map((p, i) => [p, ...c.cells(p, i)].join(","))] : ["postcode", ...list]);
    const area = extra.area ? { areaFile: writeCsv(d, "areas.csv", extra.area) } : {};
    const archive = simulatedOpenDataArchive(11, list);
    if (openData) writeFileSync(join(d, archive.name), archive.bytes);
    // on a fixed day: the sample's order, and so which postcodes the quota answers, follows the first run's date
    const r = await runIn(d, { in: input, baseUrl: s.url, concurrency: 1, order, groupBy: extra.groupBy ?? "district", ...area, ...(openData ? { openData: join(d, archive.name) } : {}) }, env, { clock: clockOnDay("2026-12-06") });
    expect(r.exitCode).toBe(3);
    const summary = readSummaryJson<{ estimates: EstimatesJson; input: { postcodeColumn: string } }>(join(d, "out", "summary.json"));
    // the column the postcodes were read from, in summary.json and the log
    expect(summary.input.postcodeColumn).toBe("postcode");
    const groups = parse(readFileSync(join(d, "out", "groups.csv"), "utf8"), { columns: true, bom: true }) as Record<string, string>[];
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(join(d, "out", "coverage.xlsx"));
    const messages = r.logs.map((l) => String((JSON.parse(l) as { msg?: string; message?: string }).msg ?? (JSON.parse(l) as { message?: string }).message ?? ""));
    return { estimates: summary.estimates, csv: readFileSync(join(d, "out", "summary.csv"), "utf8"), html: readFileSync(join(d, "out", "report.html"), "utf8"), groups, workbook, messages };
  } finally {
    await s.close();
  }
}

/** A partly answered list's reports lead with the whole list: summary.csv's first rows, report.html's opening, the log's closing lines, the workbook's top. */
function expectLead(r: { estimates: EstimatesJson; csv: string; html: string; workbook: ExcelJS.Workbook; messages: string[] }) {
  const e = r.estimates;
  const lead = "Whole list (partly answered)";
  const rows = parse(r.csv, { columns: true, bom: true }) as Record<string, string>[];
  expect(rows[0]).toMatchObject({ Section: lead, Figure: "Postcodes answered for broadband", Count: String(e.lookups.broadband!.answeredPostcodes), Of: "560 postcodes of the list" });
  expect(rows[1]).toMatchObject({ Section: lead, Figure: "Postcodes answered for mobile", Count: String(e.lookups.mobile!.answeredPostcodes) });
  // the service's quota answered 60 requests a lookup in a 28-day period: answers serve 29 nights, so
  // about 62 postcodes hold one at any time, never the whole list: no date for the rest
  const rest = rows.find((x) => x.Figure === "The rest answered")!.Count!;
  expect(rest).toBe("about 62 hold an answer at any time, never all at once at this quota");
  const capacity = [
    "About 62 of the list's 560 postcodes hold an answer at any time: the quota (60 requests a quota period) keeps no more answered at once, as answers expire.",
    "The whole list's figures are estimates with 95% intervals, and stay so for as long as the list and the quota stay this size.",
    "Answering it all within a month needs --monthly-quota 541 per lookup, or a list of at most 62 postcodes.",
  ];
  expect(e.capacity).toMatchObject({ postcodes: 62, listSize: 560, quotaNeeded: 541, sentences: capacity });
  expect(rows.filter((x) => x.Figure === "What the quota keeps answered").map((x) => x.Count)).toEqual(capacity);
  for (const text of [r.csv, r.html, r.messages.join("\n")]) expect(text).not.toMatch(/by \d{4}-\d\d-\d\d|at the next runs/);
  expect(r.html).toContain(`<p class="capacity">${capacity.join(" ").replaceAll("'", "&#39;")}</p>`);
  for (const c of capacity) expect(r.messages).toContain(`  ${c}`);
  const summarySheet = (r.workbook.getWorksheet("Summary")!.getSheetValues() as unknown[][]).map((v) => v?.[3]);
  for (const c of capacity) expect(summarySheet).toContain(c);
  const below = e.shares.belowSuperfast!;
  const estimate = rows.find((x) => x.Section === lead && x.Figure === "Addresses below superfast (under 30 Mbit/s down): whole list, estimated (95% interval)")!;
  expect([estimate.Count, Number(estimate.Share), Number(estimate.Low), Number(estimate.High)]).toEqual(["", ...[below.estimate!, below.low!, below.high!].map((x) => Math.round(x * 10_000) / 10_000)]);
  expect(rows.find((x) => x.Section === lead && x.Figure === "Addresses below superfast (under 30 Mbit/s down): answered postcodes only")!.Of).toMatch(/addresses of the answered postcodes$/);
  expect(rows.find((x) => x.Section === lead && x.Figure === "Assumption")!.Count).toBe(e.assumption);
  // report.html opens with it, before the answered-only sections
  expect(r.html.indexOf(`id="lead"`)).toBeGreaterThan(0);
  expect(r.html.indexOf(`id="lead"`)).toBeLessThan(r.html.indexOf(`id="broadband"`));
  const opening = r.html.slice(r.html.indexOf(`id="lead"`), r.html.indexOf("</section>", r.html.indexOf(`id="lead"`)));
  expect(opening).toContain(intervalText(below));
  expect(opening).toContain(rest);
  expect(opening).toContain("answered postcodes only: ");
  expect(opening).toContain(e.assumption);
  // the batch's closing lines
  const first = r.messages.findIndex((m) => m.startsWith("whole list (partly answered: "));
  expect(first).toBeGreaterThan(0);
  expect(r.messages[first + 1 + capacity.length]).toContain(`Addresses below superfast (under 30 Mbit/s down), all the list's addresses: ${intervalText(below)} (estimate, 95% interval); answered postcodes only: `);
  expect(r.messages.some((m) => m.startsWith("broadband (answered postcodes only): "))).toBe(true);
  // the workbook's Summary: the same rows on top, the estimate and its interval as numbers under a percent format
  const sheet = r.workbook.getWorksheet("Summary")!;
  expect(sheet.getRow(2).getCell(1).value).toBe(lead);
  const at = (sheet.getSheetValues() as unknown[][]).findIndex((v) => v?.[2] === estimate.Figure);
  const cells = [4, 5, 6].map((c) => sheet.getRow(at).getCell(c));
  expect(cells.map((c) => c.value)).toEqual([Number(estimate.Share), Number(estimate.Low), Number(estimate.High)]);
  for (const c of cells) expect(c.numFmt).toMatch(/%/);
}

const reached = (e: EstimatesJson) => Object.values(e.groups.district!.list).filter((g) => g.answeredPostcodes > 0).length;

describe("estimates on night one", () => {
  it("answers postcodes of nearly every district, and says what the whole list's shares are likely to be", async () => {
    const { estimates: e, csv, html, groups, workbook, messages } = await nightOne("sample");
    expect(e.postcodes).toBe(560);
    expect(e.answeredPostcodes).toBeGreaterThan(40);
    expect(e.answeredPostcodes).toBeLessThan(70);
    expect(e.exact).toBe(false);
    expect(reached(e)).toBeGreaterThanOrEqual(26);
    for (const key of ["belowSuperfast", "indoorVoiceTotalNotspot", "indoorVoicePartialNotspot", "belowDecent", "noData"]) {
      const s = e.shares[key]!;
      expect(s.low!).toBeLessThanOrEqual(s.estimate!);
      expect(s.high!).toBeGreaterThanOrEqual(s.estimate!);
      expect(s.high! - s.low!).toBeGreaterThan(0);
    }
    const bb = e.lookups.broadband!;
    const summaryRows = parse(csv, { columns: true, bom: true }) as Record<string, string>[];
    expect(summaryRows.find((x) => x.Figure === "Broadband: postcodes answered, what its estimates stand on")).toMatchObject({ Count: String(bb.answeredPostcodes), Of: "560 postcodes of the list" });
    expect(html).toContain("Estimates for the whole list");
    // the chart's basis is each lookup's own
    expect(html).toContain(`broadband: estimated from ${bb.answeredPostcodes} of 560 postcodes (95% interval); mobile: estimated from ${e.lookups.mobile!.answeredPostcodes} of 560 postcodes (95% interval)`);
    // groups.csv and the workbook's Groups: each district's estimates beside its answered-only figures, as fractions
    const pct = (x: number | null) => (x === null ? "" : String(Math.round(x * 10_000) / 10_000));
    expect(groups.filter((g) => g.Dimension === "district")).toHaveLength(28);
    for (const g of groups.filter((r) => r.Dimension === "district")) {
      const shares = e.groups.district!.list[g.Group!]!.shares;
      expect([g.BelowSuperfastEstimate, g.BelowSuperfastLow, g.BelowSuperfastHigh]).toEqual([shares.belowSuperfast!.estimate, shares.belowSuperfast!.low, shares.belowSuperfast!.high].map(pct));
      expect(g.IndoorVoiceTotalNotspotsEstimate).toBe(pct(shares.indoorVoiceTotalNotspot!.estimate));
      expect(g.IndoorVoiceTotalNotspotsHigh).toBe(pct(shares.indoorVoiceTotalNotspot!.high));
      expect(Number(g.BroadbandAnsweredPostcodes)).toBe(e.groups.district!.list[g.Group!]!.answeredPerLookup.broadband);
      expect(Number(g.MobileAnsweredPostcodes)).toBe(e.groups.district!.list[g.Group!]!.answeredPerLookup.mobile);
    }
    const sheet = workbook.getWorksheet("Groups")!;
    const headings = (sheet.getRow(1).values as unknown[]).map(String);
    const at = headings.indexOf("Below superfast % est.");
    expect(at).toBeGreaterThan(0);
    const first = sheet.getRow(2);
    expect(first.getCell(at).value).toBe(Number(pct(e.groups[String(first.getCell(1).value)]!.list[String(first.getCell(2).value)]!.shares.belowSuperfast!.estimate)));
    expect(first.getCell(at + 2).value).toBe(Number(pct(e.groups[String(first.getCell(1).value)]!.list[String(first.getCell(2).value)]!.shares.belowSuperfast!.high)));
    expectLead({ estimates: e, csv, html, workbook, messages });
    expect(messages).toContain(`postcode column: "postcode" (column 1 of 1: "postcode"); --column NAME chooses another`);
    console.log(`night one, sample order: ${e.answeredPostcodes} of 560 postcodes answered, ${reached(e)} of 28 districts reached`);
  });

  it("with Ofcom's open data: below superfast is estimated by regression on Ofcom's share where that narrows it, and says so", async () => {
    const plain = (await nightOne("sample")).estimates.shares;
    const { estimates: e } = await nightOne("sample", true);
    const width = (i: { low: number | null; high: number | null }) => i.high! - i.low!;
    // (with open data the single-band postcodes come last: the answered postcodes differ too)
    console.log(`night one, below superfast: width ${width(plain.belowSuperfast!).toFixed(4)} without open data, ${width(e.shares.belowSuperfast!).toFixed(4)} with (${e.shares.belowSuperfast!.auxiliary ? "regression" : "ratio"})`);
    expect(plain.belowSuperfast!.auxiliary).toBeUndefined();
    expect(e.shares.belowSuperfast!.auxiliary).toBe(true);
    // (the widths come from different samples; test/estimates-simulation.test.ts compares them on the same draws)
    expect(e.shares.belowSuperfast!.low!).toBeLessThanOrEqual(e.shares.belowSuperfast!.estimate!);
    // the mobile figures have no auxiliary
    expect(e.shares.indoorVoiceTotalNotspot!.auxiliary).toBeUndefined();
  });

  it("--order input keeps the file's order: night one reaches only the first districts", async () => {
    const { estimates: e } = await nightOne("input");
    console.log(`night one, input order: ${reached(e)} of 28 districts reached`);
    expect(reached(e)).toBeLessThanOrEqual(4);
  });

  it("estimates every group: input columns and --area-file columns too, in summary.json and groups.csv", async () => {
    const wards = ["North", "South", "West"];
    const columns = { header: ["ward"], cells: (_: string, i: number) => [wards[i % 3]!] };
    const area = ["pcds,lad", ...list.map((p, i) => `${p},${i < 280 ? "Cardiff" : "Swansea"}`)];
    const { estimates: e, groups, html } = await nightOne("sample", false, { columns, area, groupBy: "district,ward,lad" });
    // report.html: each dimension's groups charted with their intervals, and tabled
    for (const id of ["estimates-district", "estimates-ward", "estimates-lad"]) expect(html).toContain(`id="${id}"`);
    expect(html).toContain(intervalText(e.groups.ward!.list.North!.shares.belowSuperfast!));
    const pct = (x: number | null) => (x === null ? "" : String(Math.round(x * 10_000) / 10_000));
    for (const [dimension, values] of [["ward", wards], ["lad", ["Cardiff", "Swansea"]]] as const) {
      expect(Object.keys(e.groups[dimension]!.list)).toEqual(values);
      for (const value of values) {
        const g = e.groups[dimension]!.list[value]!;
        expect(g.postcodes).toBe(list.filter((_, i) => (dimension === "ward" ? wards[i % 3] : i < 280 ? "Cardiff" : "Swansea") === value).length);
        expect(g.answeredPostcodes).toBeGreaterThan(5);
        expect(g.exact).toBe(false);
        const s = g.shares.belowSuperfast!;
        expect(s.low!).toBeLessThanOrEqual(s.estimate!);
        expect(s.high!).toBeGreaterThan(s.low!);
        const row = groups.find((r) => r.Dimension === dimension && r.Group === value)!;
        expect(Number(row.Postcodes)).toBe(g.postcodes);
        expect([row.BelowSuperfastEstimate, row.BelowSuperfastLow, row.BelowSuperfastHigh]).toEqual([s.estimate, s.low, s.high].map(pct));
        expect(row.IndoorVoiceTotalNotspotsEstimate).toBe(pct(g.shares.indoorVoiceTotalNotspot!.estimate));
      }
    }
  });
});
