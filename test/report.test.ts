// The reports against a small fixed database written with the store's own writers
// (test/fixtures/report-golden/build-fixture.ts). Golden files: UPDATE_GOLDEN=1 npx vitest run
// test/report.test.ts rewrites them after an intended change (then review the diff).
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { headlineLines, ReportError, writeAddressReport, writeReports, type Summary } from "../src/report/index.js";
import { TIERS } from "../src/figures/definitions.js";
import { addRun, buildFixture, FIXED_NOW } from "./fixtures/report-golden/build-fixture.js";
import type { Store } from "../src/store/store.js";
import { storedInputRows, storedTable, withStore } from "./helpers/stored.js";
import { scriptArgs } from "./helpers/compiled-tree.js";
import { readSummaryJson } from "./helpers/summary-json.js";
import { summaryJson } from "../src/report/json/summary-json.js";

/** The summary without its estimates (test/estimates-*.test.ts check them): what independentSummary computes. */
function answeredOnly<T extends { estimates?: unknown }>(summary: T): Omit<T, "estimates"> {
  const { estimates: _estimates, ...rest } = summary;
  return rest;
}
const GOLDEN = fileURLToPath(new URL("./fixtures/report-golden/", import.meta.url));
const FILES = ["broadband.csv", "mobile.csv", "coverage.csv", "postcodes.csv", "enriched.csv", "rejects.csv", "failures.csv", "groups.csv", "changes.csv", "summary.csv", "summary.json"];
/** every file written: the golden ones, then report.html (test/report-html.test.ts checks it) and the workbook (a zip with timestamps: test/workbook.test.ts reads it back) */
const WRITTEN = [...FILES, "report.html", "coverage.xlsx"];

let dir: string;
let db: Store;
let runId: number;
let out: string;
let summary: Summary;
const warnings: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pcc-report-"));
  ({ store: db, runId } = await buildFixture(join(dir, "coverage.sqlite")));
  out = join(dir, "out");
  const result = await writeReports(db, { outDir: out, runId, now: () => FIXED_NOW, onWarning: (m) => warnings.push(m) });
  summary = result.summary;
  expect(result.files.map((f) => f.slice(out.length + 1))).toEqual(WRITTEN);
  if (process.env.UPDATE_GOLDEN === "1") for (const f of FILES) copyFileSync(join(out, f), join(GOLDEN, f));
});
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const read = (name: string, at = out) => parse(readFileSync(join(at, name)), { bom: true }) as string[][];
const byHeader = (rows: string[][]) => rows.slice(1).map((r) => Object.fromEntries(rows[0]!.map((h, i) => [h, r[i]!])));

describe("report files", () => {
  it.each(FILES)("%s matches its golden file byte for byte", (name) => {
    expect(readFileSync(join(out, name), "utf8")).toBe(readFileSync(join(GOLDEN, name), "utf8"));
  });

  it("leaves no temporary file and warns about nothing for a small database", () => {
    expect(readdirSync(out).sort()).toEqual([...WRITTEN, ".fingerprint"].sort());
    expect(warnings).toEqual([]);
  });

  it("neutralises formula-looking text but not numbers", () => {
    const bb = byHeader(read("broadband.csv"));
    expect(bb.map((r) => r.AddressShortDescription)).toContain(`'=HYPERLINK("http://x.invalid","Siop")`);
    expect(bb.map((r) => r.AddressShortDescription)).toContain("'+44 Flat Llŷr");
    expect(bb.map((r) => r.AddressShortDescription)).toContain("'-1 Ffordd Ŵy");
    const noData = bb.find((r) => r.UPRN === "999999999999")!;
    expect(noData.MaxPredictedDown).toBe("-1");
    expect(noData.Tier).toBe("No data");
    expect(byHeader(read("mobile.csv")).map((r) => r.AddressShortDescription)).toContain("'@Siop\tŴyn");
    // the user's own cells: a formula is neutralised, a plain number is not
    const notes = byHeader(read("enriched.csv")).map((r) => r.note);
    expect(notes).toContain("'=SUM(A1:A2)");
    expect(notes).toContain("-5");
  });

  it("round-trips Welsh text through the BOM-ed UTF-8 file, and --no-bom drops the BOM", async () => {
    const raw = readFileSync(join(out, "broadband.csv"));
    expect([...raw.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const addresses = byHeader(read("broadband.csv")).map((r) => r.AddressShortDescription);
    expect(addresses).toContain("Tŷ Gwyn, 5 Heol y Frenhines");
    expect(addresses).toContain('Flat "A", 11 Downing Street');

    const plain = join(dir, "plain");
    await writeReports(db, { outDir: plain, runId, bom: false, now: () => FIXED_NOW });
    const text = readFileSync(join(plain, "broadband.csv"), "utf8");
    expect(text.startsWith("PostCode,UPRN,")).toBe(true);
    expect(readFileSync(join(out, "broadband.csv"), "utf8")).toBe("\uFEFF" + text);
  });

  it("writes 12-digit UPRNs exactly, as the database holds them", async () => {
    const addresses = [...(await storedTable(db, "broadband")), ...(await storedTable(db, "mobile"))];
    const stored = [...new Set(addresses.map((a) => String(a.UPRN)))].sort();
    const written = [...new Set(byHeader(read("coverage.csv")).map((r) => r.UPRN!))].sort();
    expect(written).toEqual(stored);
    expect(written).toContain("100020416747");
    expect(written).toContain("999999999999");
  });

  it("puts every address of either lookup in coverage.csv, sorted by PostCode then UPRN", () => {
    const rows = byHeader(read("coverage.csv"));
    const broadbandOnly = rows.find((r) => r.UPRN === "200000000001")!;
    expect(broadbandOnly.Tier).toBe("Decent");
    expect(broadbandOnly.ProvAVoiceIndoor).toBe("");
    const mobileOnly = rows.find((r) => r.UPRN === "300000000003")!;
    expect(mobileOnly.MaxPredictedDown).toBe("");
    expect(mobileOnly.ProvAIndoorDataGood).toBe("yes");
    const keys = rows.map((r) => [r.PostCode!, BigInt(r.UPRN!)] as const);
    const sorted = [...keys].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    expect(keys).toEqual(sorted);
    expect(rows[0]!.PostCode).toBe("B10 1AA");
  });

  it("writes one address file alone with the same bytes (the benchmark's entry point)", async () => {
    const path = join(dir, "alone", "mobile.csv");
    expect(await writeAddressReport(db, "mobile.csv", path, { runId })).toBe(7);
    expect(readFileSync(path, "utf8")).toBe(readFileSync(join(out, "mobile.csv"), "utf8"));
  });
});

describe("summary", () => {
  it("equals figures computed independently from the stored rows", async () => {
    expect(answeredOnly(summary)).toEqual(await independentSummary(db, runId, 3));
  });

  it("is the same in summary.json and summary.csv: plain-English figures with their share and what it is a share of", () => {
    // the summary as JSON: its groups listed as summaryJson bounds them, each written as its figures
    expect(readSummaryJson(join(out, "summary.json"))).toEqual(JSON.parse(JSON.stringify(summaryJson(summary))));
    const rows = byHeader(read("summary.csv"));
    expect(Object.keys(rows[0]!)).toEqual(["Section", "Figure", "Count", "Share", "Low", "High", "Of"]);
    const row = (figure: string) => rows.find((r) => r.Figure === figure)!;
    // a failed postcode leaves the list partly answered: the label itself says the figure is the answered postcodes' alone
    expect(row("Addresses below superfast (under 30 Mbit/s down) (answered postcodes only)")).toEqual({
      Section: "Broadband",
      Figure: "Addresses below superfast (under 30 Mbit/s down) (answered postcodes only)",
      Count: String(summary.broadband!.belowSuperfast),
      Share: "0.3333",
      Low: "",
      High: "",
      Of: "6 addresses the broadband lookup returned",
    });
    expect(row("ProvB: addresses without good indoor voice (good coverage: Green (3) or Enhanced (4)) (answered postcodes only)")).toMatchObject({ Count: "3", Share: "0.4286", Of: "7 addresses the mobile lookup returned" });
    expect(row("Includes simulated data (not the real API)").Count).toBe("no");
    expect(row("Mobile: release MobileAvailability-202601010000 (fetched 2026-01-02)")).toMatchObject({ Section: "Releases", Count: "7", Share: "1" });
    // no machine names in the figure column
    for (const r of rows) expect(r.Figure).not.toMatch(/^[a-z]+[A-Z]|\./);
    expect(summary.broadband!.shares.belowSuperfast).toBe(0.3333);
  });

  it("prints headline figures: a partly answered list's whole list first, then the answered postcodes' own", () => {
    expect(headlineLines(summary)).toEqual([
      "report (run 1): 6 input rows, 1 invalid, 1 duplicate, 4 unique postcodes",
      "whole list (partly answered: 3 of 4 postcodes answered for broadband, 4 for mobile; broadband: the other 1 at the next runs (undated: only a report of the last run's list, with its --monthly-quota, dates them); mobile: every postcode answered):",
      "  Addresses below superfast (under 30 Mbit/s down), all the list's addresses: 33.3% (6.6% to 77.8%) (estimate, 95% interval); answered postcodes only: 33.3% (2 of 6 addresses)",
      "  Addresses where no provider has good indoor voice (total notspot; good coverage: Green (3) or Enhanced (4)), all the list's addresses: 28.6% (exact: every postcode answered); answered postcodes only: 28.6% (2 of 7 addresses)",
      "  The estimates assume that the unanswered postcodes resemble the answered ones of their stratum (their district, and the values of your --group-by columns).",
      "broadband (answered postcodes only): 6 addresses (2 postcodes found, 1 not found, 1 failed); below decent (10/1 Mbit/s) 16.7%, below superfast 33.3%, gigabit 16.7%, no data 16.7%",
      "mobile (answered postcodes only): 7 addresses (3 postcodes found, 1 not found, 0 failed); indoor notspots (good coverage: Green (3) or Enhanced (4), legacy scale): voice 28.6% with no good provider, 14.3% with only some; data 14.3% none, 14.3% only some",
      "mobile scale: 52 ratings of 1 or 2 among 224 ratings of MobileAvailability-202601010000: Ofcom's earlier 0-4 scale",
    ]);
  });

  it("--good-rating changes what counts as good", async () => {
    const strict = await writeReports(db, { outDir: join(dir, "strict"), runId, goodRating: 4, now: () => FIXED_NOW });
    expect(answeredOnly(strict.summary)).toEqual(await independentSummary(db, runId, 4));
    expect(strict.summary.mobile!.indoorVoice.totalNotspots).toBeGreaterThan(summary.mobile!.indoorVoice.totalNotspots);
    await expect(writeReports(db, { outDir: join(dir, "bad"), runId, goodRating: 7 })).rejects.toThrow(ReportError);
  });
});

describe("scope", () => {
  it("by default reports the last run; a lookup the run did not ask for is not_requested", async () => {
    const second = await addRun(db, [["1", "SW1A 2AA", ""], ["2", "CF10 1AA", ""]], ["broadband"], true);
    const at = join(dir, "latest");
    const result = await writeReports(db, { outDir: at, now: () => FIXED_NOW });
    expect(result.summary.runId).toBe(second);
    expect(result.summary.mobile).toBeNull();
    expect(result.summary.simulated).toBe(true);
    expect(headlineLines(result.summary).at(-1)).toMatch(/SIMULATED/);
    // no mobile ratings in scope: the current scale, whose good rating is 4 (no mobile figure depends on it)
    expect(answeredOnly(result.summary)).toEqual({ ...(await independentSummary(db, second, 4)), simulated: true });
    const postcodes = byHeader(read("postcodes.csv", at));
    expect(postcodes.map((r) => [r.PostCode, r.BroadbandStatus, r.MobileStatus, r.MobileAddresses])).toEqual([
      ["CF10 1AA", "ok", "not_requested", ""],
      ["SW1A 2AA", "ok", "not_requested", ""],
    ]);
    expect(read("mobile.csv", at)).toHaveLength(1); // header only
    expect(byHeader(read("enriched.csv", at)).map((r) => r.Status)).toEqual(["ok", "ok"]);
    // every row file of a simulated run says so, and postcodes.geojson on the collection
    for (const file of ["postcodes.csv", "enriched.csv"]) expect(byHeader(read(file, at)).map((r) => r.Simulated)).toEqual(Array(2).fill("yes: from the bundled simulator, not the real API"));
    const area = join(dir, "areas-simulated.csv");
    writeFileSync(area, "pcds,lat,long\nSW1A 2AA,51.5,-0.12\n");
    const mapped = join(dir, "latest-mapped");
    await writeReports(db, { outDir: mapped, areaFile: area, now: () => FIXED_NOW });
    const geo = JSON.parse(readFileSync(join(mapped, "postcodes.geojson"), "utf8")) as { simulated: string; attribution: string; features: unknown[] };
    expect(geo.simulated).toBe("SIMULATED: figures from the bundled simulator, not the real API");
    expect(geo.attribution).toMatch(/^Source: Ofcom\. Broadband data fetched \d{4}-\d\d-\d\d.*\(the API names no release\)\.$/);
    expect(geo.features).toHaveLength(1);
    // a real run's files carry no such column (the golden files above)
    expect(read("postcodes.csv")[0]).not.toContain("Simulated");
  });

  it("--all reports every stored postcode, without the per-input files", async () => {
    const at = join(dir, "all");
    const result = await writeReports(db, { outDir: at, all: true, now: () => FIXED_NOW });
    expect(result.files.map((f) => f.slice(at.length + 1))).toEqual(WRITTEN.filter((f) => f !== "enriched.csv" && f !== "rejects.csv"));
    expect(result.summary).toMatchObject({ runId: null, scope: "all", postcodes: { input: null, invalid: null, unique: 4 } });
    expect(existsSync(join(at, "enriched.csv"))).toBe(false);
  });

  it("a postcode without an answer yet is pending", async () => {
    const run = await addRun(db, [["1", "M1 1AE", ""]], ["broadband", "mobile"]);
    const at = join(dir, "pending");
    const result = await writeReports(db, { outDir: at, runId: run, now: () => FIXED_NOW });
    expect(result.summary.broadband!.postcodes).toEqual({ ok: 0, notFound: 0, failed: 0, pending: 1, expired: 0 });
    expect(byHeader(read("enriched.csv", at))[0]).toMatchObject({ NormalisedPostCode: "M1 1AE", Status: "pending" });
  });

  it("an unknown run or an empty database is a ReportError naming the problem", async () => {
    await expect(writeReports(db, { outDir: join(dir, "x"), runId: 999 })).rejects.toThrow(/no run 999 .*runs 1 to \d+ are stored/);
    await withStore(join(dir, "empty.sqlite"), (empty) => expect(writeReports(empty, { outDir: join(dir, "y") })).rejects.toThrow(/no runs yet/), {});
  });
});

describe("npm run report", () => {
  const cli = (args: string[]) =>
    spawnSync(process.execPath, [...scriptArgs("src/cli/report.ts"), ...args], { encoding: "utf8", cwd: fileURLToPath(new URL("..", import.meta.url)) });

  it("writes the reports of a given run, and exits 1 with a clear message for an unknown run or a missing database", () => {
    const at = join(dir, "cli");
    const ok = cli(["--db", join(dir, "coverage.sqlite"), "--out", at, "--run", String(runId), "--no-bom"]);
    expect(ok.stderr).toBe("");
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/^reports written to .*broadband\.csv, mobile\.csv/);
    expect(readFileSync(join(at, "rejects.csv"), "utf8")).toBe("Line,Value,Reason,id,Post Code,note,\r\n5,NOT A POSTCODE,not a valid UK postcode,4,NOT A POSTCODE,typo,\r\n");

    const unknown = cli(["--db", join(dir, "coverage.sqlite"), "--out", at, "--run", "999"]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/^error: there is no run 999 in the database/);
    expect(unknown.stderr).not.toMatch(/\n\s+at /);

    const missing = cli(["--db", join(dir, "nope.sqlite")]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe(`error: no database at ${join(dir, "nope.sqlite")} (run a batch first, or give --db PATH)\n`);
  });
});

/** The summary by a different path: plain JavaScript over every stored row (the store's export rows), from the documented definitions. */
async function independentSummary(db: Store, run: number, good: number): Promise<Summary> {
  type Row = Record<string, number | string | null>;
  const runs = await storedTable(db, "runs");
  const answers = await storedTable(db, "postcodes");
  const runRow = runs.find((r) => r.id === run)!;
  const lookups = JSON.parse(runRow.lookups as string) as ("broadband" | "mobile")[];
  const inputRows = (await storedInputRows(db, run)).map(([line, value, postcode]) => ({ line, value, postcode }));
  const postcodes = new Set(inputRows.filter((r) => r.postcode !== null).map((r) => r.postcode as string));
  const status = new Map(answers.map((l) => [`${l.postcode}/${l.lookup}`, l.status as string]));
  const statusCounts = (lookup: string) => {
    const c = { ok: 0, notFound: 0, failed: 0, pending: 0, expired: 0 };
    for (const p of postcodes) {
      const s = status.get(`${p}/${lookup}`) ?? "pending";
      c[s === "not_found" ? "notFound" : (s as "ok" | "failed" | "pending")]++;
    }
    return c;
  };
  const simulatedRuns = new Set(runs.filter((r) => r.simulated === 1).map((r) => r.id));
  const lookupRuns = answers.filter((l) => postcodes.has(l.postcode as string) && lookups.includes(l.lookup as "mobile"));

  const bb = (await storedTable(db, "broadband")).filter((a) => postcodes.has(a.postcode as string));
  const b = { addresses: bb.length, noData: 0, belowDecent: 0, belowSuperfast: 0, superfast: 0, ultrafast: 0, gigabit: 0 };
  for (const a of bb) {
    const down = a.MaxPredictedDown as number | null;
    const up = (a.MaxPredictedUp as number | null) ?? -1;
    if (down === null || down < 0) {
      b.noData++;
      continue;
    }
    if (down < 30) b.belowSuperfast++;
    if (down < 30 && !(down >= 10 && up >= 1)) b.belowDecent++;
    if (down >= 30) b.superfast++;
    if (down >= 300) b.ultrafast++;
    if (down >= 1000) b.gigabit++;
  }

  const mb = (await storedTable(db, "mobile")).filter((a) => postcodes.has(a.postcode as string));
  const providers = JSON.parse(runRow.providers as string) as string[];
  const perProvider = Object.fromEntries(
    providers.map((p) => {
      const n = (f: (a: Row) => boolean) => mb.filter(f).length;
      const r = (a: Row, field: string) => a[`${p}${field}`] as number;
      return [
        p,
        {
          indoorVoiceNotspots: n((a) => r(a, "VoiceIndoor") < good),
          indoorDataNotspots: n((a) => r(a, "DataIndoor") < good),
          outdoorVoiceNotspots: n((a) => r(a, "VoiceOutdoor") < good),
          outdoorDataNotspots: n((a) => r(a, "DataOutdoor") < good),
          indoorDataNeeds4g: n((a) => r(a, "DataIndoor") >= good && r(a, "DataIndoorNo4g") < good),
        },
      ];
    }),
  );
  const spread = (field: string) => {
    let total = 0;
    let partial = 0;
    for (const a of mb) {
      const goodOnes = providers.filter((p) => (a[`${p}${field}`] as number) >= good).length;
      if (goodOnes === 0) total++;
      else if (goodOnes < providers.length) partial++;
    }
    return { totalNotspots: total, partialNotspots: partial };
  };

  const releases = {
    broadband: lookups.includes("broadband") ? releasesOf(lookupRuns.filter((l) => l.lookup === "broadband")) : [],
    mobile: lookups.includes("mobile") ? releasesOf(lookupRuns.filter((l) => l.lookup === "mobile")) : [],
  };
  const releaseText = (r: { release: string | null; fetchedFrom: string | null; fetchedTo: string | null }) => {
    const [from, to] = [r.fetchedFrom?.slice(0, 10), r.fetchedTo?.slice(0, 10)];
    return r.release !== null ? `from release ${r.release}` : `fetched ${from}${to !== from ? ` to ${to}` : ""} (the API names no release)`;
  };
  return {
    simulated: runRow.simulated === 1 || lookupRuns.some((l) => simulatedRuns.has(l.run_id)),
    generatedAt: FIXED_NOW.toISOString(),
    runId: run,
    scope: "run",
    lookups,
    providers,
    goodRating: good,
    postcodes: { input: inputRows.length, invalid: inputRows.filter((r) => r.postcode === null).length, unique: postcodes.size },
    input: { postcodeColumn: runRow.postcode_column as string },
    broadband: lookups.includes("broadband") ? { postcodes: statusCounts("broadband"), ...b, shares: fractions(b, b.addresses, ["addresses"]) } : null,
    mobile: lookups.includes("mobile")
      ? {
          postcodes: statusCounts("mobile"),
          addresses: mb.length,
          providers: perProvider,
          indoorVoice: spread("VoiceIndoor"),
          indoorData: spread("DataIndoor"),
          shares: {
            providers: Object.fromEntries(Object.entries(perProvider).map(([p, f]) => [p, fractions(f, mb.length)])),
            indoorVoice: fractions(spread("VoiceIndoor"), mb.length),
            indoorData: fractions(spread("DataIndoor"), mb.length),
          },
          ...independentScale(mb, providers, good),
        }
      : null,
    releases,
    // every answer of the fixture has one version: nothing changed
    changes: noChanges(lookups, providers),
    attribution: `Source: Ofcom. ${(["broadband", "mobile"] as const)
      .filter((l) => releases[l].length > 0)
      .map((l) => `${l} data ${releases[l].map(releaseText).join(", and ")}`)
      .join("; ")
      .replace(/^b/, "B")}.`,
  };
}

/** Ofcom's two scales, written out here as the live-service notes give them (not read from src). */
const WORDS = {
  legacy: { title: "Ofcom's earlier 0-4 scale", values: [[4, "Enhanced"], [3, "Green"], [2, "Amber"], [1, "Red"], [0, "Clear"]] },
  current: { title: "Ofcom's current 0/3/4 scale", values: [[4, "Likely"], [3, "Limited"], [0, "None"]] },
} as const;

/** The scale figures from the stored rows: any 1 or 2 makes it legacy; per provider and place, the addresses at each rating. */
function independentScale(mb: Record<string, number | string | null>[], providers: string[], good: number) {
  const fields = providers.flatMap((p) => ["Voice", "Data"].flatMap((c) => ["Outdoor", "Indoor"].flatMap((l) => ["", "No4g"].map((v) => `${p}${c}${l}${v}`))));
  const cells = mb.flatMap((a) => fields.map((f) => a[f])).filter((v) => v !== null) as number[];
  const legacy = cells.filter((v) => v === 1 || v === 2).length;
  const scale = legacy > 0 ? ("legacy" as const) : ("current" as const);
  const release = "MobileAvailability-202601010000";
  const place = (p: string, field: string) =>
    WORDS[scale].values.map(([rating, label]) => {
      const addresses = mb.filter((a) => a[`${p}${field}`] === rating).length;
      return { rating, label, addresses, share: mb.length === 0 ? null : Math.round((addresses / mb.length) * 10_000) / 10_000 };
    });
  return {
    scale,
    goodRating: good,
    scaleReason: legacy > 0 ? `${legacy} ratings of 1 or 2 among ${cells.length} ratings of ${release}: ${WORDS[scale].title}` : `no rating 1 or 2 among ${cells.length} ratings of ${release}: ${WORDS[scale].title}`,
    scaleChange: null,
    ratings: Object.fromEntries(
      providers.map((p) => [p, { indoorVoice: place(p, "VoiceIndoor"), indoorData: place(p, "DataIndoor") }]),
    ),
  };
}

function noChanges(lookups: string[], providers: string[]): Summary["changes"] {
  const flow = () => ({ closed: 0, opened: 0 });
  return {
    baseline: "previous version",
    broadband: lookups.includes("broadband")
      ? {
          upATier: 0,
          downATier: 0,
          tiers: Object.fromEntries(TIERS.map((t) => [t, { gained: 0, lost: 0 }])) as Record<(typeof TIERS)[number], { gained: number; lost: number }>,
          addressesAdded: 0,
          addressesRemoved: 0,
        }
      : null,
    mobile: lookups.includes("mobile")
      ? {
          providers: Object.fromEntries(providers.map((p) => [p, { indoorVoice: flow(), indoorData: flow(), outdoorVoice: flow(), outdoorData: flow() }])),
          total: { indoorVoice: flow(), indoorData: flow() },
          addressesAdded: 0,
          addressesRemoved: 0,
        }
      : null,
  };
}

/** Each count over `of`, rounded to 4 places (null when of is 0), leaving out the keys named. */
function fractions<T extends Record<string, number>>(counts: T, of: number, skip: string[] = []) {
  return Object.fromEntries(
    Object.entries(counts)
      .filter(([k]) => !skip.includes(k))
      .map(([k, v]) => [k, of === 0 ? null : Math.round((v / of) * 10_000) / 10_000]),
  ) as Record<Exclude<keyof T, "addresses">, number | null>;
}

/** Stored answers with addresses behind the figures, grouped by their dataset name. */
function releasesOf(rows: Record<string, number | string | null>[]) {
  const byRelease = new Map<string | null, Record<string, number | string | null>[]>();
  for (const r of rows.filter((r) => r.status === "ok" || (r.status === "failed" && (r.address_count as number) > 0)))
    byRelease.set(r.dataset as string | null, [...(byRelease.get(r.dataset as string | null) ?? []), r]);
  return [...byRelease].map(([release, rs]) => {
    const times = rs.map((r) => r.fetched_at as string).sort();
    return { release, fetchedFrom: times[0]!, fetchedTo: times.at(-1)!, postcodes: rs.length, addresses: rs.reduce((n, r) => n + (r.address_count as number), 0) };
  });
}
