// Issue 19.1: no file the run reads may be a member of the report set (or lie in its staging area):
// refused before anything is read, one line naming both paths, the file untouched.
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generatePostcodes } from "../src/simulator/index.js";
import { REPORT_FILES } from "../src/report/index.js";
import { readPathInReportSet } from "../src/report/set/read-paths.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const members = REPORT_FILES.map((f) => f.name);

function dir(): string {
  const d = tempDir("pcc-reads-");
  dirs.push(d);
  return d;
}

describe("a read path inside the report set", () => {
  it("stops the batch before it reads anything, naming both paths, and the input is kept", async () => {
    const d = dir();
    const out = join(d, "out");
    mkdirSync(out);
    const input = writeCsv(out, "postcodes.csv", ["postcode", ...generatePostcodes(2, 3)]);
    const bytes = readFileSync(input);
    const r = await runIn(d, { in: input, out, simulate: true }, {});
    expect(r.exitCode).toBe(1);
    expect(r.runId).toBeNull();
    const errors = r.logs.map((l) => JSON.parse(l) as { level: string; message: string }).filter((l) => l.level === "error");
    expect(errors.map((e) => e.message)).toEqual([
      `--in ${input} is ${join(out, "postcodes.csv")}, part of the report set written to --out ${out}, which would replace it; move the file or choose another --out`,
    ]);
    expect(readFileSync(input)).toEqual(bytes);
    // nothing was opened: not even the database
    expect(existsSync(join(d, "coverage.sqlite"))).toBe(false);
  });

  it("is found through another spelling of the folder (a symbolic link), for --db and --area-file too", () => {
    const d = dir();
    const out = join(d, "out");
    mkdirSync(out);
    symlinkSync(out, join(d, "alias"));
    expect(readPathInReportSet([{ flag: "--db", path: join(d, "alias", "coverage.xlsx") }], out, members)).toBe(
      `--db ${join(d, "alias", "coverage.xlsx")} is ${join(out, "coverage.xlsx")}, part of the report set written to --out ${out}, which would replace it; move the file or choose another --out`,
    );
    expect(readPathInReportSet([{ flag: "--area-file", path: join(out, ".staging-h-1-abcdef", "onspd.csv") }], join(d, "alias"), members)).toMatch(
      /^--area-file .*onspd\.csv is .*, part of the report set/,
    );
    expect(readPathInReportSet([{ flag: "--db", path: join(out, "coverage.sqlite-wal") }], out, [...members, "coverage.sqlite-wal"])).toMatch(/^--db /);
  });

  it("finds a hard link to a member outside --out, and lets files beside the set be", () => {
    const d = dir();
    const out = join(d, "out");
    mkdirSync(out);
    writeFileSync(join(out, "enriched.csv"), "x");
    linkSync(join(out, "enriched.csv"), join(d, "input.csv"));
    expect(readPathInReportSet([{ flag: "--in", path: join(d, "input.csv") }], out, members)).toMatch(/^--in .*input\.csv is .*enriched\.csv,/);
    writeFileSync(join(out, "my-postcodes.csv"), "postcode\n");
    expect(readPathInReportSet([{ flag: "--in", path: join(out, "my-postcodes.csv") }, { flag: "--db", path: join(out, "coverage.sqlite") }], out, members)).toBeNull();
  });
});
