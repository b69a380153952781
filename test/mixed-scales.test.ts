// A database that lives through the service's change of mobile scale: a night on the legacy 0-4
// scale, then a night on the current 0/3/4 scale that refetches only some postcodes. Each answer is
// judged on its own release's scale: the notspot figures equal a count made here from the stored
// answers, the ratings are given per scale in each scale's words, and every output says that its
// figures combine two scales and how many addresses are on each. --mobile-scale still forces one
// reading, and the outputs say so.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePostcodes, releaseDbName, startSimulator } from "../src/simulator/index.js";
import { openStore } from "../src/store/open-store.js";
import { writeReports, type Summary } from "../src/report/index.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { FakeClock } from "./helpers/fake-clock.js";
import { mobileCounts } from "./helpers/independent-figures.js";
import { storedTable } from "./helpers/stored.js";
import { freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";
import { readSummaryJson } from "./helpers/summary-json.js";

const KEY = "mixed-scales-key-4b7e-Wq2p";
const SEED = 33;
const PROVIDERS = ["ProvA", "ProvB", "ProvC", "ProvD"];
const env = { COVERAGE_API_KEY: KEY };
const DAY = 24 * 3600 * 1000;
const DEC_1 = Date.UTC(2026, 11, 1, 2, 0);
// Written out here, from Ofcom's scales, so the test does not reuse the code it checks.
const GOOD = { legacy: 3, current: 4 } as const;
const LEGACY_RELEASE = releaseDbName(1);

type Row = Record<string, string>;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The figures counted here, as the store holds it at `nowMs`: each stored answer judged by the good rating of its release's scale (or `forced` for all). */
async function independentFigures(db: string, nowMs: number, forced?: number): Promise<{ totals: Record<string, number>; addresses: Record<"legacy" | "current", number>; byArea: Map<string, Record<string, number>> }> {
  const answers = (await storedTable(db, "postcodes", { all: true, nowMs })).filter((r) => r.lookup === "mobile" && r.status === "ok");
  const scaleOf = new Map(answers.map((r) => [r.postcode as string, r.dataset === LEGACY_RELEASE ? ("legacy" as const) : ("current" as const)]));
  const totals: Record<string, number> = {};
  const byArea = new Map<string, Record<string, number>>();
  const addresses = { legacy: 0, current: 0 };
  for (const a of await storedTable(db, "mobile", { all: true, nowMs })) {
    const scale = scaleOf.get(a.postcode as string)!;
    addresses[scale]++;
    const area = (a.PostCode as string).match(/^[A-Z]+/)![0];
    const into = byArea.get(area) ?? {};
    byArea.set(area, into);
    for (const [k, v] of Object.entries(mobileCounts(a as Record<string, number>, PROVIDERS, forced ?? GOOD[scale]))) {
      totals[k] = (totals[k] ?? 0) + v;
      into[k] = (into[k] ?? 0) + v;
    }
  }
  return { totals, addresses, byArea };
}

function expectFigures(summary: Summary, expected: Record<string, number>): void {
  const m = summary.mobile!;
  expect(m.indoorVoice.totalNotspots).toBe(expected.IndoorVoiceTotalNotspots);
  expect(m.indoorVoice.partialNotspots).toBe(expected.IndoorVoicePartialNotspots);
  expect(m.indoorData.totalNotspots).toBe(expected.IndoorDataTotalNotspots);
  expect(m.indoorData.partialNotspots).toBe(expected.IndoorDataPartialNotspots);
  for (const p of PROVIDERS) {
    expect(m.providers[p]!.indoorVoiceNotspots, p).toBe(expected[`${p}IndoorVoiceNotspots`]);
    expect(m.providers[p]!.indoorDataNotspots, p).toBe(expected[`${p}IndoorDataNotspots`]);
  }
}

const postgres = requiresPostgres();

describe.each(["sqlite", "postgres"] as const)("a %s database holding answers on both mobile scales", (engine) => {
  const clock = new FakeClock(DEC_1);
  // a pace window so short that the pacer never sleeps: the clock stays on whole milliseconds (PostgreSQL stores them as bigint)
  const pace = { clock, rateWindowMs: 1e-6, rateMarginMs: 0 };
  let dir: string;
  let db: string;
  let out: string;
  let summary: Summary;

  beforeAll(async () => {
    dir = tempDir("pcc-mixed-scales-");
    dirs.push(dir);
    if (engine === "postgres" && postgres.skip) return;
    db = engine === "sqlite" ? join(dir, "coverage.sqlite") : await freshPostgresDatabase();
    out = join(dir, "out");
    const postcodes = generatePostcodes(SEED, 40);
    const input = writeCsv(dir, "in.csv", ["postcode", ...postcodes]);
    const areaFile = writeCsv(dir, "areas.csv", ["pcds,lat,long", ...postcodes.map((p, i) => `${p},${(51 + i / 100).toFixed(2)},-1.5`)]);
    const legacy = await startSimulator({ port: 0, seed: SEED, key: KEY, mobileScale: "legacy", release: 1, now: () => clock.now() });
    try {
      const night = await runIn(dir, { in: input, db, baseUrl: legacy.url, lookups: "mobile" }, env, pace);
      expect(night.exitCode, night.logs.slice(-3).join("\n")).toBe(0);
    } finally {
      await legacy.close();
    }
    clock.t = DEC_1 + 2 * DAY;
    const current = await startSimulator({ port: 0, seed: SEED, key: KEY, mobileScale: "current", release: 2, now: () => clock.now() });
    try {
      const night = await runIn(dir, { in: input, db, baseUrl: current.url, lookups: "mobile", refresh: true, maxRequests: 12, areaFile }, env, pace);
      expect(night.stats!.mobile.requests).toBe(12);
    } finally {
      await current.close();
    }
    summary = readSummaryJson<Summary>(join(out, "summary.json"));
  }, 90_000);

  it.skipIf(engine === "postgres" && postgres.skip)("holds answers of both releases", async () => {
    const { addresses } = await independentFigures(db, clock.now());
    expect(addresses.legacy).toBeGreaterThan(0);
    expect(addresses.current).toBeGreaterThan(0);
  });

  it.skipIf(engine === "postgres" && postgres.skip)("counts each notspot figure judging each answer on its own release's scale", async () => {
    const { totals } = await independentFigures(db, clock.now());
    expectFigures(summary, totals);
  });

  it.skipIf(engine === "postgres" && postgres.skip)("gives the ratings per scale in each scale's words, accounting for every address", () => {
    const m = summary.mobile!;
    for (const p of PROVIDERS) {
      const shares = m.ratings[p]!.indoorVoice;
      expect(shares.reduce((sum, r) => sum + r.addresses, 0), p).toBe(m.addresses);
      expect(shares.find((r) => r.scale === "legacy" && r.rating === 3)!.label).toBe("Green");
      expect(shares.find((r) => r.scale === "current" && r.rating === 3)!.label).toBe("Limited");
      expect(shares.filter((r) => r.scale === "legacy").map((r) => r.label)).toEqual(["Enhanced", "Green", "Amber", "Red", "Clear"]);
      expect(shares.filter((r) => r.scale === "current").map((r) => r.label)).toEqual(["Likely", "Limited", "None"]);
    }
  });

  it.skipIf(engine === "postgres" && postgres.skip)("gives each rating's addresses per scale as a count of the stored answers' addresses", async () => {
    const answers = (await storedTable(db, "postcodes", { all: true, nowMs: clock.now() })).filter((r) => r.lookup === "mobile" && r.status === "ok");
    const scaleOf = new Map(answers.map((r) => [r.postcode as string, r.dataset === LEGACY_RELEASE ? "legacy" : "current"]));
    const counted = new Map<string, number>();
    for (const a of await storedTable(db, "mobile", { all: true, nowMs: clock.now() }))
      for (const p of PROVIDERS)
        for (const [place, field] of [["indoorVoice", `${p}VoiceIndoor`], ["indoorData", `${p}DataIndoor`]] as const) {
          const key = `${p} ${place} ${scaleOf.get(a.postcode as string)} ${String(a[field])}`;
          counted.set(key, (counted.get(key) ?? 0) + 1);
        }
    const m = summary.mobile!;
    for (const p of PROVIDERS)
      for (const place of ["indoorVoice", "indoorData"] as const)
        for (const r of m.ratings[p]![place]) expect(r.addresses, `${p} ${place} ${r.scale} ${r.rating}`).toBe(counted.get(`${p} ${place} ${r.scale} ${r.rating}`) ?? 0);
  });

  it.skipIf(engine === "postgres" && postgres.skip)("summary.json and summary.csv say the figures combine two scales, with the addresses on each", async () => {
    const { addresses } = await independentFigures(db, clock.now());
    expect(summary.mobile!.scaleReading).toBe("each answer judged on its own release's scale");
    expect(summary.mobile!.scaleAddresses).toEqual(addresses);
    expect(summary.mobile!.goodRatings).toEqual(GOOD);
    const rows = parse(readFileSync(join(out, "summary.csv"), "utf8"), { bom: true, columns: true }) as Row[];
    const count = (figure: string) => rows.find((r) => r.Figure === figure)?.Count;
    expect(count("How the mobile figures read the answers")).toBe("each answer judged on its own release's scale");
    expect(count("Addresses whose answer is on Ofcom's earlier 0-4 scale")).toBe(String(addresses.legacy));
    expect(count("Addresses whose answer is on Ofcom's current 0/3/4 scale")).toBe(String(addresses.current));
    expect(count("Good mobile coverage")).toBe("good coverage: Green (3) or Enhanced (4) on Ofcom's earlier 0-4 scale; Likely (4) on Ofcom's current 0/3/4 scale");
    expect(rows.some((r) => /ProvA: addresses with indoor voice Green \(3\): .*earlier 0-4 scale/.test(r.Figure!))).toBe(true);
  });

  it.skipIf(engine === "postgres" && postgres.skip)("groups.csv counts each group on its answers' own scales and says the mix", async () => {
    const { byArea } = await independentFigures(db, clock.now());
    const rows = (parse(readFileSync(join(out, "groups.csv"), "utf8"), { bom: true, columns: true }) as Row[]).filter((r) => r.Dimension === "area");
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      const expected = byArea.get(r.Group!) ?? {};
      expect(r.MobileScaleReading).toBe("each answer judged on its own release's scale");
      expect(Number(r.LegacyScaleAddresses) + Number(r.CurrentScaleAddresses)).toBe(Number(r.MobileAddresses));
      for (const column of ["IndoorVoiceTotalNotspots", "IndoorVoicePartialNotspots", "IndoorDataTotalNotspots", "ProvAIndoorVoiceNotspots"])
        expect(Number(r[column]), `${r.Group} ${column}`).toBe(expected[column] ?? 0);
    }
  });

  it.skipIf(engine === "postgres" && postgres.skip)("the workbook, report.html and the GeoJSON say the figures combine two scales", async () => {
    const { addresses } = await independentFigures(db, clock.now());
    const html = readFileSync(join(out, "report.html"), "utf8");
    expect(html).toContain("each answer judged on its own release&#39;s scale");
    expect(html).toContain(`${addresses.legacy.toLocaleString("en-GB")} addresses on Ofcom&#39;s earlier 0-4 scale`);
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(join(out, "coverage.xlsx"));
    const summarySheet = JSON.stringify(book.getWorksheet("Summary")!.getSheetValues());
    expect(summarySheet).toContain("each answer judged on its own release's scale");
    expect(JSON.stringify(book.getWorksheet("Groups")!.getRow(1).values)).toContain("LegacyScaleAddresses");
    const geo = JSON.parse(readFileSync(join(out, "postcodes.geojson"), "utf8")) as { mobileScales?: unknown };
    expect(geo.mobileScales).toEqual({ reading: "each answer judged on its own release's scale", addresses });
  });

  it.skipIf(engine === "postgres" && postgres.skip)("--mobile-scale legacy reads every answer on the legacy scale, and the outputs say it was forced", async () => {
    const forcedOut = join(dir, "out-forced");
    const store = await openStore(db, { readonly: true });
    try {
      await writeReports(store, { outDir: forcedOut, mobileScale: "legacy", now: () => new Date(clock.now()) });
    } finally {
      await store.close();
    }
    const forced = readSummaryJson<Summary>(join(forcedOut, "summary.json"));
    const { totals, addresses } = await independentFigures(db, clock.now(), GOOD.legacy);
    expectFigures(forced, totals);
    expect(forced.mobile!.scaleReading).toBe("every answer read on Ofcom's earlier 0-4 scale, as --mobile-scale legacy forces");
    expect(forced.mobile!.scaleAddresses).toEqual(addresses);
    const groups = parse(readFileSync(join(forcedOut, "groups.csv"), "utf8"), { bom: true, columns: true }) as Row[];
    expect(groups.every((r) => r.MobileScaleReading === forced.mobile!.scaleReading)).toBe(true);
  });
});
