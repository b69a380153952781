// A figure without an answer behind it is empty, never 0: a postcode pending (the night sent
// nothing for it) or not found has empty figure cells in enriched.csv, postcodes.csv, the
// workbook's per-row and per-postcode sheets, groups.csv (a group none of whose postcodes is
// answered), postcodes.geojson and the export, with its Status saying why; a first night that
// sends nothing leaves summary.csv's figures empty too, summary.json's null, and report.html and the
// console say "no answer yet" where they gave 0 addresses, while a lookup with answers keeps its
// true 0s. The real pipeline against the simulator, on one injected clock.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import ExcelJS from "exceljs";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePostcode, generatePostcodes, simulatedAreaFile, startSimulator } from "../src/simulator/index.js";
import { enrichedFigureColumns, postcodeFigureColumns } from "../src/report/csv/postcode-files.js";
import { COORDINATE_COLUMNS } from "../src/figures/coordinates.js";
import { STATUS_COLUMN } from "../src/figures/postcode-columns.js";
import { writeExport } from "../src/export/write-export.js";
import { sqliteSnapshotSource } from "../src/store/sqlite/report/source.js";
import { openDatabase } from "../src/store/sqlite/db.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { FakeClock } from "./helpers/fake-clock.js";
import { readSummaryJson } from "./helpers/summary-json.js";
import { hasAnswers, noAnswerWords } from "../src/report/summary/without-answers.js";

const KEY = "kq-unknown-empty-7f3a-91bc";
const SEED = 23;
const DAY = 24 * 3600 * 1000;
const T0 = Date.parse("2026-05-04T02:00:00Z");
const PROVIDERS = ["ProvA", "ProvB", "ProvC", "ProvD"];
type Row = Record<string, string>;

const dir = tempDir("pcc-unknown-empty-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// answered on the first night; new on the second, which may send nothing
const answered = generatePostcodes(SEED, 4);
const fresh = generatePostcodes(SEED + 1, 12)
  .filter((p) => !answered.includes(p))
  .slice(0, 4);
// valid, but the simulator knows no such postcode: not found
const LETTERS = [..."ABDEFGHJLNPQRSTUWXYZ"];
const UNKNOWN = LETTERS.flatMap((a) => LETTERS.map((b) => `ZE3 9${a}${b}`)).find((p) => generatePostcode(SEED, p) === null)!;
const out = join(dir, "out");

const csv = (name: string) => parse(readFileSync(join(out, name), "utf8"), { columns: true, bom: true }) as Row[];
const isFigure = (column: string) => !/Status$/.test(column) && !(COORDINATE_COLUMNS as readonly string[]).includes(column) && !/^Ofcom/.test(column);

beforeAll(async () => {
  expect(UNKNOWN).toBeDefined();
  expect(fresh).toHaveLength(4);
  const sim = await startSimulator({ port: 0, seed: SEED, key: KEY, release: 1 });
  const clock = new FakeClock(T0);
  const env = { COVERAGE_API_KEY: KEY };
  try {
    const first = await runIn(dir, { in: writeCsv(dir, "a.csv", ["postcode", ...answered, UNKNOWN]), baseUrl: sim.url, reports: false }, env, { clock });
    expect(first.exitCode).toBe(0);
    clock.t = T0 + DAY;
    const input = writeCsv(dir, "b.csv", [
      "postcode,site",
      ...answered.map((p) => `${p},served`),
      `${UNKNOWN},served`,
      ...fresh.map((p) => `${p},new`),
      "NOT A POSTCODE,served",
    ]);
    const area = writeCsv(dir, "area.csv", simulatedAreaFile([...answered, ...fresh]));
    // the night may send nothing: every new postcode stays pending (and no fresh answer is probed)
    const second = await runIn(dir, { in: input, baseUrl: sim.url, maxRequests: 0, probe: 0, groupBy: "site", areaFile: area }, env, { clock });
    expect(second.logs.join("\n")).not.toMatch(/"level":"error"/);
    // a night whose probes of fresh answers are not sent either: those postcodes are pending, their answers kept
    clock.t = T0 + 2 * DAY;
    await runIn(dir, { in: input, baseUrl: sim.url, maxRequests: 0, out: join(dir, "out-probed"), reports: true }, env, { clock });
  } finally {
    await sim.close();
  }
}, 60_000);

/** The batch's closing lines (its results), as the console prints them. */
const resultLines = (logs: string[]) =>
  logs.map((l) => JSON.parse(l) as { level: string; message: string }).filter((l) => l.level === "result").map((l) => l.message);

/** report.html's text: tags and styles out, entities read, spaces joined. */
const htmlText = (path: string) =>
  readFileSync(path, "utf8")
    .replace(/<(style|script|svg)[\s\S]*?<\/\1>/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");

/** The headline's figures of report.html: label -> value. */
const headlineFigures = (path: string) =>
  Object.fromEntries([...readFileSync(path, "utf8").matchAll(/<div><dt>([^<]*)<\/dt><dd>([^<]*)<\/dd><\/div>/g)].map((m) => [m[1]!, m[2]!]));

/** Every number of a summary.json value under `at`, with its path. */
function numbersIn(value: unknown, at = ""): [string, number | null][] {
  if (value === null) return [[at, null]];
  if (typeof value === "number") return [[at, value]];
  if (typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) => numbersIn(v, `${at}/${k}`));
}

/** A lookup's counts in summary.json: every number but its postcodes' outcomes, its shares and the ratings' own numbers. */
const countsOf = (lookup: unknown) => numbersIn(lookup).filter(([path]) => !/^\/(postcodes|shares|goodRating)|\/(share|rating)$|^\/goodRatings/.test(path));

describe("whether a lookup's figures have an answer behind them, and the words when not", () => {
  const outcomes = (ok: number, notFound: number, failed: number, pending: number, expired = 0) => ({ ok, notFound, failed, pending, expired });
  it.each([
    ["all pending", outcomes(0, 0, 0, 4), 0, false, "no answer yet"],
    ["all expired", outcomes(0, 0, 0, 0, 3), 0, false, "no answer yet"],
    ["pending and not found", outcomes(0, 2, 0, 2), 0, false, "no answer yet"],
    ["all not found", outcomes(0, 3, 0, 0), 0, false, "none found: the API knows none of these postcodes"],
    ["all failed", outcomes(0, 0, 3, 0), 0, false, "no answer: every lookup failed"],
    ["failed and not found", outcomes(0, 1, 2, 0), 0, false, "no answer: not found by the API, or the lookup failed"],
    ["no postcodes", outcomes(0, 0, 0, 0), 0, false, "no postcodes"],
    // found without addresses: its 0s are true
    ["found, no addresses", outcomes(1, 0, 0, 3), 0, true, null],
    // refreshes pending, earlier answers kept
    ["pending with kept addresses", outcomes(0, 0, 0, 4), 12, true, null],
  ] as const)("%s", (_, postcodes, addresses, answered, words) => {
    expect(hasAnswers({ postcodes, addresses })).toBe(answered);
    if (words) expect(noAnswerWords(postcodes)).toBe(words);
  });
});

describe("a first night that sends nothing: every row pending", () => {
  const first = join(dir, "first-night");
  let logs: string[] = [];
  beforeAll(async () => {
    const sim = await startSimulator({ port: 0, seed: SEED, key: KEY, release: 1 });
    try {
      const input = writeCsv(dir, "first.csv", ["postcode", ...fresh]);
      ({ logs } = await runIn(first, { in: input, db: join(first, "coverage.sqlite"), out: join(first, "out"), baseUrl: sim.url, maxRequests: 0 }, { COVERAGE_API_KEY: KEY }, { clock: new FakeClock(T0) }));
    } finally {
      await sim.close();
    }
  }, 60_000);

  it("enriched.csv's and summary.csv's figures are empty, not 0 nor 0%", () => {
    const read = (name: string) => parse(readFileSync(join(first, "out", name), "utf8"), { columns: true, bom: true }) as Row[];
    const rows = read("enriched.csv");
    expect(rows.map((r) => r.Status)).toEqual(fresh.map(() => "pending"));
    for (const r of rows) expect([r.IndoorVoiceTotalNotspots, r.BelowSuperfast, r.BroadbandAddresses]).toEqual(["", "", ""]);
    const summary = read("summary.csv");
    const figure = (section: string, prefix: string) => summary.find((r) => r.Section === section && r.Figure!.startsWith(prefix))!;
    for (const [section, prefix] of [
      ["Broadband", "Addresses below superfast"],
      ["Broadband", "Addresses"],
      ["Mobile", "Addresses where no provider has good indoor voice"],
      ["Mobile", "Addresses"],
    ] as const)
      expect([figure(section, prefix).Count, figure(section, prefix).Share], `${section} ${prefix}`).toEqual(["", ""]);
    expect(figure("Broadband", "Postcodes without an answer yet").Count).toBe(String(fresh.length));
  });

  it("summary.json: each lookup's address counts are null, its postcodes' outcomes numbers", () => {
    const s = readSummaryJson(join(first, "out", "summary.json"));
    for (const lookup of [s.broadband, s.mobile]) {
      expect(lookup!.postcodes).toMatchObject({ ok: 0, pending: fresh.length });
      const counts = countsOf(lookup);
      expect(counts.map(([path]) => path)).toEqual(expect.arrayContaining(["/addresses"]));
      expect(counts.filter(([, v]) => v !== null)).toEqual([]);
    }
    expect(countsOf(s.broadband).map(([path]) => path)).toEqual(expect.arrayContaining(["/belowSuperfast", "/gigabit"]));
    expect(countsOf(s.mobile).map(([path]) => path)).toEqual(expect.arrayContaining(["/indoorVoice/totalNotspots", "/providers/ProvA/indoorVoiceNotspots", "/ratings/ProvA/indoorVoice/0/addresses"]));
    expect(s.postcodes.unique).toBe(fresh.length);
  });

  it("report.html says there is no answer yet where it gave 0 addresses", () => {
    const page = join(first, "out", "report.html");
    const figures = headlineFigures(page);
    expect(figures).toMatchObject({ "Broadband addresses (answered postcodes only)": "no answer yet", "Mobile addresses (answered postcodes only)": "no answer yet", Postcodes: String(fresh.length) });
    const text = htmlText(page);
    expect(text).toContain("No broadband figures: no answer yet (0 postcodes found, 0 not found, 0 failed, 4 pending).");
    expect(text).toContain("No mobile figures: no answer yet");
    expect(text).not.toMatch(/\b0 (mobile |broadband )?addresses\b/);
  });

  it("the console's closing lines say no answer yet, never 0 addresses", () => {
    const lines = resultLines(logs);
    expect(lines.filter((l) => /^(broadband|mobile)\b/.test(l) && !l.startsWith("mobile scale"))).toEqual([
      "broadband: no answer yet (0 postcodes found, 0 not found, 0 failed, 4 pending); no figures until a postcode is answered",
      "mobile: no answer yet (0 postcodes found, 0 not found, 0 failed, 4 pending); no figures until a postcode is answered",
    ]);
    expect(lines.join("\n")).not.toMatch(/\b0 addresses|notspots.* - /);
  });
});

describe("a night where one lookup has answers and the other none", () => {
  const mixed = join(dir, "mixed-night");
  let logs: string[] = [];
  beforeAll(async () => {
    const sim = await startSimulator({ port: 0, seed: SEED, key: KEY, release: 1 });
    const clock = new FakeClock(T0);
    const flags = { db: join(mixed, "coverage.sqlite"), out: join(mixed, "out"), baseUrl: sim.url };
    try {
      const input = writeCsv(dir, "mixed.csv", ["postcode", ...answered]);
      const night = await runIn(mixed, { ...flags, in: input, lookups: "broadband", reports: false }, { COVERAGE_API_KEY: KEY }, { clock });
      expect(night.exitCode).toBe(0);
      clock.t = T0 + DAY;
      ({ logs } = await runIn(mixed, { ...flags, in: input, maxRequests: 0, probe: 0 }, { COVERAGE_API_KEY: KEY }, { clock }));
    } finally {
      await sim.close();
    }
  }, 60_000);

  it("summary.json: the answered lookup's counts are numbers, its zeros 0; the other's null", () => {
    const s = readSummaryJson(join(mixed, "out", "summary.json"));
    expect(s.broadband!.postcodes.ok).toBe(answered.length);
    const broadband = countsOf(s.broadband);
    expect(broadband.filter(([, v]) => typeof v !== "number")).toEqual([]);
    expect(s.broadband!.addresses).toBeGreaterThan(0);
    // a tier no address reaches is a true 0, not unknown
    expect(broadband.filter(([, v]) => v === 0).length).toBeGreaterThan(0);
    expect(s.mobile!.postcodes).toMatchObject({ ok: 0, pending: answered.length });
    const mobile = countsOf(s.mobile);
    expect(mobile.length).toBeGreaterThan(0);
    expect(mobile.filter(([, v]) => v !== null)).toEqual([]);
  });

  it("report.html and the console: broadband's numbers, mobile's no answer yet", () => {
    const page = join(mixed, "out", "report.html");
    const figures = headlineFigures(page);
    const s = readSummaryJson(join(mixed, "out", "summary.json"));
    const withAnswers = Object.entries(figures).find(([k]) => k.startsWith("Broadband addresses"))!;
    expect(withAnswers[1]).toBe(s.broadband!.addresses!.toLocaleString("en-GB"));
    expect(Object.entries(figures).find(([k]) => k.startsWith("Mobile addresses"))![1]).toBe("no answer yet");
    expect(htmlText(page)).toContain("No mobile figures: no answer yet");
    expect(htmlText(page)).not.toContain("No broadband figures");
    const lines = resultLines(logs);
    expect(lines.find((l) => /^broadband\b/.test(l))).toMatch(new RegExp(`^broadband[^:]*: ${s.broadband!.addresses} addresses \\(${answered.length} postcodes found`));
    expect(lines.find((l) => /^mobile\b/.test(l))).toMatch(/^mobile: no answer yet \(0 postcodes found, 0 not found, 0 failed, 4 pending\)/);
  });
});

describe("unknown is empty, never 0", () => {
  it("enriched.csv: a pending or not-found row's figures are empty, an answered row's are numbers", () => {
    const rows = csv("enriched.csv");
    const figures = enrichedFigureColumns(PROVIDERS).filter(isFigure);
    expect(figures).toEqual(expect.arrayContaining(["BelowSuperfast", "IndoorVoiceTotalNotspots", "BroadbandAddresses"]));
    const pending = rows.filter((r) => r.Status === "pending");
    expect(pending.map((r) => r.postcode)).toEqual(fresh);
    for (const r of pending) for (const c of figures) expect(r[c], `${r.postcode} ${c}`).toBe("");
    const notFound = rows.find((r) => r.postcode === UNKNOWN)!;
    expect(notFound.Status).toBe("not_found");
    for (const c of figures) expect(notFound[c], `${UNKNOWN} ${c}`).toBe("");
    const ok = rows.filter((r) => r.Status === "ok");
    expect(ok).toHaveLength(answered.length);
    for (const r of ok) for (const c of figures.filter((f) => !/MaxPredictedDown$/.test(f))) expect(r[c], `${r.postcode} ${c}`).toMatch(/^\d+$/);
    // an invalid row was blank already
    const invalid = rows.find((r) => r.Status === "invalid")!;
    for (const c of figures) expect(invalid[c]).toBe("");
  });

  it("a postcode the night meant to fetch again but did not reach is pending and keeps its earlier answer's figures", () => {
    const rows = parse(readFileSync(join(dir, "out-probed", "postcodes.csv"), "utf8"), { columns: true, bom: true }) as Row[];
    const kept = rows.filter((r) => answered.includes(r.PostCode!) && r.BroadbandStatus === "pending");
    expect(kept.length).toBeGreaterThan(0);
    for (const r of kept) expect([r.BroadbandAddresses, r.BelowSuperfast], r.PostCode).toEqual([expect.stringMatching(/^[1-9]\d*$/), expect.stringMatching(/^\d+$/)]);
    for (const r of rows.filter((x) => fresh.includes(x.PostCode!))) expect([r.BroadbandStatus, r.BelowSuperfast]).toEqual(["pending", ""]);
  });

  it("postcodes.csv: the same per postcode, each lookup's status saying why", () => {
    const rows = csv("postcodes.csv");
    const figures = postcodeFigureColumns(PROVIDERS).filter(isFigure);
    const byPostcode = new Map(rows.map((r) => [r.PostCode, r]));
    for (const p of [...fresh, UNKNOWN]) {
      const r = byPostcode.get(p)!;
      expect([r[STATUS_COLUMN.broadband], r[STATUS_COLUMN.mobile]]).toEqual(p === UNKNOWN ? ["not_found", "not_found"] : ["pending", "pending"]);
      for (const c of figures) expect(r[c], `${p} ${c}`).toBe("");
    }
    for (const p of answered) expect(byPostcode.get(p)!.IndoorVoiceTotalNotspots).toMatch(/^\d+$/);
  });

  it("groups.csv: a group with no answer has empty figures and shares; an answered group keeps its numbers", () => {
    const rows = csv("groups.csv").filter((r) => r.Dimension === "site");
    const group = (g: string) => rows.find((r) => r.Group === g)!;
    const counts = Object.keys(group("new")).filter((c) => /Addresses$|Notspots$|Superfast$|Decent$|Gigabit$|NoData$|Share$/.test(c));
    expect(counts).toEqual(expect.arrayContaining(["Addresses", "BelowSuperfast", "BelowSuperfastShare", "IndoorVoiceTotalNotspots"]));
    expect(group("new").Postcodes).toBe("4");
    for (const c of counts) expect(group("new")[c], `new ${c}`).toBe("");
    expect(group("served").BelowSuperfast).toMatch(/^\d+$/);
    expect(Number(group("served").BroadbandAddresses)).toBeGreaterThan(0);
  });

  it("the workbook: Your rows and Postcodes leave a pending row's figure cells empty (no cell, not 0 nor empty text)", async () => {
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(join(out, "coverage.xlsx"));
    for (const [name, key] of [
      ["Your rows", "postcode"],
      ["Postcodes", "Postcode"],
    ] as const) {
      const sheet = book.getWorksheet(name)!;
      expect(sheet, name).toBeDefined();
      const header = Array.from(sheet.getRow(1).values as unknown[], (v) => String(v ?? ""));
      const keyAt = header.findIndex((h) => h.toLowerCase() === key.toLowerCase());
      const below = header.indexOf("Addresses below superfast");
      const notspots = header.findIndex((h) => h === "Indoor voice: no provider good");
      expect([name, keyAt > 0, below > 0, notspots > 0]).toEqual([name, true, true, true]);
      let pending = 0;
      let numbers = 0;
      sheet.eachRow((row, n) => {
        if (n === 1) return;
        const p = String(row.getCell(keyAt).value);
        for (const at of [below, notspots]) {
          const value = row.getCell(at).value;
          if (fresh.includes(p) || p === UNKNOWN) {
            expect(value, `${name} ${p} ${header[at]}`).toBeNull();
            pending++;
          } else if (answered.includes(p)) {
            expect(typeof value, `${name} ${p} ${header[at]}`).toBe("number");
            numbers++;
          }
        }
      });
      expect([name, pending, numbers]).toEqual([name, 2 * (fresh.length + 1), 2 * answered.length]);
    }
  });

  it("postcodes.geojson: a pending postcode's counts and shares are null", () => {
    const geo = JSON.parse(readFileSync(join(out, "postcodes.geojson"), "utf8")) as { features: { properties: Record<string, unknown> }[] };
    const props = new Map(geo.features.map((f) => [String(f.properties.PostCode), f.properties]));
    for (const p of fresh) {
      const f = props.get(p)!;
      expect(f.Status).toBe("pending");
      expect([f.BroadbandAddresses, f.BelowSuperfast, f.BelowSuperfastShare, f.IndoorVoiceTotalNotspots]).toEqual([null, null, null, null]);
    }
    expect(typeof props.get(answered[0]!)!.BelowSuperfast).toBe("number");
  });

  it("the export: a not-found postcode's address count is empty, a found one's a number", async () => {
    const db = openDatabase(join(dir, "coverage.sqlite"), { readonly: true });
    const exported = join(dir, "export");
    try {
      await writeExport(sqliteSnapshotSource(db), { outDir: exported, all: true, nowMs: T0 + DAY });
    } finally {
      db.close();
    }
    const duck = await DuckDBInstance.create(":memory:");
    const con = await duck.connect();
    try {
      const reader = await con.runAndReadAll(`SELECT PostCode, lookup, status, address_count FROM read_parquet('${join(exported, "postcodes.parquet")}') ORDER BY 1, 2`);
      const rows = reader.getRowObjectsJS() as { PostCode: string; status: string; address_count: number | null }[];
      const unknown = rows.filter((r) => r.PostCode === UNKNOWN);
      expect(unknown.map((r) => [r.status, r.address_count])).toEqual([
        ["not_found", null],
        ["not_found", null],
      ]);
      for (const r of rows.filter((x) => answered.includes(x.PostCode))) expect(Number(r.address_count)).toBeGreaterThan(0);
    } finally {
      con.closeSync();
      duck.closeSync();
    }
  });
});
