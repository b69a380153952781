// Workbook writers (issue 23): rows per second of the Mobile sheet's rows (postcode, UPRN, address,
// 32 ratings: 35 cells) written to an .xlsx by the writer the reports use (exceljs's streaming
// WorkbookWriter through src/report/workbook-sheet.ts: styles per column, the 4 MiB wait) and by
// the alternative measured against it: the sheet's XML written by hand through a streaming zip
// (archiver, which exceljs itself uses), with inline strings and no styles, notes or print set-up.
// Both read the same rows from the same SQLite database and write to a file.
import { createWriteStream, statSync } from "node:fs";
import { once } from "node:events";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import ExcelJS from "exceljs";
import { DEFAULT_PROVIDERS, mobileFields } from "../../src/spec/fields.js";
import { openDatabase, type Db } from "../../src/store/sqlite/db.js";
import { columnLetter, COUNT, TEXT, writeSheet, type SheetColumn } from "../../src/report/workbook-sheet.js";
import { buildMobileDb } from "../lib/mobile-db.js";
import { scratchDir } from "../lib/paths.js";
import type { BenchContext, Scenario } from "../lib/scenario.js";
import { median, round, scaled, thousands } from "../lib/stats.js";

const MB = 2 ** 20;

function rows(db: Db): Iterable<unknown[]> {
  return db
    .prepare(`SELECT postcode, CAST(uprn AS TEXT), address, ${mobileFields(DEFAULT_PROVIDERS).join(", ")} FROM mobile_addresses ORDER BY postcode, uprn`)
    .raw(true)
    .iterate() as Iterable<unknown[]>;
}

async function withExceljs(db: Db, path: string): Promise<void> {
  const out = new PassThrough();
  const file = createWriteStream(path);
  out.pipe(file);
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const columns: SheetColumn[] = [
    { heading: "Postcode", width: 10, style: TEXT },
    { heading: "UPRN", width: 14, style: TEXT },
    { heading: "Address", width: 40, style: TEXT },
    ...mobileFields(DEFAULT_PROVIDERS).map((f) => ({ heading: f, width: 8, style: COUNT })),
  ];
  await writeSheet(workbook, out, { name: "Mobile", columns, rows: rows(db) });
  await workbook.commit();
  await once(file, "close");
}

const escapeXml = (s: string) => s.replace(/[&<>"]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&quot;"));

/** The smallest valid workbook: one sheet of inline strings and numbers, its XML streamed into the zip. */
async function byHand(db: Db, path: string): Promise<void> {
  // archiver comes with exceljs and has no types of its own here: imported by name at run time
  const archiver = ((await import("archiver" as string)) as { default: (format: string, o: object) => NodeJS.ReadWriteStream & { append(s: unknown, o: object): void; finalize(): Promise<void> } }).default;
  const zip = archiver("zip", { zlib: { level: 6 } });
  const file = createWriteStream(path);
  zip.pipe(file);
  const main = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
  const rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
  zip.append(
    `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
    { name: "[Content_Types].xml" },
  );
  zip.append(`<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>`, { name: "_rels/.rels" });
  zip.append(`<?xml version="1.0" encoding="UTF-8"?><workbook ${main} xmlns:r="${rel}"><sheets><sheet name="Mobile" sheetId="1" r:id="rId1"/></sheets></workbook>`, { name: "xl/workbook.xml" });
  zip.append(`<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`, { name: "xl/_rels/workbook.xml.rels" });
  const sheet = new PassThrough();
  zip.append(sheet, { name: "xl/worksheets/sheet1.xml" });
  const closed = once(file, "close");
  const finalized = zip.finalize();
  sheet.write(`<?xml version="1.0" encoding="UTF-8"?><worksheet ${main}><sheetData>`);
  let letters: string[] = [];
  let r = 0;
  let chunk = "";
  for (const values of rows(db)) {
    if (letters.length === 0) letters = values.map((_, i) => columnLetter(i + 1));
    r++;
    chunk += `<row r="${r}">`;
    for (let c = 0; c < values.length; c++) {
      const v = values[c];
      if (typeof v === "number") chunk += `<c r="${letters[c]}${r}"><v>${v}</v></c>`;
      else if (v !== null) chunk += `<c r="${letters[c]}${r}" t="inlineStr"><is><t>${escapeXml(String(v))}</t></is></c>`;
    }
    chunk += "</row>";
    if (chunk.length > 64 * 1024) {
      if (!sheet.write(chunk)) await once(sheet, "drain");
      chunk = "";
    }
  }
  sheet.end(`${chunk}</sheetData></worksheet>`);
  await finalized;
  await closed;
}

export const workbookWriters: Scenario = {
  name: "workbook-writers",
  async run(ctx: BenchContext) {
    const n = scaled(100_000, ctx.quick, 0.2);
    const scratch = scratchDir("workbook-writers");
    try {
      const dbPath = join(scratch.dir, "mobile.sqlite");
      ctx.log(`workbook-writers: building a database of ${thousands(n)} mobile addresses`);
      buildMobileDb(dbPath, n);
      const db = openDatabase(dbPath);
      try {
        const times = { exceljs: [] as number[], byHand: [] as number[] };
        const sizes = { exceljs: 0, byHand: 0 };
        for (let round_ = 0; round_ < 2; round_++)
          for (const [name, write] of (round_ % 2 === 0 ? [["exceljs", withExceljs], ["byHand", byHand]] : [["byHand", byHand], ["exceljs", withExceljs]]) as [keyof typeof times, typeof byHand][]) {
            const path = join(scratch.dir, `${name}.xlsx`);
            const t = performance.now();
            await write(db, path);
            times[name].push((performance.now() - t) / 1000);
            sizes[name] = statSync(path).size;
          }
        const rate = (name: keyof typeof times) => n / median(times[name]);
        ctx.log(`workbook-writers: exceljs ${Math.round(rate("exceljs"))} rows/s, by hand ${Math.round(rate("byHand"))} rows/s`);
        return {
          setup: `${thousands(n)} rows of the Mobile sheet (35 cells), from SQLite to an .xlsx file; 2 alternating rounds each, median`,
          checks: [],
          figures: {
            rows: n,
            rowsPerSecond: { exceljs: Math.round(rate("exceljs")), byHand: Math.round(rate("byHand")) },
            seconds: { exceljs: times.exceljs.map((t) => round(t, 2)), byHand: times.byHand.map((t) => round(t, 2)) },
            megabytes: { exceljs: round(sizes.exceljs / MB, 1), byHand: round(sizes.byHand / MB, 1) },
            byHandLacks: "styles (number formats, bold header), notes, frozen header, autofilter, conditional colours, print set-up",
          },
          notes: [],
        };
      } finally {
        db.close();
      }
    } finally {
      scratch.remove();
    }
  },
};
