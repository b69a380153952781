// Workbook writers (issue 23): rows per second of the Mobile sheet's rows (postcode, UPRN, address,
// 32 ratings: 35 cells) written to an .xlsx, by exceljs's streaming WorkbookWriter the way the
// reports used it until issue 23 (styles per column, a bold header with notes, frozen, filtered,
// the 4 MiB wait on archiver's entry stream) and by the reports' own writer (src/report/xlsx,
// through src/report/xlsx/workbook-sheet.ts: the same layout, plus print set-up) at its deflate level and
// at fflate's default, 6.
// All read the same rows from the same SQLite database and write to a file; sizes are compared too.
import { createWriteStream, statSync } from "node:fs";
import { once } from "node:events";
import { join } from "node:path";
import { PassThrough, type Writable } from "node:stream";
import ExcelJS, { type Worksheet } from "exceljs";
import { DEFAULT_PROVIDERS, mobileFields } from "../../src/contract/fields.js";
import { openDatabase, type Db } from "../../src/store/sqlite/db.js";
import { COUNT, TEXT, writeSheet, type SheetColumn } from "../../src/report/xlsx/workbook-sheet.js";
import { XlsxWriter } from "../../src/report/xlsx/workbook-writer.js";
import { ZIP_LEVEL } from "../../src/report/xlsx/zip-stream.js";
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

const columns: SheetColumn[] = [
  { heading: "Postcode", width: 10, style: TEXT },
  { heading: "UPRN", width: 14, style: TEXT },
  { heading: "Address", width: 40, style: TEXT },
  ...mobileFields(DEFAULT_PROVIDERS).map((f) => ({ heading: f, note: `${f}: 0 to 4`, width: 8, style: COUNT })),
];

/** exceljs's sheet stream and the archiver entry streams it pipes into (readable-stream 2: _writableState). */
interface SheetStream {
  stream?: { pipes?: { _writableState?: { length?: number; needDrain?: boolean }; once(event: "drain", f: () => void): unknown }[] };
}

/** The reports' exceljs writer until issue 23 (src/report/xlsx/workbook-sheet.ts on main), its layout and its waits. */
async function withExceljs(db: Db, path: string): Promise<void> {
  const out = new PassThrough();
  const file = createWriteStream(path);
  out.pipe(file);
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet("Mobile", { views: [{ state: "frozen", ySplit: 1 }] });
  sheet.columns = columns.map((c) => ({ width: c.width, style: { numFmt: c.style?.numFmt ?? "General" } }));
  sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: columns.length } };
  const header = sheet.getRow(1);
  columns.forEach((c, i) => {
    const cell = header.getCell(i + 1);
    cell.value = c.heading;
    cell.font = { name: "Calibri", size: 11, bold: true };
    if (c.note) cell.note = c.note;
  });
  header.commit();
  let count = 0;
  for (const values of rows(db)) {
    sheet.addRow(values).commit();
    if (++count % 500 === 0) await drain(sheet, out);
  }
  sheet.commit();
  await workbook.commit();
  await once(file, "close");
}

async function drain(sheet: Worksheet, out: Writable): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  for (const entry of (sheet as unknown as SheetStream).stream?.pipes ?? [])
    if (entry._writableState?.needDrain && (entry._writableState.length ?? 0) > 4 * MB) await new Promise((resolve) => entry.once("drain", () => resolve(undefined)));
  if (out.writableNeedDrain) await once(out, "drain");
}

/** The reports' writer, at deflate `level`. */
const ours = (level: number) =>
  async function (db: Db, path: string): Promise<void> {
    const out = new PassThrough();
    const file = createWriteStream(path);
    out.pipe(file);
    const workbook = new XlsxWriter(out, { level });
    await writeSheet(workbook, { name: "Mobile", columns, rows: rows(db) });
    await workbook.finish();
    await once(file, "close");
  };

const WRITERS = { exceljs: withExceljs, ours: ours(ZIP_LEVEL), oursLevel6: ours(6) } as const;
type Writer = keyof typeof WRITERS;

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
        const names = Object.keys(WRITERS) as Writer[];
        const times = Object.fromEntries(names.map((w) => [w, [] as number[]])) as Record<Writer, number[]>;
        const sizes = Object.fromEntries(names.map((w) => [w, 0])) as Record<Writer, number>;
        for (let round_ = 0; round_ < 2; round_++)
          for (const name of round_ % 2 === 0 ? names : [...names].reverse()) {
            const path = join(scratch.dir, `${name}.xlsx`);
            const t = performance.now();
            await WRITERS[name](db, path);
            times[name].push((performance.now() - t) / 1000);
            sizes[name] = statSync(path).size;
          }
        const rate = (name: Writer) => Math.round(n / median(times[name]));
        ctx.log(`workbook-writers: ${names.map((w) => `${w} ${rate(w)} rows/s, ${round(sizes[w] / MB, 1)} MB`).join("; ")}`);
        const each = <T>(f: (w: Writer) => T) => Object.fromEntries(names.map((w) => [w, f(w)]));
        return {
          setup: `${thousands(n)} rows of the Mobile sheet (35 cells), from SQLite to an .xlsx file; 2 alternating rounds each, median`,
          checks: [],
          figures: {
            rows: n,
            zipLevel: ZIP_LEVEL,
            rowsPerSecond: each(rate),
            speedup: round(rate("ours") / rate("exceljs"), 1),
            seconds: each((w) => times[w].map((t) => round(t, 2))),
            megabytes: each((w) => round(sizes[w] / MB, 1)),
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
