// The soak's pure parts: its comparisons must catch each kind of loss, and its input and kill plan
// must be what they claim. (The soak itself is `npm run soak`, not part of the test suite.)
import { describe, expect, it } from "vitest";
import {
  cellText,
  checkAgainstInput,
  checkNoDuplicates,
  compareDeclared,
  compareFinalRuns,
  compareReports,
  compareTables,
  differingColumns,
  firstDifference,
  normaliseReport,
  type Row,
  type TableData,
} from "../soak/compare.js";
import { buildSoakInput, compactOf, looksValid } from "../soak/input.js";
import { inLowerCase } from "../soak/pg-read.js";
import { planKills } from "../soak/kill-plan.js";
import { rngFor } from "../src/simulator/hash.js";

function table(rows: Row[], over: Partial<TableData> = {}): TableData {
  return {
    name: "broadband_addresses",
    columns: ["postcode", "uprn", "address", "MaxPredictedDown"],
    primaryKey: ["postcode", "uprn"],
    rows,
    count: rows.length,
    distinctKeys: rows.length,
    distinctRows: rows.length,
    ...over,
  };
}
const addr = (uprn: bigint, down: number | null = 80, postcode = "SW1A2AA"): Row => ({ postcode, uprn, address: `${uprn} High St`, MaxPredictedDown: down });

describe("compareTables", () => {
  it("finds nothing when both runs stored the same rows, in any order", () => {
    expect(compareTables(table([addr(1n), addr(2n)]), table([addr(2n), addr(1n)]))).toEqual([]);
  });

  it("reports a missing row, an extra row and a changed value", () => {
    const got = table([addr(1n, 80), addr(3n)]);
    const want = table([addr(1n, 79.5), addr(2n)]);
    const details = compareTables(got, want).map((m) => m.detail);
    expect(details).toHaveLength(3);
    expect(details.some((d) => d.startsWith("extra row") && d.includes("int 3"))).toBe(true);
    expect(details.some((d) => d.startsWith("missing row") && d.includes("int 2"))).toBe(true);
    expect(details.some((d) => d.includes("MaxPredictedDown: real 80 vs clean real 79.5"))).toBe(true);
  });

  it("tells 64-bit UPRNs apart exactly and never equates text with numbers", () => {
    expect(compareTables(table([addr(999_999_999_999n)]), table([addr(999_999_999_998n)]))).toHaveLength(2);
    expect(cellText(1n)).not.toBe(cellText("1"));
    expect(cellText(1n)).not.toBe(cellText(1));
    expect(cellText(null)).not.toBe(cellText("null"));
  });

  it("skips the ignored columns only", () => {
    const cols = { name: "lookups", columns: ["postcode", "lookup", "status", "attempts"], primaryKey: ["postcode", "lookup"] };
    const got = table([{ postcode: "A", lookup: "mobile", status: "ok", attempts: 4n }], cols);
    const want = table([{ postcode: "A", lookup: "mobile", status: "ok", attempts: 1n }], cols);
    expect(compareTables(got, want, ["attempts"])).toEqual([]);
    const failed = table([{ postcode: "A", lookup: "mobile", status: "failed", attempts: 6n }], cols);
    expect(compareTables(failed, want, ["attempts"]).map((m) => m.detail)).toEqual(['(text "A" | text "mobile") status: text "failed" vs clean text "ok"']);
  });

  it("reports a schema difference", () => {
    const got = table([], { columns: ["postcode", "uprn", "address"] });
    expect(compareTables(got, table([]))[0]!.detail).toMatch(/^columns differ/);
  });
});

describe("compareDeclared: the store's classes of its columns", () => {
  const cols = ["postcode", "lookup", "status", "attempts", "returned_at"];
  const lookups = (rows: Row[], columns = cols) =>
    new Map([["lookups", table(rows, { name: "lookups", columns, primaryKey: ["postcode", "lookup"] })]]);
  const answer = (over: Row = {}): Row => ({ postcode: "A", lookup: "mobile", status: "ok", attempts: 1n, returned_at: "2026-01-01T00:00:00Z", ...over });

  it("skips the columns declared to differ (attempts, returned_at) and compares the rest", () => {
    const clean = lookups([answer()]);
    expect(compareDeclared(lookups([answer({ attempts: 4n, returned_at: "2026-01-01T00:00:09Z" })]), clean, ["lookups"])).toEqual([]);
    expect(compareDeclared(lookups([answer({ status: "failed" })]), clean, ["lookups"]).map((m) => m.detail)).toEqual([
      '(text "A" | text "mobile") status: text "failed" vs clean text "ok"',
    ]);
    expect(differingColumns().lookups).toEqual(expect.arrayContaining(["attempts", "returned_at", "fetched_at"]));
    expect(differingColumns().lookups).not.toContain("status");
  });

  it("fails on a column or a table the declaration does not class, and still compares the column", () => {
    const withNew = [...cols, "answered_by"];
    const got = lookups([answer({ answered_by: "x" })], withNew);
    const want = lookups([answer({ answered_by: "y" })], withNew);
    expect(compareDeclared(got, want, ["lookups", "night_notes"]).map((m) => m.detail)).toEqual([
      "table night_notes has no class in src/store/compared-columns.ts",
      "column answered_by has no class in src/store/compared-columns.ts: compared, but say whether it may differ",
      '(text "A" | text "mobile") answered_by: text "x" vs clean text "y"',
    ]);
  });

  it("matches the last run's row alone, on no key", () => {
    const runs = (state: string) => new Map([["runs (last run)", table([{ id: 1n, state }], { name: "runs (last run)", columns: ["id", "state"], primaryKey: ["id"] })]]);
    expect(compareDeclared(runs("completed"), new Map([["runs (last run)", { ...runs("completed").get("runs (last run)")!, rows: [{ id: 6n, state: "completed" }] }]]), [])).toEqual([]);
    expect(compareDeclared(runs("stopped"), runs("completed"), []).map((m) => m.detail)).toEqual(['() state: text "stopped" vs clean text "completed"']);
  });
});

describe("inLowerCase: PostgreSQL's folded names against SQLite's", () => {
  it("lines two engines' tables up, column for column, and still finds a changed value", () => {
    const sqlite = table([addr(1n)]);
    const postgres = table([{ postcode: "SW1A2AA", uprn: 1n, address: "1 High St", maxpredicteddown: 80 }], {
      columns: ["postcode", "uprn", "maxpredicteddown", "address"],
    });
    expect(compareTables(postgres, sqlite)[0]!.detail).toMatch(/^columns differ/);
    expect(compareTables(inLowerCase(postgres), inLowerCase(sqlite))).toEqual([]);
    const changed = { ...postgres, rows: [{ ...postgres.rows[0]!, maxpredicteddown: 79 }] };
    expect(compareTables(inLowerCase(changed), inLowerCase(sqlite)).map((m) => m.detail)).toEqual([
      '(text "SW1A2AA" | int 1) maxpredicteddown: real 79 vs clean real 80',
    ]);
  });
});

describe("checkNoDuplicates", () => {
  it("passes a table whose counts agree", () => {
    expect(checkNoDuplicates(table([addr(1n), addr(2n)]), "soak")).toEqual([]);
  });

  it("catches a duplicate by the database's counts and by the rows", () => {
    const dup = table([addr(1n), addr(1n)], { distinctKeys: 1, distinctRows: 1 });
    expect(checkNoDuplicates(dup, "soak").map((m) => m.detail)).toEqual([
      "2 rows but 1 distinct primary keys",
      "2 rows but 1 distinct rows",
      "1 rows repeat a primary key",
    ]);
    expect(checkNoDuplicates(table([addr(1n)], { primaryKey: [] }), "soak")[0]!.detail).toBe("no primary key declared");
  });
});

describe("reports", () => {
  const json = (at: string, run: number, ok: number) =>
    Buffer.from(`{\n  "simulated": false,\n  "generatedAt": "${at}",\n  "runId": ${run},\n  "ok": ${ok}\n}\n`);

  it("ignores generatedAt and runId in summary.json, and nothing else", () => {
    const a = new Map([["summary.json", json("2025-01-01T00:00:00.000Z", 7, 5)]]);
    const b = new Map([["summary.json", json("2025-06-01T12:00:00.000Z", 1, 5)]]);
    expect(compareReports(a, b)).toEqual([]);
    const c = new Map([["summary.json", json("2025-06-01T12:00:00.000Z", 1, 4)]]);
    expect(compareReports(a, c)[0]!.detail).toBe('differs from line 5: "  \\"ok\\": 5" vs clean "  \\"ok\\": 4"');
  });

  it("checks report.html and coverage.xlsx are in both sets, not their bytes (they show the run's own facts)", () => {
    const page = (run: number) => Buffer.from(`<title>Coverage report, run ${run}</title>`);
    expect(compareReports(new Map([["report.html", page(6)]]), new Map([["report.html", page(1)]]))).toEqual([]);
    expect(compareReports(new Map(), new Map([["coverage.xlsx", page(1)]]))).toEqual([
      { check: "report coverage.xlsx", detail: "missing: written by the clean run only" },
    ]);
  });

  it("ignores fetch dates in summary.json's releases", () => {
    const release = (from: string) => Buffer.from(`{\n  "releases": [{ "release": "R1", "fetchedFrom": "${from}", "fetchedTo": "${from}", "addresses": 5 }]\n}\n`);
    expect(compareReports(new Map([["summary.json", release("2025-01-01")]]), new Map([["summary.json", release("2025-02-02")]]))).toEqual([]);
    const other = Buffer.from(release("2025-01-01").toString().replace('"R1"', '"R2"'));
    expect(compareReports(new Map([["summary.json", release("2025-01-01")]]), new Map([["summary.json", other]]))).toHaveLength(1);
  });

  it("ignores the generated time, run and fetch dates of summary.csv, and nothing else", () => {
    const csv = (at: string, run: string, input: number, fetched = "2025-01-01") =>
      Buffer.from(`\uFEFFSection,Figure,Count,Share,Of\r\nAbout,Report generated (UTC),${at},,\r\nAbout,Run,${run},,\r\n` +
        `About,Includes simulated data (not the real API),no,,\r\nInput,Input rows,${input},,\r\n` +
        `Releases,Mobile: release R1 (fetched ${fetched}),7,100.0%,7 addresses the mobile lookup returned\r\n`);
    expect(compareReports(new Map([["summary.csv", csv("x", "1", 300)]]), new Map([["summary.csv", csv("x", "1", 300, "2025-02-01 to 2025-02-03")]]))).toEqual([]);
    const a = new Map([["summary.csv", csv("2025-01-01T00:00:00.000Z", "4", 300)]]);
    expect(compareReports(a, new Map([["summary.csv", csv("2025-06-01T00:00:00.000Z", "1", 300)]]))).toEqual([]);
    expect(compareReports(a, new Map([["summary.csv", csv("2025-06-01T00:00:00.000Z", "1", 301)]]))[0]!.detail).toMatch(/^differs from line 5/);
    const simulated = Buffer.from(csv("x", "1", 300).toString().replace("API),no", "API),yes"));
    expect(compareReports(a, new Map([["summary.csv", simulated]]))).toHaveLength(1);
  });

  it("compares CSV files byte for byte, BOM and line endings included", () => {
    const csv = "\uFEFFPostCode,UPRN\r\nSW1A2AA,1\r\n";
    expect(compareReports(new Map([["a.csv", Buffer.from(csv)]]), new Map([["a.csv", Buffer.from(csv)]]))).toEqual([]);
    const noBom = new Map([["a.csv", Buffer.from(csv.slice(1))]]);
    expect(compareReports(noBom, new Map([["a.csv", Buffer.from(csv)]]))).toHaveLength(1);
    expect(normaliseReport("a.csv", Buffer.from('"runId": 3')).toString()).toBe('"runId": 3');
  });

  it("reports a file written by one run only", () => {
    const one = new Map([["a.csv", Buffer.from("x\n")]]);
    const both = new Map([...one, ["b.csv", Buffer.from("y\n")]]);
    expect(compareReports(one, both)).toEqual([{ check: "report b.csv", detail: "missing: written by the clean run only" }]);
    expect(compareReports(both, one)).toEqual([{ check: "report b.csv", detail: "extra: not written by the clean run" }]);
  });

  it("firstDifference names the first differing line", () => {
    expect(firstDifference("a\nb\nc", "a\nb\nc")).toBeNull();
    expect(firstDifference("a\nb\nc", "a\nB\nc")).toEqual({ line: 2, got: "b", want: "B" });
    expect(firstDifference("a\n", "a\nb")).toEqual({ line: 2, got: "", want: "b" });
  });
});

describe("run and input checks", () => {
  const run = (over: Row = {}): Row => ({
    state: "completed", exit_code: 0n, simulated: 0n, input_rows: 10n, postcodes: 8n, rejects: 1n, ok: 14n, not_found: 2n, failed: 0n, pending: 0n,
    requests: 16n, ...over,
  }); // prettier-ignore

  it("accepts a last run that completed with 0, and rejects one that ended with failures", () => {
    expect(compareFinalRuns(run({ requests: 99n }), run())).toEqual([]);
    expect(compareFinalRuns(run({ exit_code: 2n, ok: 13n, failed: 1n }), run()).map((m) => m.detail)).toEqual([
      "soak run ended completed with exit int 2, not completed with 0",
    ]);
    expect(compareFinalRuns(undefined, run())[0]!.detail).toBe("no run recorded (soak database)");
  });

  it("checks stored statuses and rejects against what the input holds", () => {
    const e = { postcodes: ["AB12CD", "EF34GH"], unknown: new Set(["EF34GH"]), lookups: ["broadband"], inputRows: 3, invalidRows: 1 };
    const rows: Row[] = [{ postcode: "AB12CD" }, { postcode: "EF34GH" }, { postcode: null }];
    const good: Row[] = [
      { postcode: "AB12CD", lookup: "broadband", status: "ok" },
      { postcode: "EF34GH", lookup: "broadband", status: "not_found" },
    ];
    expect(checkAgainstInput("soak", good, rows, e)).toEqual([]);
    const bad: Row[] = [{ postcode: "AB12CD", lookup: "broadband", status: "failed" }, { postcode: "ZZ99ZZ", lookup: "broadband", status: "ok" }];
    expect(checkAgainstInput("soak", bad, rows.slice(0, 2), e).map((m) => m.detail)).toEqual([
      "AB12CD broadband: failed, expected ok",
      "EF34GH broadband: absent, expected not_found",
      "ZZ99ZZ broadband: stored but not in the input",
      "2 input rows recorded, the file has 3",
      "0 rows rejected, the file has 1 invalid",
    ]);
  });
});

describe("soak input and kill plan", () => {
  it("builds the same file from the same seed, with the mix it reports", () => {
    const shape = { rows: 400, invalidShare: 0.05, duplicateShare: 0.1 };
    const a = buildSoakInput("7", shape);
    expect(buildSoakInput("7", shape).csv).toBe(a.csv);
    expect(buildSoakInput("8", shape).csv).not.toBe(a.csv);
    expect([a.invalid, a.duplicates, a.unique.length]).toEqual([20, 40, 340]);
    expect(new Set(a.unique).size).toBe(340);

    const values = a.csv.trimEnd().split("\n").slice(1).map((l) => l.split(",")[1]!);
    expect(values).toHaveLength(400);
    expect(values.filter((v) => !looksValid(v))).toHaveLength(20);
    const compact = values.map(compactOf).filter((v): v is string => v !== null);
    expect(compact).toHaveLength(380);
    expect(new Set(compact)).toEqual(new Set(a.unique));
    // mixed spellings really occur
    expect(values.some((v) => v !== v.toUpperCase())).toBe(true);
    expect(values.some((v) => v.includes("\t"))).toBe(true);
  });

  it("spreads the kills over the run, in order, and replays from the seed", () => {
    const plan = planKills(rngFor("1", "k"), 3, 1000);
    expect(plan).toEqual(planKills(rngFor("1", "k"), 3, 1000));
    const at = plan.map((p) => p.afterRequests);
    expect(at).toEqual([...at].sort((x, y) => x - y));
    expect(at[0]!).toBeGreaterThanOrEqual(50);
    expect(at[2]!).toBeLessThanOrEqual(850);
    expect(new Set(at).size).toBe(3);
    for (const p of plan) expect(p.delayMs).toBeGreaterThanOrEqual(0);
  });
});
