// A 100 MB input, generated here and streamed through openInput: every row comes out with the
// right line, nothing is held whole, and memory stays bounded. Rows are wide (a long notes
// column) so 100 MB is ~25,000 rows and the test takes seconds. Speed is measured by
// `npm run bench`, not here.
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openInput } from "../src/input/read-input.js";

const TARGET_BYTES = 100_000_000;
const NOTES = "Surveyed 2024; access via rear lane; gate code on file. ".repeat(70); // ~4 KB
const POSTCODES = ["SW1A 1AA", "ec1a1bb", "M1 1AE", " B33 8TH ", "not a postcode", "CR2 6XH", "DN55 1PT"];
const INVALID = new Set(["not a postcode"]);
/** every 1,000th row has a quoted note spanning three lines, so line numbers must keep count */
const MULTILINE_EVERY = 1000;

const dir = mkdtempSync(join(tmpdir(), "pcc-large-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes the file in 1 MB blocks; returns the number of data rows. */
function generate(path: string): number {
  const fd = openSync(path, "w");
  let block = "id,postcode,notes\n";
  let written = 0;
  let rows = 0;
  while (written + block.length < TARGET_BYTES) {
    const notes = rows % MULTILINE_EVERY === 0 ? `"${NOTES}\nsecond line, ""quoted""\r\nthird line"` : NOTES;
    block += `${rows},${POSTCODES[rows % POSTCODES.length]},${notes}\n`;
    rows++;
    if (block.length >= 1 << 20) {
      written += writeSync(fd, block);
      block = "";
    }
  }
  writeSync(fd, block);
  closeSync(fd);
  return rows;
}

describe("a 100 MB input", () => {
  it("streams every row with its line, in bounded memory", { timeout: 120_000 }, async () => {
    const path = join(dir, "large.csv");
    const rowCount = generate(path);
    expect(statSync(path).size).toBeGreaterThanOrEqual(TARGET_BYTES - (1 << 20));

    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    let rows = 0;
    let rejects = 0;
    let expectedLine = 2;
    const wrong: string[] = [];
    const input = await openInput(createReadStream(path), { source: path });
    for await (const r of input.rows) {
      const i = rows;
      if (r.line !== expectedLine || r.cells.length !== 3 || r.cells[0] !== String(i) || r.value !== POSTCODES[i % POSTCODES.length])
        wrong.push(`row ${i}: line ${r.line} (expected ${expectedLine}), id ${r.cells[0]}, value ${JSON.stringify(r.value)}`);
      if (i % MULTILINE_EVERY === 0 && r.cells[2] !== `${NOTES}\nsecond line, "quoted"\r\nthird line`) wrong.push(`row ${i}: multi-line note read wrong`);
      if (r.postcode.ok === INVALID.has(r.value)) wrong.push(`row ${i}: ${JSON.stringify(r.value)} classified ${r.postcode.ok ? "valid" : "invalid"}`);
      if (!r.postcode.ok) rejects++;
      expectedLine += i % MULTILINE_EVERY === 0 ? 3 : 1;
      rows++;
      if (rows % 256 === 0) peak = Math.max(peak, process.memoryUsage().rss);
    }

    expect(wrong.slice(0, 5)).toEqual([]);
    expect(rows).toBe(rowCount);
    expect(rows).toBeGreaterThan(22_000);
    expect(rejects).toBe(Math.ceil((rowCount - 4) / POSTCODES.length));
    // The file is 100 MB; reading it whole would grow the process by at least that much (streaming
    // it grows the process by about 20 MB, whatever the file's size).
    const growthMB = (peak - rss0) / 1e6;
    expect(growthMB).toBeLessThan(60);
  });
});
