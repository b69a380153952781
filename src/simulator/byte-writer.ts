// Writes JSON text straight into bytes. Building a body as one long string and then encoding it
// costs several times more (the string is a rope of hundreds of pieces that must be flattened,
// then encoded); fresh bodies are the simulator's hot path, so they are written this way.

const encoder = new TextEncoder();

/** An ASCII or UTF-8 piece of JSON, encoded once and copied into every body that uses it. */
export const piece = (text: string): Uint8Array => encoder.encode(text);

/** Working space shared by writers, which run one at a time (writing is synchronous). */
let scratch: Buffer | null = null;
const KEEP_SCRATCH = 16 * 1024 * 1024;

export class ByteWriter {
  private buf: Buffer;
  private pos = 0;

  constructor(sizeHint: number) {
    const free = scratch;
    scratch = null; // taken until finish()
    this.buf = free !== null && free.length >= sizeHint ? free : Buffer.allocUnsafeSlow(Math.max(64 * 1024, sizeHint));
  }

  bytes(b: Uint8Array): void {
    const n = b.length;
    this.ensure(n);
    const buf = this.buf;
    const pos = this.pos;
    // A short piece is copied faster by hand than through a native call.
    if (n < 24) for (let i = 0; i < n; i++) buf[pos + i] = b[i]!;
    else buf.set(b, pos);
    this.pos = pos + n;
  }

  /** Any string, UTF-8 encoded (for JSON this must already be a JSON value, e.g. from JSON.stringify). */
  text(s: string): void {
    this.ensure(s.length * 3);
    this.pos += this.buf.write(s, this.pos, "utf8");
  }

  /** A finite number exactly as JSON.stringify writes it. */
  number(v: number): void {
    if (Number.isSafeInteger(v)) return this.integer(v);
    // One decimal (speeds are): written by hand, as String(v) would, since that is costly.
    const tenths = Math.round(v * 10);
    if (tenths / 10 === v && Number.isSafeInteger(tenths)) {
      const abs = tenths < 0 ? -tenths : tenths;
      if (tenths < 0) this.byte(45); // "-"
      this.integer(Math.floor(abs / 10));
      this.byte(46); // "."
      this.byte(48 + (abs % 10));
      return;
    }
    this.text(String(v));
  }

  /** The bytes written, in a buffer of exactly that size; the writer is done with. */
  finish(): Buffer {
    const out = Buffer.allocUnsafe(this.pos);
    this.buf.copy(out, 0, 0, this.pos);
    if (this.buf.length <= KEEP_SCRATCH) scratch = this.buf;
    return out;
  }

  private byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  private integer(v: number): void {
    if (v < 0) {
      this.byte(45);
      v = -v;
    }
    // Up to 9 digits with int32 arithmetic; longer ones (UPRNs) as two parts, as doubles are slow here.
    if (v < 1e9) return this.digits(v, 0);
    const high = Math.floor(v / 1e9);
    this.integer(high);
    this.digits(v - high * 1e9, 9);
  }

  /** v < 1e9, at least `width` digits (zero-padded). */
  private digits(v: number, width: number): void {
    let n = 1;
    for (let x = 10; x <= v && n < 9; x *= 10) n++;
    if (n < width) n = width;
    this.ensure(n);
    const buf = this.buf;
    let i = this.pos + n;
    this.pos = i;
    let rest = v | 0;
    while (n-- > 0) {
      const q = (rest / 10) | 0;
      buf[--i] = 48 + rest - q * 10;
      rest = q;
    }
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }
}
