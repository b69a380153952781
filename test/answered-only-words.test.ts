// A list the quota only partly answers: every figure counted over the answered postcodes says so in
// the very cell or sentence that gives it (summary.csv's label, the workbook's Summary, report.html's
// readings and captions, the batch's closing lines), and the map says how many of the postcodes it
// shows have an answer. A real night against the simulator's own quota.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import ExcelJS from "exceljs";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator } from "../src/simulator/index.js";
import { compactPostcode, displayPostcode } from "../src/contract/postcode.js";
import { ANSWERED_ONLY } from "../src/report/words/answered-only.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { clockOnDay } from "./helpers/fake-clock.js";

const KEY = "test-key-Zx81-do-not-leak";
const dir = tempDir("pcc-answered-only-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LETTERS = [..."ABDEFGHJLNPQRSTUWXYZ"];
// 3 districts of 20 postcodes, each placed near Cardiff
const list = Array.from({ length: 3 }, (_, d) => Array.from({ length: 20 }, (_, i) => compactPostcode(`CF${d + 1} ${i % 10}${LETTERS[Math.floor(i / 10)]}${LETTERS[(d + i) % 20]}`)!)).flat();

let summaryCsv: Record<string, string>[];
let html: string;
let messages: string[];
let workbook: ExcelJS.Workbook;

beforeAll(async () => {
  // the API's own quota: each lookup answers 15 of the 60 postcodes
  const s = await startSimulator({ port: 0, seed: 5, key: KEY, quota: 15 });
  try {
    const input = writeCsv(dir, "in.csv", ["postcode", ...list]);
    const area = writeCsv(dir, "areas.csv", ["pcds,lat,long", ...list.map((p, i) => `${displayPostcode(p)},${(51.45 + (i % 12) * 0.01).toFixed(4)},${(-3.2 - Math.floor(i / 12) * 0.01).toFixed(4)}`)]);
    const r = await runIn(dir, { in: input, baseUrl: s.url, concurrency: 1, areaFile: area, groupBy: "district" }, { COVERAGE_API_KEY: KEY }, { clock: clockOnDay("2026-12-06") });
    expect(r.exitCode).toBe(3);
    summaryCsv = parse(readFileSync(join(dir, "out", "summary.csv")), { columns: true, bom: true }) as Record<string, string>[];
    html = readFileSync(join(dir, "out", "report.html"), "utf8");
    messages = r.logs.map((l) => { const j = JSON.parse(l) as { msg?: string; message?: string }; return String(j.msg ?? j.message ?? ""); });
    workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(join(dir, "out", "coverage.xlsx"));
  } finally {
    await s.close();
  }
});

/** summary.csv's rows of counted addresses: the Broadband and Mobile sections' figures with a number of addresses. */
const addressRows = (rows: Record<string, string>[]) =>
  rows.filter((r) => (r.Section === "Broadband" || r.Section === "Mobile") && /^\d+$/.test(r.Count!) && !/postcodes$/i.test(r.Of!) && !/^Postcodes /.test(r.Figure!));

describe("a partly answered list's answered-only figures", () => {
  it("say so in summary.csv's own label, and in the workbook's Summary", () => {
    const rows = addressRows(summaryCsv);
    expect(rows.length).toBeGreaterThan(20);
    for (const r of rows) expect(r.Figure).toMatch(new RegExp(`\\(${ANSWERED_ONLY}\\)$`));
    expect(rows.map((r) => r.Figure)).toContain(`Addresses (${ANSWERED_ONLY})`);
    // the postcodes' statuses count the whole list: no tag
    expect(summaryCsv.find((r) => r.Section === "Broadband" && r.Figure === "Postcodes found")).toBeDefined();
    const sheet = workbook.getWorksheet("Summary")!;
    const labels = (sheet.getSheetValues() as unknown[][]).filter((v) => v?.[1] === "Broadband" || v?.[1] === "Mobile").map((v) => String(v[2]));
    for (const r of rows) expect(labels).toContain(r.Figure);
  });

  it("say so in report.html's every broadband and mobile reading and caption", () => {
    const section = (id: string) => html.slice(html.indexOf(`<section id="${id}"`), html.indexOf("</section>", html.indexOf(`<section id="${id}"`)));
    for (const id of ["broadband", "mobile"]) {
      const readings = [...section(id).matchAll(/<p class="reading">([^<]*)<\/p>/g)].map((m) => m[1]!).filter((t) => /\d+(\.\d)?%/.test(t));
      expect(readings.length).toBeGreaterThan(id === "mobile" ? 2 : 1);
      for (const t of readings) expect(t).toMatch(/^Answered postcodes only: /);
      const captions = [...section(id).matchAll(/<caption>([^<]*)<\/caption>/g)].map((m) => m[1]!);
      for (const c of captions) expect(c).toMatch(new RegExp(`\\(${ANSWERED_ONLY}\\)$`));
    }
    // the groups' shares too
    for (const t of [...section("groups").matchAll(/<p class="reading">([^<]*)<\/p>/g)].map((m) => m[1]!)) expect(t).toMatch(/^Answered postcodes only: Worst: /);
  });

  it("the map and its legend say how many of the postcodes shown have an answer", () => {
    const summary = JSON.parse(readFileSync(join(dir, "out", "summary.json"), "utf8")) as { estimates: { lookups: Record<string, { answeredPostcodes: number }> } };
    const map = html.slice(html.indexOf(`<section id="map"`), html.indexOf("</section>", html.indexOf(`<section id="map"`)));
    const broadband = summary.estimates.lookups.broadband!.answeredPostcodes;
    expect(broadband).toBeGreaterThan(5);
    expect(broadband).toBeLessThan(30);
    // answered postcodes with addresses: at most those answered
    const shown = Number(/Colours from (\d+) of the 60 postcodes shown \(those with broadband addresses\)/.exec(map)?.[1]);
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThanOrEqual(broadband);
    expect(map).toContain(`60 postcodes on the map (${shown} with broadband addresses, `);
    expect(map).toContain(`Answered postcodes only: ${shown} of the 60 postcodes on the map have broadband addresses in their answers; the colours come from them alone.`);
  });

  it("say so in the batch's closing lines", () => {
    expect(messages.some((m) => m.startsWith(`broadband (${ANSWERED_ONLY}): `))).toBe(true);
    expect(messages.some((m) => m.startsWith(`mobile (${ANSWERED_ONLY}): `))).toBe(true);
  });
});
