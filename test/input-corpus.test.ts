// The bad input corpus (test/fixtures/bad-inputs/, see its README): files that real tools produce,
// each read through openInput. Each is either read exactly (line numbers, values, normalised
// postcodes, rejects with reasons) or refused with an InputError naming the file, line and problem.
import { createReadStream, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { InputError, openInput, type InputOptions } from "../src/input/read-input.js";
import { storedRow, type StoredRow } from "../src/store/types.js";

const DIR = fileURLToPath(new URL("./fixtures/bad-inputs/", import.meta.url));
const fixture = (name: string) => join(DIR, name);

type Row = StoredRow;
interface Read {
  columns: string[];
  postcodeColumn: string;
  hasHeader: boolean;
  delimiter: string;
  warnings: string[];
  rows: Row[];
}

async function readStream(stream: Readable, options: InputOptions): Promise<Read> {
  const input = await openInput(stream, options);
  const rows: Row[] = [];
  for await (const r of input.rows) rows.push(storedRow(r));
  const { columns, postcodeColumn, hasHeader, delimiter } = input.header;
  return { columns, postcodeColumn, hasHeader, delimiter, warnings: input.warnings, rows };
}

function readFixture(name: string, column?: string): Promise<Read> {
  return readStream(createReadStream(fixture(name)), { source: fixture(name), column });
}

/** The same bytes delivered `size` bytes at a time: boundaries fall inside characters, CRLFs, quotes. */
function readInChunks(name: string, size: number, column?: string): Promise<Read> {
  const bytes = readFileSync(fixture(name));
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return readStream(Readable.from(chunks), { source: fixture(name), column });
}

async function refusal(reading: Promise<unknown>): Promise<string> {
  const err = await reading.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, "the file should have been refused").toBeInstanceOf(InputError);
  return (err as InputError).message;
}

const ok = (line: number, value: string, postcode: string, cells: string[]): Row => ({ line, value, postcode, reason: null, cells });
const rej = (line: number, value: string, reason: string, cells: string[]): Row => ({ line, value, postcode: null, reason, cells });
const INVALID = "not a valid UK postcode";

/** Files read correctly: what each must give, exactly. */
const READ: Record<string, { column?: string; expect: Partial<Read> & { rows: Row[] } }> = {
  "excel-utf8-bom.csv": {
    expect: {
      columns: ["Postcode", "Name", "Notes"], // no BOM stuck to the first name
      postcodeColumn: "Postcode",
      delimiter: ",",
      warnings: [],
      rows: [
        ok(2, "SW1A 1AA", "SW1A1AA", ["SW1A 1AA", "Downing St", ""]),
        ok(3, "EC1A 1BB", "EC1A1BB", ["EC1A 1BB", "Little Britain", "two, words"]),
        ok(4, "M1 1AE", "M11AE", ["M1 1AE", "Piccadilly", ""]),
      ],
    },
  },
  "crlf.csv": {
    expect: {
      columns: ["id", "postcode"],
      rows: [ok(2, "SW1A 1AA", "SW1A1AA", ["1", "SW1A 1AA"]), ok(3, "EC1A 1BB", "EC1A1BB", ["2", "EC1A 1BB"]), ok(4, "M1 1AE", "M11AE", ["3", "M1 1AE"])],
    },
  },
  "old-mac-cr.csv": {
    expect: { rows: [ok(2, "SW1A 1AA", "SW1A1AA", ["SW1A 1AA"]), ok(3, "EC1A 1BB", "EC1A1BB", ["EC1A 1BB"])] },
  },
  "semicolon-excel-de.csv": {
    expect: {
      columns: ["Kunde", "PLZ", "Postcode", "Betrag"],
      postcodeColumn: "Postcode",
      delimiter: ";",
      warnings: [`${fixture("semicolon-excel-de.csv")}: read as semicolon-separated (detected from line 1)`],
      rows: [
        ok(2, "SW1A 1AA", "SW1A1AA", ["1", "10115", "SW1A 1AA", "1,50"]),
        ok(3, "ec1a1bb", "EC1A1BB", ["2", "80331", "ec1a1bb", "12,00"]),
        rej(4, "NOT A POSTCODE", INVALID, ["3", "20095", "NOT A POSTCODE", "0,99"]),
      ],
    },
  },
  "excel-sep-line.csv": {
    expect: {
      columns: ["id", "postcode", "notes"],
      delimiter: ";",
      warnings: [`${fixture("excel-sep-line.csv")}: read as semicolon-separated (line 1 says "sep=;")`],
      rows: [ok(3, "SW1A 1AA", "SW1A1AA", ["1", "SW1A 1AA", "a,b"]), ok(4, "M1 1AE", "M11AE", ["2", "M1 1AE", "c"])],
    },
  },
  "leading-blank-lines-semicolon.csv": {
    expect: {
      delimiter: ";",
      warnings: [`${fixture("leading-blank-lines-semicolon.csv")}: read as semicolon-separated (detected from line 3)`],
      rows: [ok(4, "SW1A 1AA", "SW1A1AA", ["1", "SW1A 1AA", "a,b"]), ok(5, "ec1a 1bb", "EC1A1BB", ["2", "ec1a 1bb", "c"])],
    },
  },
  "spaced-quoted-header.csv": {
    expect: {
      columns: ["id", "Postcode", "notes"],
      postcodeColumn: "Postcode",
      rows: [ok(2, ' "SW1A 1AA" ', "SW1A1AA", ["1", ' "SW1A 1AA" ', "x"]), ok(3, "EC1A 1BB", "EC1A1BB", ["2", "EC1A 1BB", "y"])],
    },
  },
  "quoted-spaces.csv": {
    expect: {
      rows: [
        ok(2, "SW1A 1AA", "SW1A1AA", ["1", "SW1A 1AA"]),
        ok(3, "SW1A   1AA", "SW1A1AA", ["2", "SW1A   1AA"]),
        ok(4, " ec1a 1bb ", "EC1A1BB", ["3", " ec1a 1bb "]),
        // `, "M1 1AE"`: a space before the quote, so csv-parse keeps the quotes; the postcode is still read
        ok(5, ' "M1 1AE"', "M11AE", ["4", ' "M1 1AE"']),
        ok(6, '"B33 8TH" ', "B338TH", ["5", '"B33 8TH" ']),
        ok(7, "B 33 8TH", "B338TH", ["6", "B 33 8TH"]),
      ],
    },
  },
  "lower-case.csv": {
    expect: {
      rows: [
        ok(2, "sw1a 1aa", "SW1A1AA", ["sw1a 1aa"]),
        ok(3, "ec1a1bb", "EC1A1BB", ["ec1a1bb"]),
        ok(4, "m1 1ae", "M11AE", ["m1 1ae"]),
        ok(5, "Sw1A 1aA", "SW1A1AA", ["Sw1A 1aA"]),
      ],
    },
  },
  "tab-in-value.csv": {
    expect: {
      delimiter: ",",
      warnings: [],
      rows: [
        ok(2, "SW1A\t1AA", "SW1A1AA", ["1", "SW1A\t1AA"]),
        ok(3, "EC1A\t1BB", "EC1A1BB", ["2", "EC1A\t1BB"]),
        ok(4, "\tM1 1AE\t", "M11AE", ["3", "\tM1 1AE\t"]),
      ],
    },
  },
  "tab-separated.tsv": {
    expect: {
      delimiter: "\t",
      warnings: [`${fixture("tab-separated.tsv")}: read as tab-separated (detected from line 1)`],
      rows: [ok(2, "SW1A 1AA", "SW1A1AA", ["1", "SW1A 1AA", "smith, john"]), ok(3, "EC1A 1BB", "EC1A1BB", ["2", "EC1A 1BB", "quoted\tnote"])],
    },
  },
  "blank-lines.csv": {
    expect: {
      columns: ["id", "postcode"],
      rows: [ok(4, "SW1A 1AA", "SW1A1AA", ["1", "SW1A 1AA"]), ok(7, "EC1A 1BB", "EC1A1BB", ["2", "EC1A 1BB"]), ok(9, "M1 1AE", "M11AE", ["3", "M1 1AE"])],
    },
  },
  "empty-cells-rows.csv": {
    expect: {
      rows: [
        ok(2, "SW1A 1AA", "SW1A1AA", ["1", "SW1A 1AA", "x"]),
        ok(5, "EC1A 1BB", "EC1A1BB", ["2", "EC1A 1BB", "y"]),
        // a row with something in it but no postcode is a reject, not a blank row
        rej(7, "", "empty postcode", ["3", "", "only notes"]),
      ],
    },
  },
  "duplicate-other-header.csv": {
    expect: {
      columns: ["id", "postcode", "notes", "notes"],
      warnings: [`${fixture("duplicate-other-header.csv")}: line 1: columns 3 and 4 are both named "notes"; each is kept as read`],
      rows: [ok(2, "SW1A 1AA", "SW1A1AA", ["1", "SW1A 1AA", "first", "second"]), ok(3, "EC1A 1BB", "EC1A1BB", ["2", "EC1A 1BB", "third"])],
    },
  },
  "two-postcode-columns.csv": {
    column: "PCDS",
    expect: { postcodeColumn: "pcds", rows: [ok(2, "SW1A1AA", "SW1A1AA", ["1", "SW1A 1AA", "SW1A1AA"])] },
  },
  "ragged.csv": {
    expect: {
      warnings: [`${fixture("ragged.csv")}: line 4 has 5 cells but the header 3: a cell holding an unquoted "," shifts the cells after it, and the other columns are read as they are; quote such cells`],
      rows: [
        rej(2, "", "the row has 1 cell(s) and no postcode cell (column 2)", ["Short row"]),
        rej(3, " John", `${INVALID}; the row has 4 cells but the header 3, so a cell may hold an unquoted ","`, ["Smith", " John", "SW1A 1AA", "n"]),
        ok(4, "EC1A 1BB", "EC1A1BB", ["Ann", "EC1A 1BB", "n", "extra", "cells"]),
        ok(5, "M1 1AE", "M11AE", ["Bob", "M1 1AE"]),
        ok(6, "B33 8TH", "B338TH", ["Eve", "B33 8TH", "n"]),
      ],
    },
  },
  "embedded-newlines.csv": {
    expect: {
      rows: [
        ok(2, "SW1A 1AA", "SW1A1AA", ["1", "SW1A 1AA", "line one\nline two\nline three"]),
        ok(5, "EC1A 1BB", "EC1A1BB", ["2", "EC1A 1BB", "crlf one\r\ncrlf two"]),
        rej(7, "NOT VALID", INVALID, ["3", "NOT VALID", "plain"]),
        ok(8, "M1 1AE", "M11AE", ["4", "M1 1AE", 'quote " and\n, comma']),
        ok(10, "B33 8TH", "B338TH", ["5", "B33 8TH", "end"]),
      ],
    },
  },
  // Line breaks in an address, even beside a postcode, are cells as written: no line of them has a row's shape.
  "multiline-address.csv": {
    expect: {
      rows: [
        ok(2, "SW1A 2AA", "SW1A2AA", ["1", "SW1A 2AA", "10 Downing Street\r\nLondon SW1A 2AA"]),
        ok(4, "EC1A 1BB", "EC1A1BB", ["2", "EC1A 1BB", "Flat 2\nLittle Britain, London\nEC1A 1BB"]),
        ok(7, "M1 1AE", "M11AE", ["3", "M1 1AE", "Piccadilly\n3,M1 1AE"]),
      ],
    },
  },
  "nbsp.csv": {
    expect: {
      rows: [
        ok(2, "SW1A\u00a01AA", "SW1A1AA", ["1", "SW1A\u00a01AA"]),
        ok(3, "\u00a0EC1A 1BB\u00a0", "EC1A1BB", ["2", "\u00a0EC1A 1BB\u00a0"]),
        ok(4, "M1\u200b 1AE", "M11AE", ["3", "M1\u200b 1AE"]),
        ok(5, "B33\u202f8TH", "B338TH", ["4", "B33\u202f8TH"]),
      ],
    },
  },
  "postcode-list.txt": {
    expect: {
      columns: ["postcode"],
      hasHeader: false,
      rows: [
        ok(1, "SW1A 1AA", "SW1A1AA", ["SW1A 1AA"]),
        ok(2, "ec1a 1bb", "EC1A1BB", ["ec1a 1bb"]),
        rej(3, "not one", INVALID, ["not one"]),
        ok(4, "M1 1AE", "M11AE", ["M1 1AE"]),
      ],
    },
  },
};

/** Files refused: the exact message, after "<file>: ". */
const REFUSED: Record<string, { column?: string; message: string }> = {
  "empty.csv": { message: "line 1: the file is empty (no header and no rows)" },
  "only-blank-lines.csv": { message: "lines 1-3: the file holds only blank lines (no header and no rows)" },
  "header-only.csv": { message: 'line 1: there are no rows below the header ("id", "postcode", "notes")' },
  "header-then-blank.csv": { message: 'line 1: there are no rows below the header ("id", "postcode", "notes")' },
  "workbook.xlsx": {
    message: 'line 1: this is an Excel workbook (.xlsx/.ods) or another zip file, not a CSV; save it as "CSV UTF-8 (Comma delimited)" and try again',
  },
  "excel-unicode-text.txt": {
    message: 'line 1: the file is UTF-16 ("Unicode text"), not UTF-8; save it as "CSV UTF-8 (Comma delimited)" and try again',
  },
  "utf16le-no-bom.csv": {
    message: 'line 1: the file looks like UTF-16 (little-endian, no BOM), not UTF-8; save it as "CSV UTF-8 (Comma delimited)" and try again',
  },
  "windows-1252.csv": {
    message: 'line 3: not valid UTF-8 (byte 0xA3, "£" in Windows-1252); save it as "CSV UTF-8 (Comma delimited)" and try again',
  },
  "nul-later.csv": { message: "line 3: holds a NUL byte; this is a binary file, not a CSV" },
  "no-postcode-column.csv": { message: 'line 1: no postcode column found among "id", "address", "town"; name it with --column NAME' },
  "crlf.csv": { column: "post_code", message: 'line 1: no column named "post_code"; the columns are "id", "postcode"' },
  "headerless-data.csv": {
    message:
      'line 1: no postcode column found among "SW1A 1AA", "Downing St"; the first line looks like data, so add a header row and name it with --column',
  },
  "duplicate-postcode-header.csv": { message: 'line 1: the postcode column "postcode" appears 2 times (columns 1 and 3); rename all but one' },
  "duplicate-other-header.csv": { column: "Notes", message: 'line 1: the column "Notes" appears 2 times (columns 3 and 4); rename all but one' },
  "two-postcode-columns.csv": {
    message: 'line 1: several columns could hold the postcodes (columns 2 and 3: "Postcode", "pcds"); choose one with --column NAME',
  },
  // Every row a reject: the wrong column, not a run over nothing (issue 10.4).
  "wrong-column.csv": {
    column: "site_name",
    message:
      'lines 2-5: none of the 4 row(s) has a valid UK postcode in column "site_name" (column 2); it holds "Head office", "Depot"; name the postcode column with --column NAME',
  },
  // A quote closed rows later swallows the rows between: refused, never silently lost (issue 10.7).
  "no-valid-postcodes.txt": {
    message: 'lines 1-5: none of the 5 row(s) has a valid UK postcode in the file\'s only column; it holds "Head office", "Depot", "Warehouse 12", …',
  },
  "swallowed-rows.csv": {
    message:
      'lines 2-5: a quoted cell opens on line 2 and closes on line 5, and the lines it holds look like rows (line 3: "2,EC1A 1BB,ok"); a " is missing or extra: a " inside a cell is written "", and the cell itself quoted',
  },
  "swallowed-rows-semicolon.csv": {
    message:
      'lines 3-4: a quoted cell opens on line 3 and closes on line 4, and the lines it holds look like rows (line 4: "3;M1 1AE;ok"); a " is missing or extra: a " inside a cell is written "", and the cell itself quoted',
  },
  "unclosed-quote.csv": { message: 'line 3: a quoted field starts in this row and is never closed (a " without its closing ")' },
};

describe("bad input corpus: files read correctly", () => {
  for (const [name, { column, expect: want }] of Object.entries(READ)) {
    it(`${name}${column ? ` with --column ${column}` : ""}`, async () => {
      const got = await readFixture(name, column);
      expect(got).toMatchObject(want);
      expect(got.rows).toEqual(want.rows);
    });
  }
});

describe("bad input corpus: files refused with the file, the line and the problem", () => {
  for (const [name, { column, message }] of Object.entries(REFUSED)) {
    it(`${name}${column ? ` with --column ${column}` : ""}`, async () => {
      expect(await refusal(readFixture(name, column))).toBe(`${fixture(name)}: ${message}`);
    });
  }
});

describe("bad input corpus: chunk boundaries change nothing", () => {
  // A pipe or a slow disk delivers bytes in any pieces: inside a UTF-8 character, between CR and
  // LF, inside a quoted field. Every result must be the same as reading the file in one piece.
  for (const size of [1, 3, 7]) {
    it(`every fixture read ${size} byte(s) at a time`, async () => {
      for (const [name, { column, expect: want }] of Object.entries(READ)) expect((await readInChunks(name, size, column)).rows, name).toEqual(want.rows);
      for (const [name, { column, message }] of Object.entries(REFUSED))
        expect(await refusal(readInChunks(name, size, column)), name).toBe(`${fixture(name)}: ${message}`);
    });
  }
});

describe("rows longer than the header", () => {
  it("warn once, naming the first line and how many more, when a cell beyond the header holds something", async () => {
    const text = ["postcode,name,notes", "SW1A 2AA,Smith, John,vip", "EC1A 1BB,Ann,n,,", "M1 1AE,Lee, Bo,x", "B33 8TH,Eve,n"].join("\n");
    const read = await readStream(Readable.from([text]), { source: "list.csv" });
    expect(read.rows.map((r) => r.reason)).toEqual([null, null, null, null]);
    expect(read.warnings).toEqual([
      'list.csv: line 2 has 4 cells but the header 3 (and 1 more row): a cell holding an unquoted "," shifts the cells after it, and the other columns are read as they are; quote such cells',
    ]);
  });
});

describe("bad input corpus: coverage", () => {
  it("every fixture file has a test, and every test a file", () => {
    const files = readdirSync(DIR).filter((f) => f !== "README.md");
    expect(new Set([...Object.keys(READ), ...Object.keys(REFUSED)])).toEqual(new Set(files));
  });
});
