// Writing one CSV report file: header, rows, optional BOM, CRLF, atomically (atomic-file.ts), with
// a warning when the file outgrows a spreadsheet.
import { basename } from "node:path";
import { stringify } from "csv-stringify/sync";
import { writeAtomically } from "./atomic-file.js";
import { encodeText, RECORD_DELIMITER, stringifyOptions, UTF8_BOM } from "./csv-cells.js";
import { EXCEL_MAX_ROWS } from "./definitions.js";
import { inBatches, type Rows } from "./row-batches.js";

export interface CsvFileOptions {
  /** write a UTF-8 byte order mark first (Excel reads UTF-8 only then) */
  bom: boolean;
  onWarning?: ((message: string) => void) | undefined;
}

/** Rows of cells (text, numbers, null for empty) encoded by csv-stringify, a batch at a time. Returns the row count. */
export async function writeCsv(path: string, header: readonly string[], rows: Rows<readonly unknown[]>, options: CsvFileOptions): Promise<number> {
  let count = 0;
  const encode = (records: readonly (readonly unknown[])[]) => stringify(records as unknown[][], stringifyOptions());
  async function* chunks(): AsyncGenerator<string> {
    yield (options.bom ? UTF8_BOM : "") + encode([header]);
    for await (const batch of inBatches(rows)) {
      count += batch.length;
      yield encode(batch);
    }
  }
  await writeAtomically(path, chunks());
  warnIfTooLong(path, count, options);
  return count;
}

const CHUNK_CHARS = 64 * 1024;

/**
 * Rows already encoded as CSV lines (without line ends), written in 64 KiB chunks: the path for
 * files of millions of rows. Returns the row count.
 */
export async function writeCsvLines(
  path: string,
  header: readonly string[],
  lines: Rows<string>,
  options: CsvFileOptions,
): Promise<number> {
  let count = 0;
  async function* chunks(): AsyncGenerator<string> {
    let chunk = (options.bom ? UTF8_BOM : "") + header.map(encodeText).join(",") + RECORD_DELIMITER;
    for await (const batch of inBatches(lines))
      for (const line of batch) {
        count++;
        chunk += line + RECORD_DELIMITER;
        if (chunk.length >= CHUNK_CHARS) {
          yield chunk;
          chunk = "";
        }
      }
    if (chunk.length > 0) yield chunk;
  }
  await writeAtomically(path, chunks());
  warnIfTooLong(path, count, options);
  return count;
}

function warnIfTooLong(path: string, rows: number, options: CsvFileOptions): void {
  if (rows + 1 > EXCEL_MAX_ROWS)
    options.onWarning?.(
      `${basename(path)} has ${rows.toLocaleString("en-GB")} rows: Excel opens only the first ` +
        `${(EXCEL_MAX_ROWS - 1).toLocaleString("en-GB")} (load it with Power Query, a database or a script instead)`,
    );
}
