// The bytes of an input file, checked to be UTF-8 text (with or without BOM) before the CSV parser
// sees them. A workbook, a binary file, a UTF-16 export or a legacy-encoded (Windows-1252) export is
// refused with the line where it shows. The bytes pass through unchanged: csv-parse works on bytes,
// so decoding them here as well would only cost time.
import { Readable } from "node:stream";
import { isUtf8 } from "node:buffer";
import { UserError } from "../errors.js";

/** A problem with the input that the user can fix: the message names the file and the line. */
export class InputError extends UserError {}

export interface Prefix {
  /** the first line that is not blank, decoded (BOM removed), for delimiter detection */
  firstLine: string;
  /** its 1-based line number */
  firstLineNumber: number;
  /** bytes read so far, already checked */
  bytes: Buffer;
  /** the checker, carried on into the rest of the stream */
  guard: Utf8Guard;
  /** the source's iterator, positioned after the prefix */
  rest: AsyncIterator<Buffer | string>;
  ended: boolean;
}

const PREFIX_MAX = 64 * 1024;
/** enough of the start to recognise a workbook or UTF-16 by */
const SNIFF_BYTES = 64;
const LF = 10;
const CR = 13;
const SAVE_AS_CSV = 'save it as "CSV UTF-8 (Comma delimited)" and try again';

/** Reads until the end of the first line that is not blank (or 64 KiB, or the end), refusing files that are not text. */
export async function readPrefix(stream: Readable, source: string): Promise<Prefix> {
  const rest = (stream as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
  const chunks: Buffer[] = [];
  const scan = { content: false, done: false };
  let length = 0;
  let ended = false;
  while (length < PREFIX_MAX && (length < SNIFF_BYTES || !scan.done)) {
    const next = await readChunk(rest, source);
    if (next.done) {
      ended = true;
      break;
    }
    chunks.push(next.value);
    length += next.value.length;
    scanForContentLine(next.value, scan);
  }
  const bytes = Buffer.concat(chunks);
  refuseNonText(bytes, source);
  const guard = new Utf8Guard(source);
  guard.check(bytes);
  if (ended) guard.end();
  const lines = new TextDecoder("utf-8").decode(bytes).split(/\r\n|\r|\n/);
  const index = Math.max(0, lines.findIndex((l) => l.trim() !== ""));
  return { firstLine: lines[index] ?? "", firstLineNumber: index + 1, bytes, guard, rest, ended };
}

/** Marks `done` at the first line break that ends a line with something other than spaces in it. */
function scanForContentLine(chunk: Buffer, scan: { content: boolean; done: boolean }): void {
  for (let i = 0; i < chunk.length && !scan.done; i++) {
    const b = chunk[i]!;
    if (b === LF || b === CR) scan.done = scan.content;
    else if (b !== 0x20 && b !== 0x09) scan.content = true;
  }
}

/** The whole input as checked bytes: the prefix, then the rest of the stream. */
export function checkedBytes(prefix: Prefix, source: string): Readable {
  async function* chunks(): AsyncGenerator<Buffer> {
    if (prefix.bytes.length > 0) yield prefix.bytes;
    if (prefix.ended) return;
    for (;;) {
      const next = await readChunk(prefix.rest, source);
      if (next.done) break;
      prefix.guard.check(next.value);
      yield next.value;
    }
    prefix.guard.end();
  }
  return Readable.from(chunks(), { objectMode: false });
}

/**
 * Checks a byte stream chunk by chunk: no NUL byte, valid UTF-8 (a character may straddle two
 * chunks), and counts line breaks (LF, CRLF or a lone CR) so an error can say where it is.
 */
export class Utf8Guard {
  /** line breaks seen so far; the current line is lines + 1 */
  private breaks = 0;
  /** a CR ending the previous chunk: one break with an LF that may start the next */
  private pendingCR = false;
  /** the start of a UTF-8 character cut off at the end of the previous chunk */
  private carry: Buffer = Buffer.alloc(0);

  constructor(private readonly source: string) {}

  check(chunk: Buffer): void {
    const nul = chunk.indexOf(0);
    if (nul >= 0)
      throw new InputError(`${this.source}: line ${this.lineAt(chunk, nul)}: holds a NUL byte; this is a binary file, not a CSV`);
    const whole = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    const tail = incompleteTail(whole);
    const body = tail === 0 ? whole : whole.subarray(0, whole.length - tail);
    if (!isUtf8(body)) {
      const at = firstInvalidByte(body);
      // The carried bytes hold no line break, so an offset in `whole` counts lines like one in `chunk`.
      const offsetInChunk = Math.max(0, at - this.carry.length);
      throw new InputError(`${this.source}: line ${this.lineAt(chunk, offsetInChunk)}: not valid UTF-8 (${describeByte(body[at]!)}); ${SAVE_AS_CSV}`);
    }
    this.carry = tail === 0 ? Buffer.alloc(0) : Buffer.from(whole.subarray(whole.length - tail));
    this.countBreaks(chunk);
  }

  end(): void {
    if (this.carry.length > 0)
      throw new InputError(`${this.source}: line ${this.breaks + 1}: the file ends inside a UTF-8 character; it is cut short or not UTF-8`);
  }

  /** The line holding byte `offset` of `chunk`, the next chunk to be counted. */
  private lineAt(chunk: Buffer, offset: number): number {
    const probe = new Utf8Guard(this.source);
    probe.pendingCR = this.pendingCR;
    probe.countBreaks(chunk.subarray(0, offset));
    // A CR just before the offset is a break whatever follows.
    return this.breaks + probe.breaks + (probe.pendingCR ? 1 : 0) + 1;
  }

  private countBreaks(chunk: Buffer): void {
    if (chunk.length === 0) return;
    let n = 0;
    for (let i = chunk.indexOf(LF); i >= 0; i = chunk.indexOf(LF, i + 1)) n++;
    for (let i = chunk.indexOf(CR); i >= 0; i = chunk.indexOf(CR, i + 1)) if (i + 1 < chunk.length && chunk[i + 1] !== LF) n++;
    // The CR that ended the previous chunk was a break of its own unless this chunk starts with LF.
    if (this.pendingCR && chunk[0] !== LF) n++;
    this.pendingCR = chunk[chunk.length - 1] === CR;
    this.breaks += n;
  }
}

/** Files people pick by mistake, told apart by their first bytes. */
function refuseNonText(b: Buffer, source: string): void {
  const at = `${source}: line 1:`;
  const starts = (...sig: number[]) => sig.every((x, i) => b[i] === x);
  if (starts(0xff, 0xfe) || starts(0xfe, 0xff))
    throw new InputError(`${at} the file is UTF-16 ("Unicode text"), not UTF-8; ${SAVE_AS_CSV}`);
  if (starts(0x50, 0x4b, 0x03, 0x04))
    throw new InputError(`${at} this is an Excel workbook (.xlsx/.ods) or another zip file, not a CSV; ${SAVE_AS_CSV}`);
  if (starts(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1))
    throw new InputError(`${at} this is an old Excel workbook (.xls), not a CSV; ${SAVE_AS_CSV}`);
  if (starts(0x1f, 0x8b)) throw new InputError(`${at} this is a gzip-compressed file, not a CSV; decompress it first`);
  if (starts(0x25, 0x50, 0x44, 0x46, 0x2d)) throw new InputError(`${at} this is a PDF, not a CSV`);
  const utf16 = utf16WithoutBom(b);
  if (utf16) throw new InputError(`${at} the file looks like UTF-16 (${utf16}, no BOM), not UTF-8; ${SAVE_AS_CSV}`);
}

/** ASCII text in UTF-16 has a NUL in every other byte. */
function utf16WithoutBom(b: Buffer): string | null {
  const n = Math.min(b.length, 64) & ~1;
  if (n < 4) return null;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i++) {
    if (b[i] !== 0) continue;
    if (i % 2 === 0) even++;
    else odd++;
  }
  if (odd >= (n / 2) * 0.75 && even === 0) return "little-endian";
  if (even >= (n / 2) * 0.75 && odd === 0) return "big-endian";
  return null;
}

async function readChunk(rest: AsyncIterator<Buffer | string>, source: string): Promise<IteratorResult<Buffer, undefined>> {
  let next: IteratorResult<Buffer | string>;
  try {
    next = await rest.next();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new InputError(`${source}: cannot read: ${e.code === "EISDIR" ? "it is a directory" : (e.code ?? e.message)}`);
  }
  if (next.done) return { done: true, value: undefined };
  return { done: false, value: typeof next.value === "string" ? Buffer.from(next.value, "utf8") : next.value };
}

/** How many bytes at the end are the start of a multi-byte character that is not finished yet. */
function incompleteTail(b: Buffer): number {
  for (let k = 1; k <= 3 && k <= b.length; k++) {
    const c = b[b.length - k]!;
    if ((c & 0xc0) === 0x80) continue; // a continuation byte: look further back for the lead
    if (c < 0xc0) return 0;
    const size = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    return size > k ? k : 0;
  }
  return 0;
}

/** Offset of the first byte that does not begin a valid UTF-8 sequence (only called on bad input). */
function firstInvalidByte(b: Buffer): number {
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    const [size, lo, hi]: [number, number, number] =
      c >= 0xc2 && c <= 0xdf ? [2, 0x80, 0xbf]
      : c === 0xe0 ? [3, 0xa0, 0xbf]
      : c === 0xed ? [3, 0x80, 0x9f]
      : c >= 0xe1 && c <= 0xef ? [3, 0x80, 0xbf]
      : c === 0xf0 ? [4, 0x90, 0xbf]
      : c >= 0xf1 && c <= 0xf3 ? [4, 0x80, 0xbf]
      : c === 0xf4 ? [4, 0x80, 0x8f]
      : [0, 0, 0];
    if (size === 0 || i + size > b.length) return i;
    const second = b[i + 1]!;
    if (second < lo || second > hi) return i;
    for (let k = 2; k < size; k++) if ((b[i + k]! & 0xc0) !== 0x80) return i;
    i += size;
  }
  return b.length - 1;
}

/** "byte 0xA3, '£' in Windows-1252": the usual culprit is an export in the Windows code page. */
function describeByte(byte: number): string {
  const hex = `byte 0x${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  const ch = new TextDecoder("windows-1252").decode(Uint8Array.of(byte));
  return /^[\p{L}\p{N}\p{P}\p{S}]$/u.test(ch) ? `${hex}, "${ch}" in Windows-1252` : hex;
}
