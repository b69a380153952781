// The package's zip, streamed into `out` with fflate (entries deflated as they are pushed, one after
// another). Every push waits until `out` has room: fflate compresses synchronously and hands its
// output over at once, so waiting here is what keeps memory flat however many rows a sheet has.
import type { Writable } from "node:stream";
import { Zip, ZipDeflate, type DeflateOptions } from "fflate";

/**
 * Deflate level of the entries. Measured (docs/bench.md, "Workbook writers"): level 1 writes the
 * Mobile sheet about twice as fast as fflate's default 6, in a file the size exceljs wrote.
 */
export const ZIP_LEVEL: DeflateOptions["level"] = 1;

export interface ZipEntry {
  /** deflates `text` into the entry; resolves when `out` has room for more */
  write(text: string): Promise<void>;
  /** the entry's last text */
  end(text?: string): Promise<void>;
}

export class ZipStream {
  private readonly zip: Zip;
  private failure: Error | null = null;
  private open = false;

  constructor(
    private readonly out: Writable,
    private readonly level: DeflateOptions["level"] = ZIP_LEVEL,
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

  /** A new entry; the previous one must have ended (fflate would hold this one's output until it does). */
  entry(name: string): ZipEntry {
    if (this.open) throw new Error(`zip entry ${name}: the previous entry is still open`);
    const file = new ZipDeflate(name, { level: this.level });
    this.zip.add(file);
    this.open = true;
    const push = async (text: string, final: boolean) => {
      this.check();
      file.push(Buffer.from(text, "utf8"), final);
      if (final) this.open = false;
      await this.room();
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
