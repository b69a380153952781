// Bounded imports: an inner zip that inflates far beyond its size (or claims to) is refused before
// anything is written; a line over 1 MiB fails at once with one line; a row whose postcode is not a
// valid UK postcode is skipped and counted, never stored; an AbortSignal (the batch's stop on
// SIGINT/SIGTERM) ends a large import at once. Zips are made here with fflate, kept small.
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zipSync } from "fflate";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_ROW_BYTES } from "../src/input/read-input.js";
import { OpenDataStopped, readOpenData, ZIP_LIMITS } from "../src/input/open-data.js";
import { OPEN_DATA_FIELDS } from "../src/contract/open-data.js";
import { tempDir } from "./helpers/batch-harness.js";

const dirs: string[] = [];
afterAll(async () => {
  const { rmSync } = await import("node:fs");
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});
function dir(): string {
  const d = tempDir("pcc-open-bounds-");
  dirs.push(d);
  return d;
}
/** The postcode and the columns a postcode file must have. */
const NEEDED = OPEN_DATA_FIELDS.filter((f) => "needed" in f).map((f) => f.headers[0]);
const HEADER = ["postcode", ...NEEDED].join(",") + "\n";
/** A row of HEADER: the postcode, then `share` in every figure's column. */
const row = (postcode: string, share: string) => [postcode, ...NEEDED.map(() => share)].join(",") + "\n";
const NAME = "202601_fixed_pc_coverage_r01_CR.csv";
const tempDebris = () => readdirSync(tmpdir()).filter((n) => n.startsWith("pcc-open-data-")).length;

describe("inner zips are capped before they are written", () => {
  it("an inner zip inflating far beyond its packed size is refused, nothing written to a temporary folder", async () => {
    const d = dir();
    const bomb = new Uint8Array(4 * 1024 * 1024); // zeros: packs to a few KiB
    const file = join(d, "outer.zip");
    writeFileSync(file, zipSync({ "inner.zip": [bomb, { level: 9 }] }));
    const before = tempDebris();
    const err = await readOpenData(file, () => {}).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    // on main: the 4 MiB were copied out, then it failed as "not a readable zip"
    expect((err as Error).message).toMatch(new RegExp(`outer\\.zip/inner\\.zip: an inner zip inflating \\d+ times its packed size \\(more than ${ZIP_LIMITS.maxRatio}\\); not unpacked`));
    expect(tempDebris()).toBe(before);
  });

  it("an inner zip whose directory claims gigabytes is refused by its claim", async () => {
    const d = dir();
    const zip = zipSync({ "inner.zip": [new Uint8Array(1000).fill(65), { level: 9 }] });
    // the central directory's uncompressed size (offset 24 of its header) claims 3.9 GB
    const view = Buffer.from(zip);
    const central = view.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    view.writeUInt32LE(0xf0000000, central + 24);
    const file = join(d, "claims.zip");
    writeFileSync(file, view);
    const err = await readOpenData(file, () => {}).catch((e: unknown) => e as Error);
    expect((err as Error).message).toMatch(/claims\.zip\/inner\.zip: an inner zip of 3840 MiB, more than the 1024 MiB allowed; not unpacked/);
  });
});

describe("every entry of every zip is capped, nested zips included", () => {
  /** A postcode CSV of `rows` identical rows: it packs hundreds of times. */
  const bombCsv = (rows: number) => Buffer.from(HEADER + row("CR05BX", "100.0").repeat(rows));

  it("a CSV in an inner zip inflating far beyond its packed size is refused before a row of it is read", async () => {
    const d = dir();
    const csv = bombCsv(60_000); // about 3 MB, packing to some 10 KiB
    const inner = zipSync({ [`folder/${NAME}`]: [csv, { level: 9 }] });
    const file = join(d, "outer.zip");
    writeFileSync(file, zipSync({ "release/inner.zip": [inner, { level: 0 }] }));
    const rows: string[] = [];
    const err = await readOpenData(file, (_p, postcode) => rows.push(postcode)).catch((e: unknown) => e as Error);
    // on main: every row was imported
    expect((err as Error).message).toMatch(
      new RegExp(`outer\\.zip/release/inner\\.zip/folder/${NAME.replace(/\./g, "\\.")}: a file inflating \\d+ times its packed size \\(more than 100\\); not unpacked$`),
    );
    expect(rows).toEqual([]);
  });

  it("a CSV larger than the size cap is refused, at the top of a zip as in a zip within it", async () => {
    const d = dir();
    const csv = Buffer.from(HEADER + Array.from({ length: 3000 }, (_, i) => row("CR05BX", String(i % 100))).join(""));
    const limits = { maxBytes: 64 * 1024, maxRatio: 100 };
    const top = join(d, "top.zip");
    writeFileSync(top, zipSync({ [NAME]: [csv, { level: 6 }] }));
    const nested = join(d, "nested.zip");
    writeFileSync(nested, zipSync({ "inner.zip": [zipSync({ [NAME]: [csv, { level: 6 }] }), { level: 0 }] }));
    for (const [file, where] of [[top, `top.zip/${NAME}`], [nested, `nested.zip/inner.zip/${NAME}`]] as const) {
      const rows: string[] = [];
      const err = await readOpenData(file, (_p, postcode) => rows.push(postcode), undefined, limits).catch((e: unknown) => e as Error);
      expect((err as Error).message).toMatch(new RegExp(`^--open-data .*${where.replace(/\./g, "\\.")}: a file of \\d+ KiB, more than the 64 KiB allowed; not unpacked$`));
      expect(rows).toEqual([]);
    }
    // within the caps the same file is read whole
    const read = await readOpenData(top, () => {}, undefined, { maxBytes: 1024 * 1024, maxRatio: 100 });
    expect(read.files).toBe(1);
  });
});

describe("the columns a postcode file must have", () => {
  it("a renamed header is refused, naming the headers found and the ones wanted", async () => {
    const d = dir();
    const file = join(d, NAME);
    const renamed = HEADER.replace("SFBB availability (% premises)", "SFBB availability (% of premises)");
    writeFileSync(file, renamed + row("CR05BX", "100.0"));
    const rows: string[] = [];
    const err = await readOpenData(file, (_p, postcode) => rows.push(postcode)).catch((e: unknown) => e as Error);
    // on main: imported, superfast empty for every postcode
    const message = (err as Error).message;
    expect(message).toMatch(new RegExp(`^${NAME.replace(/\./g, "\\.")} line 1: no column "SFBB availability \\(% premises\\)" in its header; wanted "% of premises with 0<2Mbit/s download speed", `));
    expect(message).toContain(`found "postcode", "% of premises with 0<2Mbit/s download speed"`);
    expect(message).toContain(`"SFBB availability (% of premises)"`);
    expect(rows).toEqual([]);
  });
});

describe("CSV lines and postcodes", () => {
  it("a line just over 1 MiB fails at once with one line naming the file and line", async () => {
    const d = dir();
    const file = join(d, NAME);
    writeFileSync(file, HEADER + row("CR05BX", "100.0") + "A".repeat(MAX_ROW_BYTES + 10) + "\n" + row("CR05BY", "50.0"));
    const rows: string[] = [];
    const err = await readOpenData(file, (_p, postcode) => rows.push(postcode)).catch((e: unknown) => e as Error);
    // on main: the line was parsed and "AAAA…" stored as a postcode
    expect((err as Error).message).toBe(`${NAME} line 3: longer than 1 MiB; not a postcode file`);
    expect(rows.every((r) => r.length <= 8)).toBe(true);
  });

  it("a row whose postcode is not a valid UK postcode is skipped and counted, never stored", async () => {
    const d = dir();
    const file = join(d, NAME);
    writeFileSync(file, HEADER + row("CR05BX", "100.0") + row("NOTAPOSTCODE", "50.0") + row("=SUM(A1)", "1.0") + row("cr0 5by", "40.0"));
    const rows: string[] = [];
    const read = await readOpenData(file, (_p, postcode) => rows.push(postcode));
    expect(rows).toEqual(["CR05BX", "CR05BY"]);
    expect(read.badPostcodes).toEqual({ count: 2, first: `${NAME} line 3: "NOTAPOSTCODE"` });
  });
});

describe("an import stops on a signal", () => {
  it("aborting mid-way ends a large import at once, without reading the rest", async () => {
    const d = dir();
    const file = join(d, NAME);
    const rowsTotal = 400_000;
    writeFileSync(file, HEADER + row("CR05BX", "100.0").repeat(rowsTotal));
    const stop = new AbortController();
    let seen = 0;
    const started = Date.now();
    const err = await readOpenData(file, () => {
      if (++seen === 1000) stop.abort();
    }, stop.signal).catch((e: unknown) => e as Error);
    // on main: there was no way to stop it; all 400,000 rows were read
    expect(err).toBeInstanceOf(OpenDataStopped);
    expect(seen).toBeLessThan(rowsTotal / 2);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(existsSync(file)).toBe(true);
  });
});
