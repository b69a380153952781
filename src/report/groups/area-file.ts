// --area-file: a CSV with a postcode column and area columns (an extract of the ONS postcode
// directory: local authority, ward, constituency), joined on the normalised postcode so that its
// columns can be named in --group-by. The file streams through the input reader (csv-parse, the
// same delimiter and encoding rules as the input) into a temporary table that keeps only the
// postcodes in the report's scope and only the columns asked for: memory and disk stay bounded by
// the report, not by the 2.6M-row directory. Its latitude and longitude (coordinates.ts), when it
// has them, go into the report's postcode table for the map, postcodes.geojson and the workbook.
import { constants, createReadStream } from "node:fs";
import { access } from "node:fs/promises";
import type { Readable } from "node:stream";
import type { AreaRow, ReportSnapshot } from "../../store/snapshot.js";
import { headerName, isPostcodeHeader } from "../../input/column.js";
import { detectDelimiter, excelSepLine } from "../../input/delimiter.js";
import { InputError, openInput } from "../../input/read-input.js";
import { readPrefix } from "../../input/text-guard.js";
import { findCoordinateColumns, parseCoordinates, type CoordinateColumns } from "../../figures/coordinates.js";
import { ReportError } from "../set/scope.js";

export interface AreaFile {
  path: string;
  /** the file's header names */
  columns: string[];
  /** the column holding the postcodes */
  postcodeColumn: string;
  /** the latitude and longitude columns; null when the file has none */
  coordinates: CoordinateColumns | null;
}

export interface AreaLoad {
  /** data rows read */
  rows: number;
  /** rows whose postcode cell is no valid postcode (skipped) */
  invalid: number;
  /** postcodes in scope found in the file, and not found */
  matched: number;
  unmatched: number;
  /** postcodes in scope with known coordinates */
  located: number;
}

const fail = (path: string, err: unknown): never => {
  if (err instanceof InputError) throw new ReportError(`--area-file ${err.message}`);
  const e = err as NodeJS.ErrnoException;
  throw new ReportError(`--area-file ${path}: cannot read it (${e.code === "ENOENT" ? "no such file" : e.message})`);
};

/** The input's postcode headers, and the directory's other forms of the postcode (pcd7, pcd8, pcd2). */
const isAreaPostcodeHeader = (name: string) => isPostcodeHeader(name) || /^pcd[0-9]$/i.test(name.trim());

/**
 * The header of the area file. Its postcode column is the first that is named like one (pcds, pcd,
 * pcd7, pcd8, postcode…): the ONS directory has several (pcd, pcd2, pcds), all holding the same postcode.
 */
export async function readAreaHeader(path: string): Promise<AreaFile> {
  await access(path, constants.R_OK).catch((err: unknown) => fail(path, err));
  const stream = createReadStream(path);
  try {
    const prefix = await readPrefix(stream, path);
    const line = excelSepLine(prefix.firstLine) ? "" : prefix.firstLine;
    const columns = line.split(detectDelimiter(line)).map(headerName);
    const postcodeColumn = columns.find(isAreaPostcodeHeader);
    if (postcodeColumn === undefined)
      throw new ReportError(`--area-file ${path}: line 1: no postcode column (pcds, pcd, pcd7, pcd8 or postcode) among ${columns.map((c) => JSON.stringify(c)).join(", ")}`);
    return { path, columns, postcodeColumn, coordinates: findCoordinateColumns(columns) };
  } catch (err) {
    if (err instanceof ReportError) throw err;
    return fail(path, err);
  } finally {
    stream.destroy();
  }
}

const BATCH = 5000;

/**
 * Streams the file's rows (postcode, the `wanted` columns' cells, coordinates) into the snapshot,
 * which keeps those of postcodes in scope, the first row of a postcode that appears twice, and
 * gives them their coordinates. Needs the snapshot's postcodes (preparePostcodes).
 */
export async function loadAreaFile(
  snapshot: ReportSnapshot,
  file: AreaFile,
  wanted: readonly string[],
  stream: Readable = createReadStream(file.path),
  /** sees every valid row's postcode and wanted cells (the groups' estimates keep those in scope) */
  keep?: (postcode: string, cells: readonly string[]) => void,
): Promise<AreaLoad> {
  const indexes = wanted.map((w) => file.columns.findIndex((c) => c.toLowerCase() === w.toLowerCase()));
  const at = file.coordinates;
  let rows = 0;
  let invalid = 0;
  async function* batches(): AsyncGenerator<AreaRow[]> {
    let batch: AreaRow[] = [];
    const input = await openInput(stream, { source: file.path, column: file.postcodeColumn });
    for await (const row of input.rows) {
      rows++;
      if (!row.postcode.ok) {
        invalid++;
        continue;
      }
      const position = at ? parseCoordinates(row.cells[at.latitude], row.cells[at.longitude]) : null;
      const cells = indexes.map((i) => row.cells[i] ?? "");
      keep?.(row.postcode.compact, cells);
      batch.push({
        postcode: row.postcode.compact,
        cells,
        latitude: position?.latitude ?? null,
        longitude: position?.longitude ?? null,
      });
      if (batch.length >= BATCH) {
        yield batch;
        batch = [];
      }
    }
    yield batch;
  }
  try {
    const match = await snapshot.loadArea(batches());
    return { rows, invalid, ...match };
  } catch (err) {
    if (err instanceof ReportError) throw err;
    return fail(file.path, err);
  }
}
