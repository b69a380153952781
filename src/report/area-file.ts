// --area-file: a CSV with a postcode column and area columns (an extract of the ONS postcode
// directory: local authority, ward, constituency), joined on the normalised postcode so that its
// columns can be named in --group-by. The file streams through the input reader (csv-parse, the
// same delimiter and encoding rules as the input) into a temporary table that keeps only the
// postcodes in the report's scope and only the columns asked for: memory and disk stay bounded by
// the report, not by the 2.6M-row directory.
import { constants, createReadStream } from "node:fs";
import { access } from "node:fs/promises";
import type { Readable } from "node:stream";
import type { Db } from "../store/db.js";
import { headerName, isPostcodeHeader } from "../input/column.js";
import { detectDelimiter, excelSepLine } from "../input/delimiter.js";
import { InputError, openInput } from "../input/read-input.js";
import { readPrefix } from "../input/text-guard.js";
import { POSTCODE_TABLE } from "./postcode-table.js";
import { ReportError } from "./scope.js";

export const AREA_TABLE = "temp.report_areas";

export interface AreaFile {
  path: string;
  /** the file's header names */
  columns: string[];
  /** the column holding the postcodes */
  postcodeColumn: string;
}

export interface AreaLoad {
  /** data rows read */
  rows: number;
  /** rows whose postcode cell is no valid postcode (skipped) */
  invalid: number;
  /** postcodes in scope found in the file, and not found */
  matched: number;
  unmatched: number;
}

const fail = (path: string, err: unknown): never => {
  if (err instanceof InputError) throw new ReportError(`--area-file ${err.message}`);
  const e = err as NodeJS.ErrnoException;
  throw new ReportError(`--area-file ${path}: cannot read it (${e.code === "ENOENT" ? "no such file" : e.message})`);
};

/**
 * The header of the area file. Its postcode column is the first that is named like one (pcds, pcd,
 * postcode…): the ONS directory has several (pcd, pcd2, pcds), all holding the same postcode.
 */
export async function readAreaHeader(path: string): Promise<AreaFile> {
  await access(path, constants.R_OK).catch((err: unknown) => fail(path, err));
  const stream = createReadStream(path);
  try {
    const prefix = await readPrefix(stream, path);
    const line = excelSepLine(prefix.firstLine) ? "" : prefix.firstLine;
    const columns = line.split(detectDelimiter(line)).map(headerName);
    const postcodeColumn = columns.find(isPostcodeHeader);
    if (postcodeColumn === undefined)
      throw new ReportError(`--area-file ${path}: line 1: no postcode column (pcds, pcd or postcode) among ${columns.map((c) => JSON.stringify(c)).join(", ")}`);
    return { path, columns, postcodeColumn };
  } catch (err) {
    if (err instanceof ReportError) throw err;
    return fail(path, err);
  } finally {
    stream.destroy();
  }
}

const BATCH = 5000;

/**
 * Streams the file into AREA_TABLE (postcode, cells: JSON array of `wanted` columns), keeping the
 * first row of a postcode that appears twice. Needs the report's postcode table.
 */
export async function loadAreaFile(db: Db, file: AreaFile, wanted: readonly string[], stream: Readable = createReadStream(file.path)): Promise<AreaLoad> {
  const indexes = wanted.map((w) => file.columns.findIndex((c) => c.toLowerCase() === w.toLowerCase()));
  db.exec(`DROP TABLE IF EXISTS ${AREA_TABLE}`);
  db.exec(`CREATE TABLE ${AREA_TABLE} (postcode TEXT PRIMARY KEY, cells TEXT NOT NULL) WITHOUT ROWID`);
  const insert = db.prepare(
    `INSERT OR IGNORE INTO ${AREA_TABLE} (postcode, cells) SELECT @postcode, @cells WHERE EXISTS (SELECT 1 FROM ${POSTCODE_TABLE} WHERE postcode = @postcode)`,
  );
  const insertMany = db.transaction((batch: { postcode: string; cells: string }[]) => {
    for (const b of batch) insert.run(b);
  });
  let rows = 0;
  let invalid = 0;
  let batch: { postcode: string; cells: string }[] = [];
  try {
    const input = await openInput(stream, { source: file.path, column: file.postcodeColumn });
    for await (const row of input.rows) {
      rows++;
      if (!row.postcode.ok) {
        invalid++;
        continue;
      }
      batch.push({ postcode: row.postcode.compact, cells: JSON.stringify(indexes.map((i) => row.cells[i] ?? "")) });
      if (batch.length >= BATCH) {
        insertMany(batch);
        batch = [];
      }
    }
    insertMany(batch);
  } catch (err) {
    if (err instanceof ReportError) throw err;
    return fail(file.path, err);
  }
  const matched = db.prepare(`SELECT COUNT(*) FROM ${AREA_TABLE}`).pluck().get() as number;
  const inScope = db.prepare(`SELECT COUNT(*) FROM ${POSTCODE_TABLE}`).pluck().get() as number;
  return { rows, invalid, matched, unmatched: inScope - matched };
}

export function dropAreaTable(db: Db): void {
  db.exec(`DROP TABLE IF EXISTS ${AREA_TABLE}`);
}
