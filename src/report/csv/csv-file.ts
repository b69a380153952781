// Writing one CSV report file: header, rows, optional BOM, CRLF, atomically (atomic-file.ts), with
// a warning when the file outgrows a spreadsheet.
import { once } from "node:events";
import { basename } from "node:path";
import { PassThrough } from "node:stream";
import { writeAtomically } from "../set/atomic-file.js";
import { encodeRecord, encodeText, RECORD_DELIMITER, UTF8_BOM } from "./csv-cells.js";
import { EXCEL_MAX_ROWS } from "../../figures/definitions.js";
import { inBatches, mapRows, type Rows } from "../set/row-batches.js";

export interface CsvFileOptions {
  /** write a UTF-8 byte order mark first (Excel reads UTF-8 only then) */
  bom: boolean;
  onWarning?: ((message: string) => void) | undefined;
}

/** Rows of cells (text, numbers, null for empty), each encoded as csv-stringify would (encodeRecord). Returns the row count. */
export function writeCsv(path: string, header: readonly string[], rows: Rows<readonly unknown[]>, options: CsvFileOptions): Promise<number> {
  // encoded directly: csv-stringify's per-record stream and per-field checks cost several times more
  return writeCsvLines(path, header, mapRows(rows, encodeRecord), options);
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
  const file = new CsvLineFile(path, header, options);
  try {
    for await (const batch of inBatches(lines)) {
      for (const line of batch) file.add(line);
      await file.ready();
    }
  } catch (err) {
    await file.abort(err);
    throw err;
  }
  return file.finish();
}

/**
 * One CSV file fed line by line (lines without line ends) and written atomically, so that one pass
 * over rows can feed several files (address-files.ts). Lines go out in 64 KiB chunks; the feeder
 * awaits ready() after each batch, so a slow disk holds back the pass instead of filling memory.
 */
export class CsvLineFile {
  /** the BOM and header, until the first chunk goes out */
  private head: string;
  private lines: string[] = [];
  private chars = 0;
  private count = 0;
  private failure: unknown = null;
  private readonly out = new PassThrough();
  private readonly written: Promise<void>;

  constructor(
    private readonly path: string,
    header: readonly string[],
    private readonly options: CsvFileOptions,
  ) {
    this.head = (options.bom ? UTF8_BOM : "") + header.map(encodeText).join(",") + RECORD_DELIMITER;
    this.written = writeAtomically(path, this.out);
    // kept for ready() and finish(); never an unhandled rejection
    this.written.catch((err: unknown) => {
      this.failure = err ?? new Error("write failed");
    });
  }

  add(line: string): void {
    this.count++;
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= CHUNK_CHARS) this.flush();
  }

  // A chunk's lines joined once: appended one by one they make a deep rope of small strings, which
  // costs more to flatten when the chunk is encoded (a profile of the address files showed it).
  private flush(): void {
    this.lines.push("");
    this.out.write(this.head + this.lines.join(RECORD_DELIMITER));
    this.head = "";
    this.lines = [];
    this.chars = 0;
  }

  /** Resolves once the file has taken what it was given (throws if its write failed). */
  async ready(): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.out.writableNeedDrain) await Promise.race([once(this.out, "drain"), this.written]);
  }

  /** Writes the rest and puts the file in place; returns its row count. */
  async finish(): Promise<number> {
    if (this.lines.length > 0 || this.head !== "") this.flush();
    this.out.end();
    await this.written;
    warnIfTooLong(this.path, this.count, this.options);
    return this.count;
  }

  /** Gives up: no file, no temporary file left behind. */
  async abort(err: unknown): Promise<void> {
    this.out.destroy(err instanceof Error ? err : new Error(String(err)));
    await this.written.catch(() => {});
  }
}

function warnIfTooLong(path: string, rows: number, options: CsvFileOptions): void {
  if (rows + 1 > EXCEL_MAX_ROWS)
    options.onWarning?.(
      `${basename(path)} has ${rows.toLocaleString("en-GB")} rows: Excel opens only the first ` +
        `${(EXCEL_MAX_ROWS - 1).toLocaleString("en-GB")} (load it with Power Query, a database or a script instead)`,
    );
}
