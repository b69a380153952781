// Issue 25, point 1: Ofcom's open postcode files imported as published (test/fixtures/open-data,
// built by its make.py with Python's zipfile): verbatim headers of 2025 and 2026, BOM or not, CRLF,
// a zip in a zip, data descriptors, a folder, one CSV. Every figure stored is compared with an
// independent reading of the same bytes (csv/), split by hand and matched by exact header text.
import { copyFileSync, readFileSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLogger } from "../src/log/logger.js";
import { importOpenData } from "../src/pipeline/open-data-stage.js";
import { useTempDatabase } from "./helpers/temp-database.js";

const FIXTURES = join(import.meta.dirname, "fixtures", "open-data");
const t = useTempDatabase("pcc-open-data-");

/** The published header names of the stored columns, as the 2026 files spell them (2025: the USO one). */
const PUBLISHED: Record<string, string[]> = {
  OfcomBand0to2: ["% of premises with 0<2Mbit/s download speed"],
  OfcomBand2to5: ["% of premises with 2<5Mbit/s download speed"],
  OfcomBand5to10: ["% of premises with 5<10Mbit/s download speed"],
  OfcomBand10to30: ["% of premises with 10<30Mbit/s download speed"],
  OfcomBand30to300: ["% of premises with 30<300Mbit/s download speed"],
  OfcomBand300Plus: ["% of premises with >=300Mbit/s download speed"],
  OfcomSuperfast: ["SFBB availability (% premises)"],
  OfcomUltrafast100: ["UFBB (100Mbit/s) availability (% premises)"],
  OfcomUltrafast: ["UFBB availability (% premises)"],
  OfcomGigabit: ["Gigabit availability (% premises)"],
  OfcomNoDecent: ["% of premises unable to receive decent broadband from fixed or FWA", "% of premises below the USO"],
};

type Row = Record<string, unknown>;

/** The fixture CSVs of one data month, read by hand: premises|postcode → column → value. */
function independentReading(month: string): Map<string, Row> {
  const out = new Map<string, Row>();
  for (const name of readdirSync(join(FIXTURES, "csv")).filter((n) => n.startsWith(month))) {
    const text = readFileSync(join(FIXTURES, "csv", name), "utf8").replace(/^\uFEFF/, "");
    const [header, ...lines] = text.split("\r\n").filter((l) => l !== "");
    const names = header!.split(",");
    const premises = name.includes("_res_") ? "residential" : "all";
    for (const line of lines) {
      const cells = line.split(",");
      const row: Row = { postcode: cells[0], premises };
      for (const [column, headers] of Object.entries(PUBLISHED)) {
        const cell = cells[names.findIndex((n) => headers.includes(n))]!;
        row[column] = cell === "" ? null : Number(cell);
      }
      out.set(`${premises}|${cells[0]}`, row);
    }
  }
  return out;
}

function stored(): Map<string, Row> {
  const rows = t.db.prepare(`SELECT * FROM open_data ORDER BY premises, postcode`).all() as Row[];
  return new Map(rows.map((r) => [`${r.premises}|${r.postcode}`, r]));
}

function logger(lines: string[]) {
  return createLogger({ format: "text", quiet: false, write: (l) => lines.push(l) });
}

const run = { runId: null, now: () => "2026-11-23T00:00:00.000Z" };

describe("importing Ofcom's open postcode files", () => {
  it("reads a zip in a zip with the 2025 header names, BOM and CRLF: every figure as an independent reading has it", async () => {
    const lines: string[] = [];
    const result = await importOpenData(t.store, join(FIXTURES, "202507_fixed_broadband_coverage_r01.zip"), run, logger(lines));
    expect(result).toEqual({ ok: true });
    const expected = independentReading("202507");
    expect(expected.size).toBe(6);
    expect(stored()).toEqual(expected);
    // the empty Gigabit cell is no data, not 0
    expect(stored().get("all|SW1A2AA")!.OfcomGigabit).toBeNull();
    expect(await t.store.openData.current()).toMatchObject({ month: "2025-07", revision: 1, files: 3, postcodes: 4, residential: 2 });
    expect(lines.join("\n")).toMatch(/imported release 2025-07 \(r1\).*3 files, 4 postcodes \(all premises\), 2 residential/);
  });

  it("reads the 2026 header names (no BOM in one file), skips other files in the zip, and replaces the older release", async () => {
    await importOpenData(t.store, join(FIXTURES, "202507_fixed_broadband_coverage_r01.zip"), run, logger([]));
    const lines: string[] = [];
    expect(await importOpenData(t.store, join(FIXTURES, "202601_fixed_broadband_coverage_and_full_fibre_take-up-r1.zip"), run, logger(lines))).toEqual({ ok: true });
    expect(stored()).toEqual(independentReading("202601"));
    expect(await t.store.openData.current()).toMatchObject({ month: "2026-01", revision: 2, files: 2, postcodes: 3, residential: 1 });
    expect(lines.join("\n")).toContain("replaces release 2025-07");
  });

  it("reads zips written as a stream (data descriptors) and the 'postcode' spelling of the names", async () => {
    expect(await importOpenData(t.store, join(FIXTURES, "streamed"), run, logger([]))).toEqual({ ok: true });
    expect(stored()).toEqual(independentReading("202601"));
  });

  it("reads one CSV given on its own", async () => {
    expect(await importOpenData(t.store, join(FIXTURES, "csv", "202507_fixed_pc_coverage_r01_SW.csv"), run, logger([]))).toEqual({ ok: true });
    expect([...stored().keys()]).toEqual(["all|SW1A2AA"]);
  });

  it("does not read the same archive twice, and reads it again once it changed", async () => {
    const zip = join(t.dir, "202601_fixed_broadband_coverage_and_full_fibre_take-up-r1.zip");
    copyFileSync(join(FIXTURES, "202601_fixed_broadband_coverage_and_full_fibre_take-up-r1.zip"), zip);
    await importOpenData(t.store, zip, run, logger([]));
    const lines: string[] = [];
    await importOpenData(t.store, zip, run, logger(lines));
    expect(lines.join("\n")).toMatch(/release 2026-01 \(r2\) from .* already imported \(3 postcodes\); not read again/);
    expect(t.db.prepare("SELECT COUNT(*) FROM open_data_imports").pluck().get()).toBe(1);
    utimesSync(zip, new Date(), new Date(Date.now() + 60_000));
    await importOpenData(t.store, zip, run, logger([]));
    expect(t.db.prepare("SELECT COUNT(*) FROM open_data_imports").pluck().get()).toBe(2);
  });

  it("says in one line what is wrong, and keeps the stored release", async () => {
    await importOpenData(t.store, join(FIXTURES, "202507_fixed_broadband_coverage_r01.zip"), run, logger([]));
    // a download cut short: the first half of the archive
    const whole = readFileSync(join(FIXTURES, "202601_fixed_broadband_coverage_and_full_fibre_take-up-r1.zip"));
    writeFileSync(join(t.dir, "cut.zip"), whole.subarray(0, whole.length >> 1));
    const cases: [string, RegExp][] = [
      [join(t.dir, "cut.zip"), /--open-data .*cut\.zip: not a readable zip \(/],
      ["cp1252", /202601_fixed_pc_coverage_r2_XX\.csv line 3: not UTF-8 \(Windows-1252\?\); convert it/],
      ["csv", /holds files of two releases, 2025-07 and 2026-01/],
      ["missing.zip", /--open-data .*missing\.zip: no such file or folder/],
      ["make.py", /not one of Ofcom's postcode files/],
    ];
    for (const [path, message] of cases) {
      const result = await importOpenData(t.store, path.startsWith("/") ? path : join(FIXTURES, path), run, logger([]));
      expect(result.ok, path).toBe(false);
      const text = (result as { message: string }).message;
      expect(text, path).toMatch(message);
      expect(text, path).toContain("(the stored release 2025-07 is kept)");
      expect(text.split("\n"), path).toHaveLength(1);
    }
    expect(stored()).toEqual(independentReading("202507"));
  });
});
