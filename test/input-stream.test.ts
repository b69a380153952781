// The reader as a stream: characters and line breaks cut across chunks far into a file, errors
// deep in a file still naming the right line, and a never-closed quote refused without buffering
// the rest of the file.
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { InputError, MAX_ROW_BYTES, openInput } from "../src/input/read-input.js";

const SOURCE = "in.csv";

/** `text` as a stream of `size`-byte chunks (the first 64 KiB arrive as one, as from a file). */
function chunked(bytes: Buffer, size: number, firstChunk = 0): Readable {
  const chunks: Buffer[] = [];
  if (firstChunk > 0) chunks.push(bytes.subarray(0, firstChunk));
  for (let i = firstChunk; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return Readable.from(chunks);
}

async function rows(stream: Readable): Promise<{ line: number; value: string; postcode: string | null; notes: string | undefined }[]> {
  const input = await openInput(stream, { source: SOURCE });
  const out = [];
  for await (const r of input.rows) out.push({ line: r.line, value: r.value, postcode: r.postcode.ok ? r.postcode.compact : null, notes: r.cells[2] });
  return out;
}

async function refusal(reading: Promise<unknown>): Promise<string> {
  const err = await reading.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InputError);
  return (err as InputError).message;
}

/** A header, then `n` rows "i,SW1A 1AA,<notes>" (line i + 2), joined with `eol`. */
function lines(n: number, notes: (i: number) => string, eol = "\n"): string[] {
  const out = ["id,postcode,notes"];
  for (let i = 0; i < n; i++) out.push(`${i},SW1A 1AA,${notes(i)}`);
  return out.map((l) => l + eol);
}

describe("UTF-8 across chunk boundaries", () => {
  // Multi-byte characters after the 64-byte prefix, cut at every offset by 1..5-byte chunks.
  const text = lines(20, (i) => ["£5", "€ 10", "naïve café", "😀 ok", "ß"][i % 5]!).join("");
  for (const size of [1, 2, 3, 5]) {
    it(`reads £, €, ï, é, 😀 and ß cut into ${size}-byte chunks`, async () => {
      const got = await rows(chunked(Buffer.from(text), size, 64));
      expect(got).toHaveLength(20);
      expect(got.map((r) => r.notes)).toEqual(Array.from({ length: 20 }, (_, i) => ["£5", "€ 10", "naïve café", "😀 ok", "ß"][i % 5]));
      expect(got.map((r) => r.line)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    });
  }

  it("names the line of a bad byte that follows a character cut in two", async () => {
    // line 12 ends with "€" cut after its first byte by the chunking; line 13 holds a lone 0xA3.
    const head = Buffer.from(lines(10, () => "x").join("") + "10,SW1A 1AA,€\n");
    const bad = Buffer.concat([Buffer.from("11,SW1A 1AA,"), Buffer.from([0xa3]), Buffer.from("5\n")]);
    const bytes = Buffer.concat([head, bad]);
    const cut = head.length - 3; // inside the euro sign (3 bytes + LF)
    const stream = Readable.from([bytes.subarray(0, cut), bytes.subarray(cut)]);
    expect(await refusal(rows(stream))).toBe(
      `${SOURCE}: line 13: not valid UTF-8 (byte 0xA3, "£" in Windows-1252); save it as "CSV UTF-8 (Comma delimited)" and try again`,
    );
  });

  it("refuses a file that ends inside a character", async () => {
    const bytes = Buffer.from(lines(5, () => "€").join("") + "5,SW1A 1AA,€");
    expect(await refusal(rows(Readable.from([bytes.subarray(0, bytes.length - 1)])))).toBe(
      `${SOURCE}: line 7: the file ends inside a UTF-8 character; it is cut short or not UTF-8`,
    );
  });
});

describe("line numbers in errors deep in a file", () => {
  // A NUL on the 501st data row, with CRLF, LF and lone-CR line ends, the CR and LF of CRLFs in
  // different chunks: the message must name line 502 whatever the chunking.
  for (const eol of ["\r\n", "\n", "\r"]) {
    for (const size of [1, 7, 4096]) {
      it(`${JSON.stringify(eol)} line ends, ${size}-byte chunks`, async () => {
        const text = lines(500, (i) => `note ${i}`, eol).join("") + "500,SW1A\u00001AA,x" + eol + "501,SW1A 1AA,y" + eol;
        expect(await refusal(rows(chunked(Buffer.from(text), size, 64)))).toBe(`${SOURCE}: line 502: holds a NUL byte; this is a binary file, not a CSV`);
      });
    }
  }

  it("a quote never closed, after thousands of rows and more than a row's size of text", async () => {
    // Row 5,001 (line 5,002) opens a quote; the parser gives up once the row passes the cap,
    // long before the end of the file, and the message names the line where the row starts.
    const before = lines(5000, (i) => `note ${i}`).join("");
    const after = Array.from({ length: 40_000 }, (_, i) => `${i},SW1A 1AA,filler text for the rest of the file\n`).join("");
    expect(after.length).toBeGreaterThan(MAX_ROW_BYTES);
    const text = before + '5000,SW1A 1AA,"opened here\n' + after;
    let seen = 0;
    const input = await openInput(chunked(Buffer.from(text), 65536), { source: SOURCE });
    const reading = (async () => {
      for await (const r of input.rows) {
        expect(r.line).toBe(seen + 2);
        seen++;
      }
    })();
    expect(await refusal(reading)).toBe(
      `${SOURCE}: line 5002: the row starting here is longer than 1 MiB; most likely a quoted field is never closed (a " without its closing ")`,
    );
    expect(seen).toBeLessThanOrEqual(5000);
  });

  it("a quote never closed in a short file is reported where the quote opens", async () => {
    const text = lines(3, (i) => `n${i}`).join("") + '3,SW1A 1AA,"opened\n4,SW1A 1AA,x\n';
    expect(await refusal(rows(chunked(Buffer.from(text), 5, 64)))).toBe(
      `${SOURCE}: line 5: a quoted field starts in this row and is never closed (a " without its closing ")`,
    );
  });
});

describe("reading stops cleanly", () => {
  it("a consumer that stops early releases the source", async () => {
    const source = Readable.from(lines(10_000, (i) => `n${i}`).map((l) => Buffer.from(l)));
    const input = await openInput(source, { source: SOURCE });
    for await (const r of input.rows) if (r.line === 10) break;
    await new Promise((r) => setImmediate(r));
    expect(source.destroyed).toBe(true);
  });

  it("a header error releases the source", async () => {
    const source = Readable.from(["a,b\n", ...Array.from({ length: 1000 }, () => "1,2\n")].map((l) => Buffer.from(l)));
    await refusal(openInput(source, { source: SOURCE }));
    await new Promise((r) => setImmediate(r));
    expect(source.destroyed).toBe(true);
  });

  it("a read error becomes an input error naming the file", async () => {
    const source = new Readable({
      read() {
        this.destroy(Object.assign(new Error("i/o error"), { code: "EIO" }));
      },
    });
    expect(await refusal(openInput(source, { source: SOURCE }))).toBe(`${SOURCE}: cannot read: EIO`);
  });
});
