// Ofcom's open postcode files as published (docs/open-data.md): the zip as downloaded, zips inside
// zips, a folder, or one CSV. Everything is streamed: each chunk of a CSV (from the file, or
// inflated from its zip entry by yauzl) goes through the UTF-8 decoder and the CSV parser, and its
// rows reach `onRow` before the next chunk is read, so memory stays bounded by a chunk whatever
// the size of the release. Blocks with no quotes are split plainly (plain-csv.ts), the rest by csv-parse.
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import yauzl from "yauzl";
import {
  headerKey,
  OPEN_DATA_FIELDS,
  parsePostcodeFileName,
  POSTCODE_HEADERS,
  type PostcodeFileName,
  type Premises,
} from "../contract/open-data.js";
import { compactPostcode, normalisePostcode } from "../contract/postcode.js";
import { UserError } from "../errors.js";
import { parseOpenDataBlock } from "./plain-csv.js";
import { MAX_ROW_BYTES } from "./read-input.js";

export class OpenDataError extends UserError {}

/** The import was stopped (a signal): nothing of it is kept. */
export class OpenDataStopped extends Error {}

/**
 * Every entry of every zip, nested zips included, inflates to at most `maxBytes`, and to at most
 * `maxRatio` times its packed size (a zip bomb): judged by the zip's directory before a byte is
 * read, then by the bytes as they come. A postcode CSV packs about ten times; an inner zip hardly.
 */
export interface ZipLimits {
  maxBytes: number;
  maxRatio: number;
}
export const ZIP_LIMITS: ZipLimits = { maxBytes: 1024 * 1024 * 1024, maxRatio: 100 };

/** One postcode of one file: its figures in OPEN_DATA_FIELDS order (null: no data). */
export type OpenDataRowHandler = (premises: Premises, postcode: string, values: (number | null)[]) => void;

export interface OpenDataRead {
  month: string;
  revision: number;
  /** postcode files read */
  files: number;
  /** rows whose postcode is not a valid UK postcode: skipped, with the first for the log */
  badPostcodes: { count: number; first: string | null };
}

const CHUNK = 256 * 1024;

/**
 * What identifies the source without reading it: the names, sizes and modification times of its
 * files. The same archive again has the same fingerprint, and is not re-read.
 */
export function sourceFingerprint(path: string): string {
  const hash = createHash("sha256");
  for (const file of sourceFiles(path)) {
    const st = statSync(file);
    hash.update(`${relative(path, file) || basename(file)}\u001f${st.size}\u001f${Math.round(st.mtimeMs)}\u001e`);
  }
  return hash.digest("hex");
}

/** The zip and CSV files to read: the path itself, or every one below a folder, in name order. */
function sourceFiles(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new OpenDataError(`--open-data ${path}: no such file or folder`);
  }
  if (!st.isDirectory()) return [path];
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.(zip|csv)$/i.test(name)) out.push(full);
    }
  };
  walk(path);
  return out;
}

/** Reads every postcode file of one release at `path`, handing each row to `onRow`. */
export async function readOpenData(path: string, onRow: OpenDataRowHandler, signal?: AbortSignal, limits: ZipLimits = ZIP_LIMITS): Promise<OpenDataRead> {
  const release: { month: string | null; revision: number; files: number } = { month: null, revision: 0, files: 0 };
  const badPostcodes: OpenDataRead["badPostcodes"] = { count: 0, first: null };
  const opened = (name: string, file: PostcodeFileName) => {
    if (release.month !== null && release.month !== file.month)
      throw new OpenDataError(`--open-data ${path} holds files of two releases, ${release.month} and ${file.month} (${name}): give one release at a time`);
    release.month = file.month;
    release.revision = Math.max(release.revision, file.revision);
    release.files++;
    return new CsvSink(name, file.premises, onRow, badPostcodes, signal);
  };
  for (const file of sourceFiles(path)) {
    if (/\.zip$/i.test(file)) {
      await readZip(file, file, opened, { limits, ...(signal ? { signal } : {}) });
    } else {
      const name = parsePostcodeFileName(file);
      if (!name) {
        // a folder may hold other files; a CSV named on its own must be one of them
        if (file !== path) continue;
        throw new OpenDataError(`--open-data ${path}: not one of Ofcom's postcode files (names like 202601_fixed_pc_coverage_r2_CR.csv)`);
      }
      const sink = opened(basename(file), name);
      for await (const chunk of createReadStream(file, { highWaterMark: CHUNK })) sink.push(chunk as Buffer, false);
      sink.push(new Uint8Array(0), true);
    }
  }
  if (release.month === null)
    throw new OpenDataError(`--open-data ${path} holds no Ofcom postcode file (names like 202601_fixed_pc_coverage_r2_CR.csv)`);
  return { month: release.month, revision: release.revision, files: release.files, badPostcodes };
}

interface Sink {
  push(chunk: Uint8Array, final: boolean): void;
}

type Opened = (name: string, file: PostcodeFileName) => Sink;

/**
 * A zip on disk, read through its central directory (yauzl), so entry sizes are always known
 * (a streamed zip's data descriptors included). Each postcode CSV streams to its sink; an inner zip
 * is copied to a temporary file and read the same way.
 */
async function readZip(file: string, where: string, opened: Opened, options: { limits: ZipLimits; signal?: AbortSignal }): Promise<void> {
  const { limits, signal } = options;
  // What the zip itself fails with is said as such; a CSV's own problem (or the store's) passes as it is.
  const unzipping = <T>(step: Promise<T>): Promise<T> =>
    step.catch((err: unknown) => {
      if (signal?.aborted) throw new OpenDataStopped("stopped");
      throw err instanceof OpenDataError || err instanceof OpenDataStopped ? err : new OpenDataError(`--open-data ${where}: not a readable zip (${(err as Error).message})`);
    });
  const zip = await unzipping(openZip(file));
  try {
    for (let entry = await unzipping(nextEntry(zip)); entry !== null; entry = await unzipping(nextEntry(zip))) {
      if (entry.fileName.endsWith("/")) continue;
      const inside = `${where}/${entry.fileName}`;
      const name = parsePostcodeFileName(entry.fileName);
      const isZip = /\.zip$/i.test(entry.fileName);
      if (!isZip && !name) continue;
      const problem = (size: number) => entryProblem(inside, isZip ? "an inner zip" : "a file", size, entry.compressedSize, limits);
      const tooBig = problem(entry.uncompressedSize);
      if (tooBig) throw new OpenDataError(tooBig);
      if (isZip) {
        const dir = mkdtempSync(join(tmpdir(), "pcc-open-data-"));
        try {
          const inner = join(dir, "inner.zip");
          const copy = (stream: Readable) => pipeline(stream, capped(problem), createWriteStream(inner), signal ? { signal } : {});
          await unzipping(entryStream(zip, entry).then(copy));
          await readZip(inner, inside, opened, options);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      } else if (name) {
        const sink = opened(inside, name);
        const stream = await unzipping(entryStream(zip, entry));
        try {
          const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
          let seen = 0;
          for (let next = await unzipping(chunks.next()); !next.done; next = await unzipping(chunks.next())) {
            // a directory that understates the size is caught by the bytes themselves
            const over = problem((seen += next.value.length));
            if (over) throw new OpenDataError(over);
            sink.push(next.value, false);
          }
          sink.push(new Uint8Array(0), true);
        } finally {
          stream.destroy();
        }
      }
    }
  } finally {
    zip.close();
  }
}

/** Why a zip's entry is not unpacked: more than the size cap, or inflating more than the ratio cap (a zip bomb). */
export function entryProblem(where: string, what: "an inner zip" | "a file", size: number, packed: number, limits: ZipLimits = ZIP_LIMITS): string | null {
  const mib = (n: number) => (n < 1024 * 1024 ? `${Math.round(n / 1024)} KiB` : `${Math.round(n / 1024 / 1024)} MiB`);
  if (size > limits.maxBytes) return `--open-data ${where}: ${what} of ${mib(size)}, more than the ${mib(limits.maxBytes)} allowed; not unpacked`;
  if (size > limits.maxRatio * Math.max(1, packed))
    return `--open-data ${where}: ${what} inflating ${Math.round(size / Math.max(1, packed))} times its packed size (more than ${limits.maxRatio}); not unpacked`;
  return null;
}

/** Passes bytes on while they stay within the caps: a zip whose sizes lie stops here, not on a full disk. */
function capped(problem: (size: number) => string | null): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      const over = problem(seen);
      done(over ? new OpenDataError(over) : null, chunk);
    },
  });
}

const openZip = (file: string) =>
  new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: false }, (err, zip) => (err ? reject(err) : resolve(zip))),
  );

const entryStream = (zip: yauzl.ZipFile, entry: yauzl.Entry) =>
  new Promise<Readable>((resolve, reject) => zip.openReadStream(entry, (err, stream) => (err ? reject(err) : resolve(stream))));

/** The zip's next entry, or null after the last. */
function nextEntry(zip: yauzl.ZipFile): Promise<yauzl.Entry | null> {
  return new Promise((resolve, reject) => {
    const done = () => {
      zip.off("entry", onEntry);
      zip.off("end", onEnd);
      zip.off("error", onError);
    };
    const onEntry = (entry: yauzl.Entry) => (done(), resolve(entry));
    const onEnd = () => (done(), resolve(null));
    const onError = (err: Error) => (done(), reject(err));
    zip.on("entry", onEntry);
    zip.on("end", onEnd);
    zip.on("error", onError);
    zip.readEntry();
  });
}

/** Column indexes of the header's known names; the postcode's first. */
function matchHeader(name: string, header: string[]): number[] {
  const keys = header.map(headerKey);
  const postcode = POSTCODE_HEADERS.map((h) => keys.indexOf(h)).find((i) => i >= 0);
  if (postcode === undefined) throw new OpenDataError(`${name} line 1: no postcode column (postcode, postcode_space or pcds) in its header`);
  const figures = OPEN_DATA_FIELDS.map((f) => f.headers.map((h) => keys.indexOf(headerKey(h))).find((i) => i >= 0) ?? -1);
  if (figures.every((i) => i < 0))
    throw new OpenDataError(`${name} line 1: none of the coverage columns of the postcode files (e.g. "${OPEN_DATA_FIELDS[6].headers[0]}") in its header`);
  // a renamed header would leave its figure empty for every postcode, silently
  const missing = OPEN_DATA_FIELDS.filter((f, i) => "needed" in f && figures[i]! < 0);
  if (missing.length > 0) {
    const quoted = (names: readonly string[]) => names.map((n) => JSON.stringify(n.slice(0, 80))).join(", ");
    throw new OpenDataError(
      `${name} line 1: no column ${quoted(missing.map((f) => f.headers[0]))} in its header; ` +
        `wanted ${quoted(OPEN_DATA_FIELDS.filter((f) => "needed" in f).map((f) => f.headers[0]))}; found ${quoted(header.slice(0, 40))}`,
    );
  }
  return [postcode, ...figures];
}

/** One CSV: UTF-8 (a BOM or not), CRLF or LF, header matched by name, rows to `onRow`. */
class CsvSink implements Sink {
  private readonly decoder = new TextDecoder("utf-8", { fatal: true });
  private text = "";
  private line = 0;
  private columns: number[] | null = null;

  constructor(
    private readonly name: string,
    private readonly premises: Premises,
    private readonly onRow: OpenDataRowHandler,
    private readonly badPostcodes: OpenDataRead["badPostcodes"],
    private readonly signal?: AbortSignal,
  ) {}

  push(chunk: Uint8Array, final: boolean): void {
    if (this.signal?.aborted) throw new OpenDataStopped("stopped");
    let decoded: string;
    try {
      decoded = this.decoder.decode(chunk, { stream: !final });
    } catch {
      throw new OpenDataError(this.encodingProblem(chunk));
    }
    this.text += decoded;
    // whole lines only: the rest waits for the next chunk
    const whole = this.text.lastIndexOf("\n") + 1;
    const end = final ? this.text.length : whole;
    // the other readers' rule: a line over 1 MiB is refused at once, never gathered further
    const long = this.text.length - whole > MAX_ROW_BYTES ? whole : longLineAt(this.text, end);
    if (long !== null)
      throw new OpenDataError(`${this.name} line ${this.line + 1 + countLines(this.text.slice(0, long))}: longer than ${MAX_ROW_BYTES / 1024 / 1024} MiB; not a postcode file`);
    if (end === 0) return;
    const block = this.text.slice(0, end);
    this.text = this.text.slice(end);
    this.rows(block);
  }

  private rows(block: string): void {
    let records: string[][];
    try {
      records = parseOpenDataBlock(block);
    } catch (err) {
      throw new OpenDataError(`${this.name} after line ${this.line}: ${(err as Error).message}`);
    }
    for (const record of records) {
      this.line++;
      if (this.columns === null) {
        this.columns = matchHeader(this.name, record);
        continue;
      }
      const cell = record[this.columns[0]!] ?? "";
      if (cell.trim() === "") continue;
      // the quick check first (one validation, no display form: a whole-UK release is 1.7 million
      // rows); what it refuses gets the full reading (invisible characters, odd spacing)
      const quick = compactPostcode(cell);
      const valid = quick !== null ? { ok: true as const, compact: quick } : normalisePostcode(cell);
      if (!valid.ok) {
        this.badPostcodes.count++;
        this.badPostcodes.first ??= `${this.name} line ${this.line}: "${cell.slice(0, 20)}"`;
        continue;
      }
      const postcode = valid.compact;
      const values = new Array<number | null>(this.columns.length - 1);
      for (let i = 1; i < this.columns.length; i++) {
        const at = this.columns[i]!;
        const cell = at < 0 ? "" : (record[at] ?? "");
        if (cell === "") values[i - 1] = null;
        else {
          const v = Number(cell);
          if (!Number.isFinite(v) || v < 0 || v > 100)
            throw new OpenDataError(`${this.name} line ${this.line}: "${cell.slice(0, 20)}" under "${OPEN_DATA_FIELDS[i - 1]!.headers[0]}" is not a percentage`);
          values[i - 1] = v;
        }
      }
      this.onRow(this.premises, postcode, values);
    }
  }

  /** The line and byte where the text stops being UTF-8: Ofcom's files are UTF-8, one of 2025 was Windows-1252. */
  private encodingProblem(chunk: Uint8Array): string {
    const lenient = this.text + new TextDecoder("utf-8").decode(chunk);
    const at = lenient.indexOf("\uFFFD");
    const line = this.line + 1 + (lenient.slice(0, Math.max(0, at)).match(/\n/g)?.length ?? 0);
    return `${this.name} line ${line}: not UTF-8 (Windows-1252?); convert it, e.g. iconv -f WINDOWS-1252 -t UTF-8, or download it again`;
  }
}

const countLines = (text: string): number => text.match(/\n/g)?.length ?? 0;

/** Where the first line over MAX_ROW_BYTES starts in text[0, end), or null: one pass. */
function longLineAt(text: string, end: number): number | null {
  for (let start = 0; start < end; ) {
    const nl = text.indexOf("\n", start);
    const stop = nl < 0 || nl > end ? end : nl;
    if (stop - start > MAX_ROW_BYTES) return start;
    start = stop + 1;
  }
  return null;
}
