// Bulk writes through COPY … FROM STDIN (pg-copy-streams): one round trip per batch of rows instead
// of one per row, for the large writes (input rows, open data).
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";

/** A value in COPY's text format: \N for null, the format's escapes for backslash, tab and line breaks. */
function field(value: unknown): string {
  if (value === null || value === undefined) return "\\N";
  return String(value).replace(/[\\\t\n\r]/g, (c) => (c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r"));
}

/** Copies `rows` (values in `columns` order) into `table` on this connection. */
export async function copyRows(client: pg.PoolClient, table: string, columns: readonly string[], rows: readonly (readonly unknown[])[]): Promise<void> {
  if (rows.length === 0) return;
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(", ")}) FROM STDIN`));
  const text = function* () {
    // about 64 KB a chunk: few writes, bounded memory
    let chunk = "";
    for (const row of rows) {
      chunk += `${row.map(field).join("\t")}\n`;
      if (chunk.length >= 65_536) {
        yield chunk;
        chunk = "";
      }
    }
    if (chunk) yield chunk;
  };
  await pipeline(Readable.from(text()), stream);
}
