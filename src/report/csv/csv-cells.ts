// The CSV rules every report file follows (RFC 4180, CRLF), in two forms: options for
// csv-stringify, and a direct encoder for the per-address files. Those files reach millions of
// rows, where csv-stringify's per-record stream and per-field checks cost several times the
// sqlite3 shell's own export (measured: docs/measurements.md); test/report-csv.test.ts checks that both
// forms write the same bytes.
import type { Options as StringifyOptions } from "csv-stringify";
import { stringify } from "csv-stringify/sync";
import { neutraliseFormula } from "./neutralise.js";

export const RECORD_DELIMITER = "\r\n";
export const UTF8_BOM = "\uFEFF";

const NEEDS_QUOTES = /[",\r\n]/;

/** One text cell: formula-looking text neutralised, then quoted when it holds `"`, `,` or a line break. */
export function encodeText(text: string): string {
  const value = neutraliseFormula(text);
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** A number as the API gave it (-1 stays -1, 30.5 stays 30.5); empty when absent. */
export function encodeNumber(value: number | bigint | null | undefined): string {
  return value === null || value === undefined ? "" : String(value);
}

/**
 * One record as a CSV line (without its line end), by the rules above: text through encodeText,
 * numbers as they are, booleans yes/no, null and undefined empty. Anything else (no report writes
 * one) goes through csv-stringify, so the line is always what csv-stringify writes.
 */
export function encodeRecord(record: readonly unknown[]): string {
  let line = "";
  for (let i = 0; i < record.length; i++) {
    const value = record[i];
    const cell =
      typeof value === "string"
        ? encodeText(value)
        : typeof value === "number" || typeof value === "bigint"
          ? String(value)
          : value === null || value === undefined
            ? ""
            : typeof value === "boolean"
              ? value
                ? "yes"
                : "no"
              : stringify([[value]], { ...stringifyOptions(), record_delimiter: "" });
    line += i === 0 ? cell : "," + cell;
  }
  return line;
}

/** csv-stringify options with the same rules: text through neutraliseFormula, numbers as they are. */
export function stringifyOptions(): StringifyOptions {
  return {
    record_delimiter: "windows",
    // With a record_delimiter given, csv-stringify stops quoting a lone \n or \r unless told to.
    quote_record_delimiter: true,
    cast: {
      string: (value) => neutraliseFormula(value),
      number: (value) => String(value),
      bigint: (value) => String(value),
      boolean: (value) => (value ? "yes" : "no"),
    },
  };
}
