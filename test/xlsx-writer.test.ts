// The streaming xlsx writer (src/report/xlsx): its parts on their own (escaping, column letters,
// sheet names), and whole workbooks written to real files and read back by exceljs (and by
// LibreOffice where it is installed): text that XML cannot hold as is, a refused oversized cell, a
// sheet of no rows, rows from sync, async and batched sources, the package's content types and
// relationships, and the wait for a slow output (a stream whose writes complete only when the test
// says, not a timer).
import { execFile } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { promisify } from "node:util";
import { deflateRaw as deflateRawCallback } from "node:zlib";
import { parse } from "csv-parse/sync";
import ExcelJS from "exceljs";
import { unzipSync, strFromU8 } from "fflate";
import { afterAll, describe, expect, it } from "vitest";
import { writeSheet, type SheetColumn } from "../src/report/xlsx/workbook-sheet.js";
import { columnLetter } from "../src/report/xlsx/column-letter.js";
import { sheetReference, xmlText } from "../src/report/xlsx/escape.js";
import { XlsxWriter, sheetNameProblem } from "../src/report/xlsx/workbook-writer.js";
import type { RowSource } from "../src/report/xlsx/row-source.js";
import { tempDir } from "./helpers/batch-harness.js";
import { requiresTool, TOOLS } from "./helpers/requires-tool.js";

const dir = tempDir("pcc-xlsx-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LIBREOFFICE = requiresTool(TOOLS.soffice);
const deflateRaw = promisify(deflateRawCallback);

const COLUMNS: SheetColumn[] = [
  { heading: "Text", note: "what was typed", width: 20, style: { numFmt: "@" } },
  { heading: "Number", width: 10, style: { numFmt: "#,##0" } },
];

/** Writes sheets of `rows` each to `name` in the test's folder; resolves with the path. */
async function workbook(name: string, sheets: { name: string; columns?: SheetColumn[]; rows: RowSource }[]): Promise<string> {
  const path = join(dir, name);
  const out = new PassThrough();
  const file = createWriteStream(path);
  out.pipe(file);
  const book = new XlsxWriter(out);
  for (const s of sheets) await writeSheet(book, { name: s.name, columns: s.columns ?? COLUMNS, rows: s.rows });
  await book.finish();
  await once(file, "close");
  return path;
}

async function read(path: string): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.readFile(path);
  return book;
}

/** The package's parts, by name, as text. */
function parts(path: string): Record<string, string> {
  return Object.fromEntries(Object.entries(unzipSync(readFileSync(path))).map(([name, bytes]) => [name, strFromU8(bytes)]));
}

describe("escaping", () => {
  it("escapes &<>\" (so ]]> too), writes control characters as _xHHHH_ and keeps a literal _xHHHH_ as it is", () => {
    expect(xmlText(`a & b < c > d "e" ]]> f`)).toBe("a &amp; b &lt; c &gt; d &quot;e&quot; ]]&gt; f");
    expect(xmlText("bell\u0007 tab\t line\n cr\r vt\u000B nul\u0000 us\u001F")).toBe("bell_x0007_ tab\t line\n cr\r vt_x000B_ nul_x0000_ us_x001F_");
    expect(xmlText("code _x0041_ stays")).toBe("code _x005F_x0041_ stays");
    expect(xmlText("not an escape: _x41_ _xZZZZ_")).toBe("not an escape: _x41_ _xZZZZ_");
    expect(xmlText("lone \uD800 high, lone \uDC00 low, pair 😀")).toBe("lone \uFFFD high, lone \uFFFD low, pair 😀");
    expect(xmlText("\uFFFE\uFFFF")).toBe("_xFFFE__xFFFF_");
  });

  it("returns plain text as it is", () => {
    const plain = "SW1A 1AA, 10 Downing Street — naïve café ß";
    expect(xmlText(plain)).toBe(plain);
  });

  it("quotes sheet names for formulas, doubling a quote inside", () => {
    expect(sheetReference("Your rows")).toBe("'Your rows'");
    expect(sheetReference("Bob's")).toBe("'Bob''s'");
  });
});

describe("column letters", () => {
  it("counts past Z and ZZ to the last column, XFD", () => {
    expect([1, 2, 26, 27, 28, 52, 53, 701, 702, 703, 704, 18_278, 16_384].map(columnLetter)).toEqual([
      "A",
      "B",
      "Z",
      "AA",
      "AB",
      "AZ",
      "BA",
      "ZY",
      "ZZ",
      "AAA",
      "AAB",
      "ZZZ",
      "XFD",
    ]);
  });
});

describe("sheet names", () => {
  it("refuses what Excel refuses, in one line naming the name", () => {
    expect(sheetNameProblem("Mobile", [])).toBeNull();
    expect(sheetNameProblem("", [])).toBe('sheet name "": 1 to 31 characters');
    expect(sheetNameProblem("x".repeat(32), [])).toMatch(/: 1 to 31 characters$/);
    expect(sheetNameProblem("a/b", [])).toBe('sheet name "a/b": none of []:*?/\\, no \' at either end');
    expect(sheetNameProblem("mobile", [{ name: "Mobile" }])).toBe('sheet name "mobile": used twice');
  });
});

describe("a workbook written and read back", () => {
  const tricky = [`a & b < c > d "e" ]]> f`, "bell\u0007 and vt\u000B", "code _x0041_ stays", "  spaces kept  ", "multi\nline"];

  it("holds text, numbers and empty cells as written, with the layout (frozen, filtered, bold header with notes, column formats)", async () => {
    const path = await workbook("values.xlsx", [{ name: "Bob's sheet", rows: [...tricky.map((t, i) => [t, i * 1000.5]), [null, 7], ["only text"]] }]);
    const book = await read(path);
    const sheet = book.getWorksheet("Bob's sheet")!;
    expect(sheet.getSheetValues().slice(1).map((r) => (r as unknown[]).slice(1))).toEqual([
      ["Text", "Number"],
      [tricky[0], 0],
      // exceljs reads _xHHHH_ as written, without decoding it; LibreOffice decodes it (below)
      ["bell_x0007_ and vt_x000B_", 1000.5],
      ["code _x005F_x0041_ stays", 2001],
      [tricky[3], 3001.5],
      [tricky[4], 4002],
      [undefined, 7],
      ["only text"],
    ]);
    expect(sheet.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
    expect(sheet.autoFilter).toBe("A1:B1");
    expect(sheet.getRow(1).getCell(1).font).toMatchObject({ bold: true, name: "Calibri", size: 11 });
    expect(String(sheet.getRow(1).getCell(1).note)).toBe("what was typed");
    expect([sheet.getColumn(1).numFmt, sheet.getColumn(2).numFmt]).toEqual(["@", "#,##0"]);
    expect(sheet.pageSetup).toMatchObject({ paperSize: 9, orientation: "portrait", fitToWidth: 1, fitToHeight: 0, printTitlesRow: "1:1" });
  });

  it.skipIf(LIBREOFFICE.skip)("opens in LibreOffice with the tricky text as it was typed", async () => {
    const path = await workbook("tricky.xlsx", [{ name: "Tricky", rows: tricky.map((t, i) => [t, i]) }]);
    const lo = join(dir, "lo");
    await promisify(execFile)(
      "soffice",
      ["--headless", "--norestore", `-env:UserInstallation=file://${join(dir, "lo-profile")}`, "--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1", "--outdir", lo, path],
      { timeout: 120_000 },
    );
    const rows = parse(readFileSync(join(lo, "tricky.csv")), { columns: true, bom: true }) as Record<string, string>[];
    expect(rows.map((r) => r.Text)).toEqual(tricky);
  }, 120_000);

  it("refuses a cell over 32,767 characters before writing any of its row, naming the sheet and the cell", async () => {
    const out = new PassThrough();
    out.resume();
    const book = new XlsxWriter(out);
    const sheet = book.addSheet({ name: "Long", columns: [{ width: 10 }, { width: 10 }] });
    sheet.addRow(["ok", "x".repeat(32_767)]);
    expect(() => sheet.addRow(["fine", "x".repeat(32_768)])).toThrow("sheet Long cell B2: 32,768 characters; a worksheet cell holds at most 32,767");
    expect(sheet.rowCount).toBe(1);
    sheet.addRow(["next"]);
    await book.finish();
  });

  it("writes a sheet of no rows (its header only) and one of neither rows nor columns", async () => {
    const path = join(dir, "empty.xlsx");
    const out = new PassThrough();
    const file = createWriteStream(path);
    out.pipe(file);
    const writer = new XlsxWriter(out);
    await writeSheet(writer, { name: "Header only", columns: COLUMNS, rows: [] });
    writer.addSheet({ name: "Nothing", columns: [] });
    await writer.endSheet();
    await writer.finish();
    await once(file, "close");
    const book = await read(path);
    expect(book.worksheets.map((w) => [w.name, w.rowCount])).toEqual([
      ["Header only", 1],
      ["Nothing", 0],
    ]);
    expect(book.getWorksheet("Header only")!.getRow(1).values).toEqual([undefined, "Text", "Number"]);
  });

  it("takes rows from a sync iterable, an async iterable or async batches alike, and closes a source left early", async () => {
    const rows = Array.from({ length: 1500 }, (_, i) => [`row ${i}`, i]);
    async function* one() {
      for (const r of rows) yield r;
    }
    async function* batched() {
      for (let i = 0; i < rows.length; i += 400) yield rows.slice(i, i + 400);
    }
    const sheetXml = async (name: string, source: RowSource) => parts(await workbook(name, [{ name: "Rows", rows: source }]))["xl/worksheets/sheet1.xml"];
    const sync = await sheetXml("sync.xlsx", rows);
    expect(sync).toContain('<row r="1501"><c r="A1501" s="1" t="inlineStr"><is><t>row 1499</t></is></c><c r="B1501" s="2"><v>1499</v></c></row></sheetData>');
    expect(await sheetXml("async.xlsx", one())).toBe(sync);
    expect(await sheetXml("batches.xlsx", batched())).toBe(sync);

    // a failure mid-sheet returns the source's iterator (a SQLite statement would be closed)
    let closed = false;
    function* failing() {
      try {
        yield ["fine", 1];
        yield ["x".repeat(40_000), 2];
        yield ["never", 3];
      } finally {
        closed = true;
      }
    }
    const out = new PassThrough();
    out.resume();
    await expect(writeSheet(new XlsxWriter(out), { name: "Failing", columns: COLUMNS, rows: failing() })).rejects.toThrow("sheet Failing cell A3: 40,000 characters");
    expect(closed).toBe(true);
  });

  it("declares every part's content type (comments, VML), and every relationship's target is in the package", async () => {
    const p = parts(await workbook("package.xlsx", [{ name: "First", rows: [["a", 1]] }, { name: "No notes", columns: [{ heading: "x", width: 5 }], rows: [] }]));
    const types = p["[Content_Types].xml"]!;
    const defaults = [...types.matchAll(/<Default Extension="([^"]+)"/g)].map((m) => m[1]);
    const overrides = [...types.matchAll(/<Override PartName="\/([^"]+)" ContentType="([^"]+)"/g)].map((m) => [m[1], m[2]]);
    for (const name of Object.keys(p)) if (name !== "[Content_Types].xml") expect([name, defaults.includes(name.split(".").pop()) || overrides.some(([o]) => o === name)]).toEqual([name, true]);
    expect(overrides).toEqual(
      expect.arrayContaining([
        ["xl/workbook.xml", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"],
        ["xl/styles.xml", "application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"],
        ["xl/worksheets/sheet1.xml", "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"],
        ["xl/comments1.xml", "application/vnd.openxmlformats-officedocument.spreadsheetml.comments+xml"],
      ]),
    );
    expect(types).toContain('<Default Extension="vml" ContentType="application/vnd.openxmlformats-officedocument.vmlDrawing"/>');
    // every relationship points at a part that exists, relative to its source part
    for (const [name, xml] of Object.entries(p).filter(([n]) => n.endsWith(".rels"))) {
      const base = name.replace(/_rels\/[^/]*\.rels$/, "");
      for (const [, target] of xml.matchAll(/Target="([^"]+)"/g)) {
        const resolved = join("/", base, target!).slice(1);
        expect([name, target, resolved in p]).toEqual([name, target, true]);
      }
    }
    expect(p["xl/worksheets/sheet1.xml"]).toContain('<legacyDrawing r:id="rId2"/>');
    expect(p["xl/worksheets/sheet2.xml"]).not.toContain("legacyDrawing");
    expect(Object.keys(p).filter((n) => /comments|vml|worksheets\/_rels/.test(n)).sort()).toEqual(["xl/comments1.xml", "xl/drawings/vmlDrawing1.vml", "xl/worksheets/_rels/sheet1.xml.rels"]);
  });
});

describe("a slow output", () => {
  it("holds the rows back while the output has no room, and writes them all once it has", async () => {
    // a file whose writes complete only when the test releases them
    const held: (() => void)[] = [];
    let wrote = () => {};
    const firstWrite = new Promise<void>((resolve) => (wrote = resolve));
    let received = 0;
    const chunks: Buffer[] = [];
    const sink = new Writable({
      highWaterMark: 16 * 1024,
      write(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        chunks.push(chunk);
        held.push(done);
        wrote();
      },
    });
    let taken = 0;
    function* rows() {
      for (let i = 0; i < 200_000; i++) {
        taken++;
        yield [`address ${i} with some words to make the row long enough`, i];
      }
    }
    const book = new XlsxWriter(sink);
    const writing = (async () => {
      await writeSheet(book, { name: "Rows", columns: COLUMNS, rows: rows() });
      await book.finish();
    })();
    // the writer deflates in zlib's thread pool: a turn lets a job there finish (a 1-byte deflate
    // queued behind the writer's) and then the event loop run, without a timer
    const turns = async (n: number) => {
      for (let i = 0; i < n; i++) {
        await deflateRaw(Buffer.alloc(1));
        for (let j = 0; j < 5; j++) await new Promise((resolve) => setImmediate(resolve));
      }
    };
    await firstWrite;
    await turns(50);
    // stuck on the first held write: a few chunks' rows taken, not the 200,000
    expect(held.length).toBe(1);
    const takenWhileHeld = taken;
    expect(takenWhileHeld).toBeGreaterThan(0);
    expect(takenWhileHeld).toBeLessThan(5_000);
    await turns(50);
    expect(taken).toBe(takenWhileHeld);
    // released a write at a time, it finishes
    let failed = false;
    writing.catch(() => (failed = true));
    while (!sink.writableFinished && !failed) {
      held.shift()?.();
      await turns(1);
    }
    await writing;
    expect(taken).toBe(200_000);
    expect(received).toBeGreaterThan(0);
    const sheet = strFromU8(unzipSync(Buffer.concat(chunks))["xl/worksheets/sheet1.xml"]!);
    expect(sheet).toContain('<row r="200001">');
  }, 60_000);
});
