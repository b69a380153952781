// The plain split of an open data block gives exactly csv-parse's records, or declines: compared on
// a table of cases and on thousands of generated blocks, built from what trips a CSV reader up
// (spaces and tabs at a field's ends, a no-break space, CRLF and LF and bare CR, blank lines,
// quotes, a last line with no ending).
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { rngFor } from "../src/simulator/hash.js";
import { OPEN_DATA_CSV_OPTIONS, parseOpenDataBlock, splitPlainCsv } from "../src/input/plain-csv.js";

const csvParse = (block: string) => parse(block, OPEN_DATA_CSV_OPTIONS) as string[][];

describe("splitPlainCsv", () => {
  it.each([
    ["postcode,a,b\nAB10AA,1.0,2\n", [["postcode", "a", "b"], ["AB10AA", "1.0", "2"]]],
    ["x,y\r\n1,2\r\n", [["x", "y"], ["1", "2"]]],
    ["x,y\n\n\n1,2", [["x", "y"], ["1", "2"]]],
    ["  x , y\t\n \t \n1,,2", [["x", "y"], ["1", "", "2"]]],
    ["a,\u00a0b\u00a0\n", [["a", "\u00a0b"]]],
    ["a\n\u00a0\n", [["a"], [""]]],
  ])("%j", (block, records) => {
    expect(splitPlainCsv(block)).toEqual(records);
    expect(csvParse(block)).toEqual(records);
  });

  it.each([['a,"b,c"\n'], ["a\rb\r"], ["a\r\nb\nc\r\n"], ["a\nb\r"]])("leaves %j to csv-parse", (block) => {
    expect(splitPlainCsv(block)).toBeNull();
  });

  it("gives csv-parse's records for generated blocks, and takes most of them", () => {
    const rng = rngFor("plain-csv");
    const pieces = ["AB1", "0AA", "12.5", "-", ",", ",", ",", " ", "  ", "\t", "\f", "\u00a0", "\u2003", "\ufeff", "\n", "\n", "\r\n", "\r", '"', "x"];
    let plain = 0;
    for (let n = 0; n < 4000; n++) {
      const length = 1 + rng.int(0, 29);
      let block = "";
      for (let i = 0; i < length; i++) block += rng.pick(pieces);
      // most cases without the characters that send a block to csv-parse, so the plain split is exercised
      if (rng.chance(0.7)) block = block.replace(/["\r]/g, "");
      const split = splitPlainCsv(block);
      if (split === null) continue;
      plain++;
      expect({ block, records: split }).toEqual({ block, records: csvParse(block) });
    }
    expect(plain).toBeGreaterThan(2000);
  });

  it("parseOpenDataBlock reads a quoted block with csv-parse, and refuses an unclosed quote", () => {
    expect(parseOpenDataBlock('a,"b, c"\n1,2\n')).toEqual([["a", "b, c"], ["1", "2"]]);
    expect(() => parseOpenDataBlock('a,"b\n1,2\n')).toThrow(/Quote Not Closed/i);
  });
});
