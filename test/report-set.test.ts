// Issue 10.1/10.2: the report set is replaced whole or not at all, and only by a run that fetched.
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { generatePostcodes, simulatedAreaFile, startSimulator, type Simulator } from "../src/simulator/index.js";
import { openStore } from "../src/store/open-store.js";
import { REPORT_FILES, ReportSetError, writeReports } from "../src/report/index.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { readSummaryJson } from "./helpers/summary-json.js";

const KEY = "Hq3-vN8w-Xp2k-Lm5";
const SEED = 3;
const env = { COVERAGE_API_KEY: KEY };
const postcodes = generatePostcodes(SEED, 12);
const dirs: string[] = [];
const sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((s) => s.close()));
});
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function goodRun() {
  const d = tempDir("pcc-set-");
  dirs.push(d);
  const s = await startSimulator({ port: 0, seed: SEED, key: KEY });
  sims.push(s);
  const input = writeCsv(d, "in.csv", ["postcode", ...postcodes]);
  // with coordinates, so that the set has every file (postcodes.geojson too)
  const areaFile = writeCsv(d, "areas.csv", simulatedAreaFile(postcodes));
  const r = await runIn(d, { in: input, baseUrl: s.url, areaFile }, env);
  expect(r.exitCode).toBe(0);
  return { d, out: join(d, "out"), input, s };
}
function contents(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), "utf8")]));
}

describe("the report set", () => {
  it("is left exactly as it was when one file of the new set fails, with an error naming the file", async () => {
    const { d, out } = await goodRun();
    const before = contents(out);
    // every report, and the record of what the set was made from (report/set/fingerprint.ts)
    // (open-data-vs-api.csv only with Ofcom's open data in the database, which this run has not)
    expect(Object.keys(before).sort()).toEqual([...REPORT_FILES.map((f) => f.name).filter((f) => f !== "open-data-vs-api.csv"), ".fingerprint"].sort());
    const db = await openStore(join(d, "coverage.sqlite"), { readonly: true });
    try {
      const failing = [
        ...REPORT_FILES.slice(0, 5),
        {
          name: "groups.csv",
          write: async (_c: unknown, path: string) => {
            writeFileSync(path, "half");
            throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
          },
        },
        ...REPORT_FILES.slice(5),
      ];
      const attempt = writeReports(db, { outDir: out, files: failing, now: () => new Date(0) });
      await expect(attempt).rejects.toThrow(ReportSetError);
      await expect(attempt).rejects.toThrow(`cannot write the reports: groups.csv: no space left on the device; ${out} keeps its previous reports`);
    } finally {
      await db.close();
    }
    // byte for byte the previous set, and no staging left behind
    expect(contents(out)).toEqual(before);
  });

  it("from --all drops the files that belong to one run's input, so the set is one run's (or all)", async () => {
    const { d, out } = await goodRun();
    const db = await openStore(join(d, "coverage.sqlite"), { readonly: true });
    try {
      const result = await writeReports(db, { outDir: out, all: true });
      expect(result.files.map((f) => f.split("/").pop())).not.toContain("enriched.csv");
    } finally {
      await db.close();
    }
    expect(readdirSync(out)).not.toContain("enriched.csv");
    expect(readdirSync(out)).not.toContain("rejects.csv");
    expect(readSummaryJson(join(out, "summary.json"))).toMatchObject({ scope: "all", runId: null });
  });

  it("an --out that cannot be written makes the run exit 1 naming it", async () => {
    const { d, input, s } = await goodRun();
    const file = join(d, "not-a-dir");
    writeFileSync(file, "x");
    const r = await runIn(d, { in: input, baseUrl: s.url, out: file, refresh: true }, env);
    expect(r.exitCode).toBe(1);
    const errors = r.logs.map((l) => JSON.parse(l) as { level: string; message: string }).filter((l) => l.level === "error");
    expect(errors.map((e) => e.message)).toEqual([
      `cannot write the reports to ${file}: a file is in the way; the previous reports are unchanged and the database is complete: \`npm run report\` retries`,
    ]);
  });
});

describe("a run that fails before fetching", () => {
  it("writes no reports, and `report` without --run keeps reporting the last run that read its input", async () => {
    const { d, out, input, s } = await goodRun();
    const before = contents(out);
    // a rejected key
    const bad = await runIn(d, { in: input, baseUrl: s.url, refresh: true }, { COVERAGE_API_KEY: "Wr0ng-K3y-zz99-Qp1" });
    expect(bad.exitCode).toBe(1);
    // a mistyped input
    const missing = await runIn(d, { in: join(d, "nope.csv"), baseUrl: s.url }, env);
    expect(missing.exitCode).toBe(1);
    expect(contents(out)).toEqual(before);

    const again = join(d, "again");
    mkdirSync(again);
    const db = await openStore(join(d, "coverage.sqlite"), { readonly: true });
    try {
      const result = await writeReports(db, { outDir: again });
      // run 2 (rejected key) read its input; run 3 (missing file) did not
      expect(result.summary.runId).toBe(2);
    } finally {
      await db.close();
    }
  });
});
