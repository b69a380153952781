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
import { MAX_INNER_ZIP_RATIO, OpenDataStopped, readOpenData } from "../src/input/open-data.js";
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
const HEADER = "postcode,SFBB availability (% premises)\n";
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
    expect((err as Error).message).toMatch(new RegExp(`outer\\.zip/inner\\.zip: an inner zip inflating \\d+ times its packed size \\(more than ${MAX_INNER_ZIP_RATIO}\\); not unpacked`));
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

describe("CSV lines and postcodes", () => {
  it("a line just over 1 MiB fails at once with one line naming the file and line", async () => {
    const d = dir();
    const file = join(d, NAME);
    writeFileSync(file, HEADER + "CR05BX,100.0\n" + "A".repeat(MAX_ROW_BYTES + 10) + "\nCR05BY,50.0\n");
    const rows: string[] = [];
    const err = await readOpenData(file, (_p, postcode) => rows.push(postcode)).catch((e: unknown) => e as Error);
    // on main: the line was parsed and "AAAA…" stored as a postcode
    expect((err as Error).message).toBe(`${NAME} line 3: longer than 1 MiB; not a postcode file`);
    expect(rows.every((r) => r.length <= 8)).toBe(true);
  });

  it("a row whose postcode is not a valid UK postcode is skipped and counted, never stored", async () => {
    const d = dir();
    const file = join(d, NAME);
    writeFileSync(file, HEADER + "CR05BX,100.0\nNOTAPOSTCODE,50.0\n=SUM(A1),1.0\ncr0 5by,40.0\n");
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
    writeFileSync(file, HEADER + "CR05BX,100.0\n".repeat(rowsTotal));
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
