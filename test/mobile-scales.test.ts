// Ofcom's two mobile scales end to end: the simulator serves either, the report decides which one
// the answers are on (any 1 or 2 is legacy), and every figure and word follows it: notspots count
// ratings below the scale's good rating (4 Likely on the current scale, 3 Green on the legacy one),
// the summary gives the addresses at each rating, and no output names the other scale's labels.
// A change of scale between releases is said once and marked in changes.csv, not counted as coverage.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import ExcelJS from "exceljs";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePostcode, generatePostcodes, releaseDbName, startSimulator } from "../src/simulator/index.js";
import { answerScalesOf, decideScale, goodCoverageWords, judgingOf, ratingName, ratingWords, scaleChangeWords, scaleOfRatings } from "../src/contract/mobile-scales.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { storedTable } from "./helpers/stored.js";
import type { Summary } from "../src/report/index.js";
import { readSummaryJson } from "./helpers/summary-json.js";

const KEY = "scales-key-9c1d-Tq7w";
const SEED = 21;
const PROVIDERS = ["ProvA", "ProvB", "ProvC", "ProvD"];
const env = { COVERAGE_API_KEY: KEY };
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function dir(): string {
  const d = tempDir("pcc-scales-");
  dirs.push(d);
  return d;
}

// The scales as the live-service notes give them, written out here so the test does not reuse the code it checks.
const SCALE = {
  current: { good: 4, labels: { 0: "None", 3: "Limited", 4: "Likely" } as Record<number, string>, foreign: ["Green", "Enhanced", "Amber", "Clear"] },
  legacy: { good: 3, labels: { 0: "Clear", 1: "Red", 2: "Amber", 3: "Green", 4: "Enhanced" } as Record<number, string>, foreign: ["Likely", "Limited"] },
} as const;
type ScaleName = keyof typeof SCALE;

describe("the scale decision", () => {
  it("a release with any rating 1 or 2 is legacy, otherwise current; the reason gives the evidence", () => {
    expect(scaleOfRatings({ legacyRatings: 0 })).toBe("current");
    expect(scaleOfRatings({ legacyRatings: 1 })).toBe("legacy");
    const d = decideScale("auto", [{ release: "MobileAvailability-202406041254", ratings: 48_210, legacyRatings: 0 }]);
    expect(d.scale).toBe("current");
    expect(d.reason).toBe("no rating 1 or 2 among 48,210 ratings of MobileAvailability-202406041254: Ofcom's current 0/3/4 scale");
    expect(decideScale("auto", []).scale).toBe("current");
    expect(decideScale("legacy", [{ release: "R", ratings: 10, legacyRatings: 0 }])).toMatchObject({ scale: "legacy", reason: "--mobile-scale legacy: Ofcom's earlier 0-4 scale, as asked" });
  });

  it("the newest release decides; a change between releases is said once", () => {
    const d = decideScale("auto", [
      { release: "A", ratings: 100, legacyRatings: 7 },
      { release: "B", ratings: 100, legacyRatings: 0 },
    ]);
    expect(d.scale).toBe("current");
    expect(scaleChangeWords(d)).toMatch(/^the mobile rating scale changed between releases: A is on Ofcom's earlier 0-4 scale, B on Ofcom's current 0\/3\/4 scale; a rating of 3 means Green on the first and Limited on the second$/);
    expect(scaleChangeWords(decideScale("auto", [{ release: "B", ratings: 100, legacyRatings: 0 }]))).toBeNull();
  });
});

describe("Ofcom's words with the rating", () => {
  it("names a rating by its label with the number after it, and a threshold as a sentence", () => {
    expect(ratingName("current", 4)).toBe("Likely (4)");
    expect(ratingName("current", 0)).toBe("None (0)");
    expect(ratingName("legacy", 3)).toBe("Green (3)");
    expect(ratingWords("current", 4)).toBe("Likely (4): you are likely to have coverage");
    expect(goodCoverageWords([{ scale: "current", goodRating: 4 }])).toBe("good coverage: Likely (4)");
    expect(goodCoverageWords([{ scale: "legacy", goodRating: 3 }])).toBe("good coverage: Green (3) or Enhanced (4)");
    expect(goodCoverageWords([{ scale: "legacy", goodRating: 2 }])).toBe("good coverage: Amber (2), Green (3) or Enhanced (4)");
  });

  it("releases on both scales: each answer is judged on its own, with each scale's good rating", () => {
    const d = decideScale("auto", [
      { release: "A", ratings: 100, legacyRatings: 7 },
      { release: "B", ratings: 100, legacyRatings: 0 },
    ]);
    expect(d).toMatchObject({ scale: "current", reading: "each" });
    expect(d.reason).toBe("the answers come from releases on both scales (A on Ofcom's earlier 0-4 scale; B on Ofcom's current 0/3/4 scale): each answer is judged on its own release's scale");
    expect(judgingOf(d, undefined)).toEqual([{ scale: "legacy", goodRating: 3 }, { scale: "current", goodRating: 4 }]);
    expect(answerScalesOf(d, undefined)).toEqual({ all: null, legacyReleases: ["A"], good: { legacy: 3, current: 4 } });
    const forced = decideScale("legacy", [{ release: "A", ratings: 100, legacyRatings: 7 }, { release: "B", ratings: 100, legacyRatings: 0 }]);
    expect(answerScalesOf(forced, undefined)).toEqual({ all: null, legacyReleases: ["A"], good: { legacy: 3, current: 3 } });
    expect(decideScale("auto", [{ release: "B", ratings: 100, legacyRatings: 0 }]).reading).toBe("one");
  });
});

describe.each(["current", "legacy"] as const)("a run on the %s scale", (scale: ScaleName) => {
  const postcodes = generatePostcodes(SEED, 30);
  let out: string;
  let summary: Summary;
  beforeAll(async () => {
    const d = dir();
    const sim = await startSimulator({ port: 0, seed: SEED, key: KEY, mobileScale: scale });
    try {
      const run = await runIn(d, { in: writeCsv(d, "in.csv", ["postcode", ...postcodes]), baseUrl: sim.url }, env);
      expect(run.exitCode).toBe(0);
    } finally {
      await sim.close();
    }
    out = join(d, "out");
    summary = readSummaryJson<Summary>(join(out, "summary.json"));
  }, 60_000);

  /** the simulator's answers on this scale, as served */
  const addresses = () => postcodes.flatMap((p) => generatePostcode(SEED, p, PROVIDERS, 1, scale)?.addresses ?? []);
  const field = (p: string, name: string) => PROVIDERS.indexOf(p) * 8 + ["VoiceOutdoor", "VoiceOutdoorNo4g", "VoiceIndoor", "VoiceIndoorNo4g", "DataOutdoor", "DataOutdoorNo4g", "DataIndoor", "DataIndoorNo4g"].indexOf(name);

  it("the simulator serves only the scale's ratings", () => {
    const seen = new Set(addresses().flatMap((a) => a.ratings));
    expect([...seen].every((r) => r in SCALE[scale].labels)).toBe(true);
    if (scale === "legacy") expect([...seen].some((r) => r === 1 || r === 2)).toBe(true);
  });

  it("summary.json names the scale, its good rating and why; notspots count ratings below it", () => {
    const all = addresses();
    const good = SCALE[scale].good;
    expect(summary.mobile).toMatchObject({ scale, goodRating: good, scaleChange: null });
    const ratings = all.length * PROVIDERS.length * 8;
    expect(summary.mobile!.scaleReason).toMatch(new RegExp(`among ${ratings.toLocaleString("en-GB")} ratings of ${releaseDbName(1)}: Ofcom's (current 0/3/4|earlier 0-4) scale$`));
    for (const p of PROVIDERS) {
      const indoorVoice = all.filter((a) => a.ratings[field(p, "VoiceIndoor")]! < good).length;
      expect(summary.mobile!.providers[p]!.indoorVoiceNotspots, p).toBe(indoorVoice);
    }
  });

  it("gives per provider the addresses at each rating of the scale, in Ofcom's labels", () => {
    const all = addresses();
    for (const p of PROVIDERS) {
      const shares = summary.mobile!.ratings[p]!.indoorVoice;
      expect(shares.map((r) => r.label)).toEqual(Object.keys(SCALE[scale].labels).map(Number).sort((a, b) => b - a).map((r) => SCALE[scale].labels[r]));
      for (const r of shares) expect(r.addresses, `${p} ${r.label}`).toBe(all.filter((a) => a.ratings[field(p, "VoiceIndoor")] === r.rating).length);
      expect(shares.reduce((sum, r) => sum + r.addresses, 0)).toBe(all.length);
    }
  });

  it("summary.csv, report.html and the workbook use the scale's words and never the other scale's", async () => {
    const csv = readFileSync(join(out, "summary.csv"), "utf8");
    const html = readFileSync(join(out, "report.html"), "utf8");
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(join(out, "coverage.xlsx"));
    const sheetText = (name: string) => JSON.stringify(book.getWorksheet(name)!.getSheetValues());
    const mobileNotes = book.getWorksheet("Mobile")!.getRow(1).values as unknown[];
    const notes = JSON.stringify(mobileNotes) + JSON.stringify(book.getWorksheet("Mobile")!.getRow(1).getCell(6).note);
    const labels = Object.values(SCALE[scale].labels);
    for (const text of [csv, html, sheetText("Summary")]) for (const label of labels) expect(text).toContain(label);
    for (const text of [csv, html, sheetText("Summary"), sheetText("Groups"), notes]) for (const word of SCALE[scale].foreign) expect(text).not.toMatch(new RegExp(`\\b${word}\\b`));
    const rows = parse(csv, { bom: true, columns: true }) as Record<string, string>[];
    const good = rows.find((r) => r.Figure === "Good mobile coverage")!;
    expect(good.Count).toBe(scale === "current" ? "good coverage: Likely (4)" : "good coverage: Green (3) or Enhanced (4)");
    // Ofcom's words with the rating, never a bare number before the label
    for (const text of [csv, html]) expect(text).not.toMatch(/rating under \d|\b[0-4] (Likely|Limited|None|Clear|Red|Amber|Green|Enhanced)\b|or better/);
    expect(rows.find((r) => r.Figure === "Mobile rating scale")!.Count).toMatch(new RegExp(`^${scale}: `));
  });
});

describe("a change of scale between two releases", () => {
  it("is said once in the summary, and changes.csv marks the rows it moves as a change of scale, not coverage", async () => {
    const postcodes = generatePostcodes(SEED, 20);
    const d = dir();
    const input = writeCsv(d, "in.csv", ["postcode", ...postcodes]);
    const legacy = await startSimulator({ port: 0, seed: SEED, key: KEY, mobileScale: "legacy", release: 1 });
    expect((await runIn(d, { in: input, baseUrl: legacy.url, lookups: "mobile" }, env)).exitCode).toBe(0);
    await legacy.close();
    const current = await startSimulator({ port: 0, seed: SEED, key: KEY, mobileScale: "current", release: 2 });
    expect((await runIn(d, { in: input, baseUrl: current.url, lookups: "mobile", refresh: true }, env)).exitCode).toBe(0);
    // a night that stores no new answer leaves the recorded scales as they are, without scanning every answer
    const quiet = await runIn(d, { in: input, baseUrl: current.url, lookups: "mobile", probe: 0 }, env);
    expect(quiet.stats!.mobile.requests).toBe(0);
    expect(quiet.logs.filter((l) => l.includes('"event":"mobile-scale"'))).toEqual([]);
    await current.close();

    const summary = readSummaryJson<Summary>(join(d, "out", "summary.json"));
    expect(summary.mobile).toMatchObject({ scale: "current", goodRating: 4 });
    expect(summary.mobile!.scaleChange).toMatch(/^the mobile rating scale changed between releases: /);
    const csv = readFileSync(join(d, "out", "summary.csv"), "utf8");
    expect(csv.match(/the mobile rating scale changed between releases/g)).toHaveLength(1);

    // expected: every kept address and place whose good-ness differs, legacy good 3 before, current good 4 after
    const expected: string[] = [];
    for (const p of postcodes) {
      const before = generatePostcode(SEED, p, PROVIDERS, 1, "legacy");
      const after = generatePostcode(SEED, p, PROVIDERS, 2, "current");
      if (!before || !after) continue;
      const b = new Map(before.addresses.map((a) => [a.UPRN, a]));
      for (const a of after.addresses) {
        const was = b.get(a.UPRN);
        if (!was) continue;
        for (const prov of PROVIDERS)
          for (const [k, place] of [[2, "indoor voice"], [6, "indoor data"], [0, "outdoor voice"], [4, "outdoor data"]] as const) {
            const i = PROVIDERS.indexOf(prov) * 8 + k;
            if (was.ratings[i]! >= 3 !== a.ratings[i]! >= 4) expected.push(`${a.UPRN}|${prov} ${place} (change of scale)`);
          }
      }
    }
    const rows = parse(readFileSync(join(d, "out", "changes.csv")), { bom: true, columns: true }) as Record<string, string>[];
    const mobileRows = rows.filter((r) => r.Lookup === "mobile" && !/^address /.test(r.Change!));
    expect(expected.length).toBeGreaterThan(0);
    expect(mobileRows.map((r) => `${r.UPRN}|${r.Change}`).sort()).toEqual(expected.sort());
    // none of them is coverage lost or gained
    for (const flows of Object.values(summary.changes!.mobile!.providers)) for (const f of Object.values(flows)) expect(f).toEqual({ closed: 0, opened: 0 });
    // each release's scale is stored with it, with its evidence
    const stored = (await storedTable(join(d, "coverage.sqlite"), "releases"))
      .filter((r) => r.lookup === "mobile")
      .map((r) => ({ name: r.name, scale: r.scale, ratings: r.scale_ratings, legacy: r.scale_legacy_ratings })) as { name: string; scale: string; ratings: number; legacy: number }[];
    expect(stored.map((r) => [r.name, r.scale])).toEqual([[releaseDbName(1), "legacy"], [releaseDbName(2), "current"]]);
    expect(stored[0]!.legacy).toBeGreaterThan(0);
    expect(stored[1]).toMatchObject({ legacy: 0, ratings: expect.any(Number) as number });
    expect(stored[1]!.ratings).toBeGreaterThan(0);
  }, 60_000);
});
