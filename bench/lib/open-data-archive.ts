// A synthetic whole-UK release of Ofcom's postcode files for the open-data scenario: 121 area
// files, 1,741,096 postcodes as in January 2026, in the July 2025 layout (a zip in a zip, the CSVs
// in a folder, BOM, CRLF, the 2026 header); and the same for any postcodes (the national scenario's).
// Streamed with fflate's Zip: nothing is held whole.
import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { strToU8, Zip, ZipDeflate, ZipPassThrough } from "fflate";
import { PUBLISHED_HEADER_2026 } from "../../src/contract/open-data.js";

export const UK_POSTCODES = 1_741_096;
export const UK_AREAS = 121;

/** 121 area codes: A-Z, then two letters. */
export function ukAreaCodes(n: number): string[] {
  const out: string[] = [];
  const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  for (const a of letters) out.push(a);
  for (const a of letters) for (const b of letters) if (out.length < n) out.push(a + b);
  return out.slice(0, n);
}

/** A row's figures: bands summing to 100, availability consistent with them. */
function row(i: number, compact: string, area: string): string {
  const shape = i % 5;
  const bands = shape === 0 ? [0, 0, 0, 0, 0, 100] : shape === 1 ? [0, 0, 0, 0, 100, 0] : shape === 2 ? [0, 0, 5.5, 4.5, 60, 30] : shape === 3 ? [2, 3, 5, 10, 50, 30] : [0, 0, 0, 12.5, 37.5, 50];
  const [b0, b2, b5, b10, b30, b300] = bands as [number, number, number, number, number, number];
  const sf = b30 + b300;
  const f = (x: number) => x.toFixed(1);
  const display = `${compact.slice(0, -3)} ${compact.slice(-3)}`;
  return [compact, display, area, f(b30), f(b300), f(b0), f(b2), f(b5), f(b10), f(sf), f(b300), f(b300), f(0), f(b0), f(b0 + b2), f(100 - sf), f(b300 / 2), f(b0 + b2 + b5), f(sf), f(0)].join(",");
}

/** Writes the archive into `dir`; returns its path. */
export function writeUkArchive(dir: string, postcodes = UK_POSTCODES, areaCount = UK_AREAS): string {
  return writeOpenDataArchive(dir, syntheticAreas(postcodes, areaCount));
}

/** The open-data scenario's postcodes per area: district 1-99, sector 0-9, unit two letters of 20 (19,800 per area at most). */
function* syntheticAreas(postcodes: number, areaCount: number): Generator<[string, Generator<string>]> {
  const units = "ABDEFGHJLNPQRSTUWXYZ";
  const codes = ukAreaCodes(areaCount);
  for (const [a, area] of codes.entries()) {
    const count = Math.floor(postcodes / areaCount) + (a < postcodes % areaCount ? 1 : 0);
    yield [
      area,
      (function* () {
        for (let i = 0; i < count; i++) {
          const unit = i % 400;
          const sector = Math.floor(i / 400) % 10;
          const district = 1 + Math.floor(i / 4000);
          yield `${area}${district}${sector}${units[Math.floor(unit / 20)]}${units[unit % 20]}`;
        }
      })(),
    ];
  }
}

/** Writes Ofcom's postcode files for the given postcodes (compact, per area: a file each) into `dir`; returns the archive's path. */
export function writeOpenDataArchive(dir: string, areas: Iterable<[string, Iterable<string>]>): string {
  const month = "202601";
  const path = join(dir, `${month}_fixed_broadband_coverage_r01.zip`);
  const fd = openSync(path, "w");
  try {
    const outer = new Zip((err, data) => {
      if (err) throw err;
      writeSync(fd, data);
    });
    const innerEntry = new ZipPassThrough(`${month}_fixed_coverage_r01/${month}_fixed_pc_coverage_r01.zip`);
    outer.add(innerEntry);
    const inner = new Zip((err, data, final) => {
      if (err) throw err;
      innerEntry.push(data, final);
    });
    let written = 0;
    for (const [area, postcodes] of areas) {
      const file = new ZipDeflate(`postcode_files/${month}_fixed_pc_coverage_r01_${area}.csv`, { level: 6 });
      inner.add(file);
      let lines = ["\uFEFF" + PUBLISHED_HEADER_2026.join(",")];
      for (const compact of postcodes) {
        lines.push(row(written++, compact, area));
        if (lines.length === 2000) {
          file.push(strToU8(lines.join("\r\n") + "\r\n"));
          lines = [];
        }
      }
      file.push(strToU8(lines.length > 0 ? lines.join("\r\n") + "\r\n" : ""), true);
    }
    inner.end();
    outer.end();
  } finally {
    closeSync(fd);
  }
  return path;
}
