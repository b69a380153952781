// The package's zip, streamed into `out`: fflate writes the container (headers, data descriptors,
// the central directory) and Node's zlib deflates each entry, in its thread pool, beside the
// JavaScript that builds the next rows' XML. Measured (docs/bench.md, "Workbook writers"): fflate's
// own deflate, in JavaScript on the main thread, took 40% of the writer's time. Every push waits
// until the deflater and `out` have room, which keeps memory flat however many rows a sheet has.
import { once } from "node:events";
import type { Writable } from "node:stream";
import { crc32, createDeflateRaw, type DeflateRaw } from "node:zlib";
import { Zip, type AsyncFlateStreamHandler, type ZipInputFile } from "fflate";

/**
 * Deflate level of the entries. Measured (docs/bench.md, "Workbook writers"): level 1 writes the
 * Mobile sheet faster than 6 in a file the size exceljs wrote.
 */
export const ZIP_LEVEL = 1;

export interface ZipEntry {
  /** deflates `text` into the entry; resolves when there is room for more */
  write(text: string): Promise<void>;
  /** the entry's last text; resolves when the entry is wholly in the zip */
  end(text?: string): Promise<void>;
}

/** One entry, deflated by zlib: fflate reads its size and CRC when its last chunk comes. */
class DeflatedEntry implements ZipInputFile {
  readonly compression = 8; // deflate (APPNOTE 4.4.5)
  size = 0;
  crc = 0;
  ondata?: AsyncFlateStreamHandler;
  readonly ended: Promise<unknown>;
  private readonly deflate: DeflateRaw;

  constructor(
    readonly filename: string,
    level: number,
  ) {
    this.deflate = createDeflateRaw({ level });
    this.deflate.on("data", (chunk: Uint8Array<ArrayBuffer>) => this.ondata?.(null, chunk, false));
    this.ended = once(this.deflate, "end").then(() => this.ondata?.(null, new Uint8Array(0), true));
  }

  /** Frees the deflater of an entry that will not be finished (a failure). */
  abort(): void {
    this.deflate.destroy();
  }

  async push(data: Buffer, final: boolean): Promise<void> {
    this.size += data.length;
    this.crc = crc32(data, this.crc);
    const room = this.deflate.write(data);
    if (final) {
      this.deflate.end();
      await this.ended;
    } else if (!room) await once(this.deflate, "drain");
  }
}

export class ZipStream {
  private readonly zip: Zip;
  private failure: Error | null = null;
  private open = false;

  constructor(
    private readonly out: Writable,
    private readonly level = ZIP_LEVEL,
  ) {
    // the output's failure is the writer's: thrown at the next push (unheard, it would be uncaught)
    out.on("error", (err) => (this.failure ??= err));
    this.zip = new Zip((err, data, final) => {
      if (err) {
        this.failure ??= err;
        return;
      }
      if (out.destroyed) return;
      out.write(data);
      if (final) out.end();
    });
  }

  /** A new entry; the previous one must have ended (the zip holds one entry's output at a time). */
  entry(name: string): ZipEntry {
    if (this.open) throw new Error(`zip entry ${name}: the previous entry is still open`);
    const file = new DeflatedEntry(name, this.level);
    this.zip.add(file);
    this.open = true;
    const push = async (text: string, final: boolean) => {
      try {
        this.check();
        await file.push(Buffer.from(text, "utf8"), final);
        if (final) this.open = false;
        await this.room();
      } catch (err) {
        file.abort();
        throw err;
      }
    };
    return { write: (text) => push(text, false), end: (text = "") => push(text, true) };
  }

  /** A whole small entry. */
  add(name: string, text: string): Promise<void> {
    return this.entry(name).end(text);
  }

  /** Writes the zip's central directory and ends `out`. */
  async end(): Promise<void> {
    this.check();
    this.zip.end();
    await this.room();
  }

  private check(): void {
    if (this.failure) throw this.failure;
    // A failed file (a full disk) destroys `out`: the writer throws, which closes the rows' iterator.
    if (this.out.destroyed) throw this.out.errored ?? new Error("the workbook's output was closed");
  }

  /** Waits while `out` holds more than its high-water mark, or until it closes (a failure: no drain comes after one). */
  private async room(): Promise<void> {
    const out = this.out;
    if (out.writableNeedDrain && !out.destroyed)
      await new Promise<void>((resolve) => {
        const done = () => {
          out.removeListener("drain", done);
          out.removeListener("close", done);
          resolve();
        };
        out.once("drain", done);
        out.once("close", done);
      });
    this.check();
  }
}
