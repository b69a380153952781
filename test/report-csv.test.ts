// The CSV layer of the reports: formula neutralisation, the two encoders agreeing byte for byte,
// atomic replacement when a write fails half way, and the spreadsheet row-limit warning.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { neutraliseFormula } from "../src/report/csv/neutralise.js";
import { stringify } from "csv-stringify/sync";
import { encodeNumber, encodeRecord, encodeText, stringifyOptions } from "../src/report/csv/csv-cells.js";
import { writeCsv, writeCsvLines } from "../src/report/csv/csv-file.js";
import { EXCEL_MAX_ROWS } from "../src/figures/definitions.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pcc-report-csv-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const TRICKY = [
  "plain",
  "",
  "Tŷ Gwyn, 5 Heol y Frenhines",
  'Flat "A"',
  "line\nbreak",
  "cr\rreturn",
  "=1+2",
  "+44 20 7946 0000",
  "-1 Ffordd Ŵy",
  "@SUM(A1)",
  "\tTabbed",
  "\rCR first",
  "＝fullwidth",
  "-5",
  "+3.25",
  "-1e3",
  "'already quoted",
  ' spaced "and, everything"\r\n',
];

describe("formula neutralisation", () => {
  it("prefixes text that would start a formula, and leaves plain numbers and other text alone", () => {
    expect(neutraliseFormula("=1+2")).toBe("'=1+2");
    expect(neutraliseFormula("+44 20 7946 0000")).toBe("'+44 20 7946 0000");
    expect(neutraliseFormula("-1 Ffordd Ŵy")).toBe("'-1 Ffordd Ŵy");
    expect(neutraliseFormula("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(neutraliseFormula("\tTabbed")).toBe("'\tTabbed");
    expect(neutraliseFormula("\rCR")).toBe("'\rCR");
    expect(neutraliseFormula("＝fullwidth")).toBe("'＝fullwidth");
    for (const untouched of ["-5", "+3.25", "-1e3", "-.5", "plain", "", "a=b", "10 Downing Street"])
      expect(neutraliseFormula(untouched)).toBe(untouched);
  });

  it("leaves a lone sign alone (a list's \"none\"), and still neutralises one with anything after it", () => {
    for (const lone of ["-", "+", "=", "@", "- ", "－"]) expect(neutraliseFormula(lone)).toBe(lone);
    for (const hostile of ["- =1+2", "-x", "= 1+2", "+cmd|' /C calc'!A0", "@ SUM(A1)", "-\tx", "\t", "－1+2x"]) expect(neutraliseFormula(hostile)).toBe(`'${hostile}`);
  });

  it("numbers are written as numbers: -1 is not neutralised", () => {
    expect(encodeNumber(-1)).toBe("-1");
    expect(encodeNumber(30.5)).toBe("30.5");
    expect(encodeNumber(null)).toBe("");
    expect(encodeText("-1")).toBe("-1");
  });
});

describe("the two CSV writers", () => {
  it("write the same bytes for the same rows (direct encoder = csv-stringify), which csv-parse reads back", async () => {
    const rows = TRICKY.map((text, i) => [text, i - 1, i % 3 === 0 ? null : i / 4]);
    const header = ["Text", "=Number", "Fraction"];
    const viaStringify = join(dir, "a.csv");
    const direct = join(dir, "b.csv");
    await writeCsv(viaStringify, header, rows, { bom: true });
    await writeCsvLines(
      direct,
      header,
      rows.map((r) => [encodeText(r[0] as string), encodeNumber(r[1] as number), encodeNumber(r[2] as number | null)].join(",")),
      { bom: true },
    );
    const a = readFileSync(viaStringify);
    expect(a.equals(readFileSync(direct))).toBe(true);
    expect([...a.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(a.toString("utf8")).toContain("\r\n");

    const back = parse(a, { bom: true }) as string[][];
    expect(back[0]).toEqual(["Text", "'=Number", "Fraction"]);
    expect(back.slice(1).map((r) => r[0])).toEqual(TRICKY.map(neutraliseFormula));
    expect(back.slice(1).map((r) => r[1])).toEqual(rows.map((r) => String(r[1])));
  });

  it("encode each record as csv-stringify does with the same options, whatever the cell types", () => {
    const records: unknown[][] = [
      ...TRICKY.map((t) => [t]),
      TRICKY,
      [""],
      [],
      [null],
      [undefined, null, ""],
      [true, false],
      [0, -1, 30.5, 1e21, -0.000001, 12345678901234567890n],
      [new Date(Date.UTC(2026, 0, 2)), { a: 1 }],
    ];
    for (const record of records) expect(encodeRecord(record) + "\r\n").toBe(stringify([record], stringifyOptions()));
  });

  it("without a BOM the file starts with the header", async () => {
    const path = join(dir, "n.csv");
    await writeCsv(path, ["A"], [["x"]], { bom: false });
    expect(readFileSync(path, "utf8")).toBe("A\r\nx\r\n");
  });
});

describe("atomic replacement", () => {
  function* failingAfter<T>(rows: T[], n: number): Generator<T> {
    for (const [i, r] of rows.entries()) {
      if (i === n) throw new Error("source broke");
      yield r;
    }
  }
  const many = Array.from({ length: 50_000 }, (_, i) => [`row ${i}`, i]);

  for (const [name, write] of [
    ["csv-stringify writer", (path: string, rows: Iterable<unknown[]>) => writeCsv(path, ["A", "B"], rows, { bom: true })],
    ["direct writer", (path: string, rows: Iterable<unknown[]>) => writeCsvLines(path, ["A", "B"], (function* () { for (const r of rows) yield r.join(","); })(), { bom: true })],
  ] as const) {
    it(`${name}: a source that throws half way leaves the previous file intact and no temporary file`, async () => {
      const path = join(dir, "report.csv");
      writeFileSync(path, "previous,complete\r\n");
      await expect(write(path, failingAfter(many, 30_000))).rejects.toThrow("source broke");
      expect(readFileSync(path, "utf8")).toBe("previous,complete\r\n");
      expect(readdirSync(dir)).toEqual(["report.csv"]);
      // and a write that completes replaces it
      expect(await write(path, many.slice(0, 2))).toBe(2);
      expect(readFileSync(path, "utf8")).toBe("\uFEFFA,B\r\nrow 0,0\r\nrow 1,1\r\n");
      expect(readdirSync(dir)).toEqual(["report.csv"]);
    });
  }
});

describe("spreadsheet row limit", () => {
  it("warns once a file has more rows than Excel opens, not before", async () => {
    const warnings: string[] = [];
    const lines = (n: number) => (function* () { for (let i = 0; i < n; i++) yield "x"; })();
    await writeCsvLines(join(dir, "fits.csv"), ["A"], lines(EXCEL_MAX_ROWS - 1), { bom: true, onWarning: (m) => warnings.push(m) });
    expect(warnings).toEqual([]);
    await writeCsvLines(join(dir, "big.csv"), ["A"], lines(EXCEL_MAX_ROWS), { bom: true, onWarning: (m) => warnings.push(m) });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^big\.csv has 1,048,576 rows: Excel opens only the first 1,048,575/);
  });
});
