// The input stage: every row of --in into the run's rows, rejects included. A signal while reading
// keeps the rows read so far; an input error is returned as one line for the run to fail with.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { Readable } from "node:stream";
import { InputError, openInput } from "../input/read-input.js";
import type { InputRowWriter, Store } from "../store/store.js";
import { LeaseLostError, storedRow } from "../store/types.js";
import type { Logger } from "../log/logger.js";
import type { BatchConfig } from "./config.js";
import type { InputShape } from "../report/check-options.js";
import type { OpenedRun } from "./run.js";

export type ReadResult = { ok: true; inputRows: number; rejects: number; shape: InputShape } | { ok: false; message: string };
/** What reading returns: the rows read are staged (`rows`), not yet the run's, until `acceptInput`. */
export type StagedRead = (Extract<ReadResult, { ok: true }> & { rows: InputRowWriter }) | Extract<ReadResult, { ok: false }>;

/** --in, opened: what messages call it and its stream. */
export interface InputSource {
  source: string;
  stream: Readable;
}

/**
 * Opens --in before the run touches the database: a file that cannot be opened is refused with
 * one line, taking no run number and leaving no database file behind.
 */
export async function openInputSource(config: Pick<BatchConfig, "in">, stdin: Readable | undefined): Promise<InputSource | { message: string }> {
  if (config.in === "-") return { source: "standard input", stream: stdin ?? process.stdin };
  // a folder opens as a file does, and fails only at its first read: refused here, before the database
  if ((await stat(config.in).catch(() => null))?.isDirectory()) return { message: `cannot read ${config.in}: it is a folder, not a file` };
  const stream = createReadStream(config.in);
  // Surface "no such file" as an input error instead of an unhandled stream error.
  const opened = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    stream.once("open", () => resolve(null));
    stream.once("error", (err) => resolve(err as NodeJS.ErrnoException));
  });
  if (!opened) return { source: config.in, stream };
  return { message: `cannot read ${config.in}: ${opened.code === "ENOENT" ? "no such file" : opened.message}` };
}

export async function readInputIntoRun(
  store: Store,
  runId: number,
  { source, stream }: InputSource,
  config: Pick<BatchConfig, "column">,
  deps: { logger: Logger },
  stopped: AbortSignal,
): Promise<StagedRead> {
  const rows = await store.inputRows.openWriter(runId);
  let inputRows = 0;
  let rejects = 0;
  const shape: InputShape = { source, columns: 0, widestLine: 0, longestCell: 0, longestAt: { line: 0, column: 0 } };
  // Ctrl-C while waiting on standard input (or reading a huge file) must not wait for its end.
  const onStop = () => stream.destroy(new Error("interrupted"));
  if (stopped.aborted) onStop();
  else stopped.addEventListener("abort", onStop, { once: true });
  try {
    const input = await openInput(stream, { source, column: config.column });
    for (const w of input.warnings) deps.logger.warn(w);
    await store.runs.setInput(runId, input.header.columns, input.header.postcodeColumn);
    deps.logger.info(postcodeColumnLine(input.header), { event: "postcode-column", column: input.header.postcodeColumn });
    shape.columns = input.header.columns.length;
    const told = input.warnings.length;
    for await (const row of input.rows) {
      inputRows++;
      measure(shape, row.line, row.cells);
      if (!row.postcode.ok) rejects++;
      await rows.add(storedRow(row));
    }
    // what the rows showed, once they have all been read
    for (const w of input.warnings.slice(told)) deps.logger.warn(w);
  } catch (err) {
    // a signal keeps the rows read so far (a lost lease keeps none: acceptInput); a refusal none
    if (!stopped.aborted) {
      if (!(err instanceof InputError)) {
        // the failure itself is what the run reports, not a failure to drop the staged rows after it
        await rows.discard().catch(() => {});
        throw err;
      }
      await rows.discard();
      return { ok: false, message: err.message };
    }
  } finally {
    stopped.removeEventListener("abort", onStop);
    stream.destroy();
  }
  return { ok: true, inputRows, rejects, shape, rows };
}

/**
 * Commits the staged input rows to the run, in a transaction the database refuses unless the run's
 * lease is still live: false (and nothing kept) when the lease is lost, before or at the commit.
 */
export async function acceptInput(run: Pick<OpenedRun, "fence" | "lease" | "clock">, rows: InputRowWriter): Promise<boolean> {
  if (run.fence.lost) {
    await rows.discard();
    return false;
  }
  try {
    await rows.accept({ id: run.lease.id, now: () => run.clock.now() });
    return true;
  } catch (err) {
    if (!(err instanceof LeaseLostError) && !run.fence.lost) throw err;
    run.fence.writeRefused();
    return false;
  }
}

/** The widest row and the longest cell, found as the rows stream in. */
function measure(shape: InputShape, line: number, cells: readonly string[]): void {
  if (cells.length > shape.columns) {
    shape.columns = cells.length;
    shape.widestLine = line;
  }
  for (let i = 0; i < cells.length; i++)
    if (cells[i]!.length > shape.longestCell) {
      shape.longestCell = cells[i]!.length;
      shape.longestAt = { line, column: i + 1 };
    }
}

/** Which column the postcodes are read from, among which: a file with two postcode-like columns uses one of them. */
export function postcodeColumnLine(h: { columns: readonly string[]; postcodeColumn: string; postcodeIndex: number; hasHeader: boolean }): string {
  if (!h.hasHeader) return "postcode column: the file has no header; postcodes are read from its column 1";
  return `postcode column: ${JSON.stringify(h.postcodeColumn)} (column ${h.postcodeIndex + 1} of ${h.columns.length}: ${h.columns.map((c) => JSON.stringify(c)).join(", ")}); --column NAME chooses another`;
}
