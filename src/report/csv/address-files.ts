// broadband.csv, mobile.csv and coverage.csv: one row per address, sorted by PostCode then UPRN,
// rendered from the snapshot's address streams. These reach millions of rows, so each row is
// encoded by hand (csv-cells.ts) into one line (the mobile cells come as one text that needs no
// quoting: MobileCells), and lines go out in 64 KiB chunks; the stream comes in batches, so memory
// does not grow with the row count.
import { dirname, join } from "node:path";
import { SPEED_FIELDS, mobileFields } from "../../contract/fields.js";
import type { BroadbandAddressRow, Cell, MobileAddressRow, ReportSnapshot, RowBatches } from "../../store/snapshot.js";
import { encodeNumber, encodeText } from "./csv-cells.js";
import { CsvLineFile, type CsvFileOptions } from "./csv-file.js";
import { goodColumns } from "../../figures/measures.js";

const ADDRESS_COLUMNS = ["PostCode", "UPRN", "AddressShortDescription"] as const;

export function broadbandHeader(): string[] {
  return [...ADDRESS_COLUMNS, ...SPEED_FIELDS, "Tier"];
}

export function mobileHeader(providers: readonly string[]): string[] {
  return [...ADDRESS_COLUMNS, ...mobileFields(providers), ...goodColumns(providers).map((g) => g.column)];
}

export function coverageHeader(providers: readonly string[]): string[] {
  return [...broadbandHeader(), ...mobileHeader(providers).slice(ADDRESS_COLUMNS.length)];
}

const FIRST_SPEED = ADDRESS_COLUMNS.length;
const TIER = FIRST_SPEED + SPEED_FIELDS.length;

function addressCells(row: readonly Cell[]): string {
  return encodeText(row[0] as string) + "," + (row[1] as string) + "," + encodeText(row[2] as string);
}

// Speeds as JavaScript prints them (-1 stays -1, 30.5 stays 30.5); the tier is plain text.
function broadbandCells(row: readonly Cell[]): string {
  let line = "";
  for (let i = FIRST_SPEED; i < TIER; i++) line += "," + encodeNumber(row[i] as number | null);
  return line + "," + ((row[TIER] as string | null) ?? "");
}

export const ADDRESS_FILES = ["broadband.csv", "mobile.csv", "coverage.csv"] as const;
export type AddressFile = (typeof ADDRESS_FILES)[number];

/**
 * The address files asked for (name to path), written in one pass over the broadband and mobile
 * streams. Both come ordered by display postcode then UPRN (byte order in both engines, and
 * (postcode, UPRN) is each table's key), so coverage.csv is their merge: an address in both gets
 * its broadband line and its mobile cells, one in either alone the other side's cells empty, as
 * coverage.csv's own query gave. Each line's cells are encoded once and reused. Returns the row
 * counts.
 */
export async function writeAddressFiles(
  snapshot: ReportSnapshot,
  paths: Partial<Record<AddressFile, string>>,
  options: CsvFileOptions,
): Promise<Partial<Record<AddressFile, number>>> {
  const providers = snapshot.scope.providers;
  const headers: Record<AddressFile, string[]> = { "broadband.csv": broadbandHeader(), "mobile.csv": mobileHeader(providers), "coverage.csv": coverageHeader(providers) };
  const files = new Map(ADDRESS_FILES.filter((n) => paths[n] !== undefined).map((n) => [n, new CsvLineFile(paths[n]!, headers[n], options)]));
  const broadbandFile = files.get("broadband.csv");
  const mobileFile = files.get("mobile.csv");
  const coverageFile = files.get("coverage.csv");
  const b = new RowReader(broadbandFile || coverageFile ? snapshot.broadbandAddresses() : null);
  const m = new RowReader(mobileFile || coverageFile ? snapshot.mobileAddresses() : null);
  const empty = emptyCells(providers);
  try {
    // more() on both each time round: each refills its batch when used up
    while (Number(await b.more()) + Number(await m.more()) > 0) {
      // decide rows until a batch is used up (its next rows may sort before the other's)
      for (;;) {
        const br = b.row;
        const mr = m.row;
        if ((br === undefined && !b.done) || (mr === undefined && !m.done) || (br === undefined && mr === undefined)) break;
        const order = br === undefined ? 1 : mr === undefined ? -1 : compareAddresses(br, mr);
        if (order <= 0) {
          const line = addressCells(br!) + broadbandCells(br!);
          broadbandFile?.add(line);
          coverageFile?.add(line + (order === 0 ? "," + mr![3] : empty.mobile));
          b.advance();
        }
        if (order >= 0) {
          const address = addressCells(mr!);
          mobileFile?.add(address + "," + mr![3]);
          if (order > 0) coverageFile?.add(address + empty.broadband + "," + mr![3]);
          m.advance();
        }
      }
      for (const file of files.values()) await file.ready();
    }
    const counts: Partial<Record<AddressFile, number>> = {};
    for (const [name, file] of files) counts[name] = await file.finish();
    return counts;
  } catch (err) {
    for (const file of files.values()) await file.abort(err);
    throw err;
  } finally {
    await b.close();
    await m.close();
  }
}

/**
 * The address files of a report set written together, once: the first call writes every one of
 * `names` into the folder of its `path` (the set's staging folder); later calls share that write.
 */
export function addressFilesTogether(snapshot: ReportSnapshot, names: readonly AddressFile[], options: CsvFileOptions): (path: string) => Promise<unknown> {
  let pass: Promise<unknown> | undefined;
  return (path) => (pass ??= writeAddressFiles(snapshot, Object.fromEntries(names.map((n) => [n, join(dirname(path), n)])), options));
}

/** One file alone (what the report benchmark times). */
export async function writeAddressFile(snapshot: ReportSnapshot, name: AddressFile, path: string, options: CsvFileOptions): Promise<number> {
  return (await writeAddressFiles(snapshot, { [name]: path }, options))[name]!;
}

/**
 * Which of two address rows comes first, as the engines order them: display postcode byte by byte
 * (JavaScript compares UTF-16 units, the same order for the ASCII postcodes), then UPRN as a number.
 */
function compareAddresses(b: BroadbandAddressRow, m: MobileAddressRow): number {
  const pb = b[0] as string;
  if (pb !== m[0]) return pb < m[0] ? -1 : 1;
  return Number(b[1]) - Number(m[1]);
}

/** coverage.csv's cells for an address a lookup has no data for. */
function emptyCells(providers: readonly string[]): { broadband: string; mobile: string } {
  return {
    // the speeds and the tier, each after its comma
    broadband: ",".repeat(SPEED_FIELDS.length + 1),
    // the comma before the mobile cells, then one between each
    mobile: "," + ",".repeat(Math.max(0, mobileFields(providers).length + goodColumns(providers).length - 1)),
  };
}

/** A row stream read one row at a time, a batch at a time; null for a stream not read. */
class RowReader<R> {
  private batch: readonly R[] = [];
  private i = 0;
  private ended: boolean;
  private readonly it: AsyncIterator<readonly R[]> | null;

  constructor(rows: RowBatches<R> | null) {
    this.it = rows?.[Symbol.asyncIterator]() ?? null;
    this.ended = this.it === null;
  }

  /** The current row; undefined when its batch is used up (call more()) or the stream has ended. */
  get row(): R | undefined {
    return this.batch[this.i];
  }

  /** The stream has no more rows. */
  get done(): boolean {
    return this.ended && this.i >= this.batch.length;
  }

  advance(): void {
    this.i++;
  }

  /** true while rows remain: fetches the next batch when the current one is used up. */
  async more(): Promise<boolean> {
    while (this.i >= this.batch.length) {
      if (this.ended) return false;
      const next = await this.it!.next();
      if (next.done) this.ended = true;
      else {
        this.batch = next.value;
        this.i = 0;
      }
    }
    return true;
  }

  async close(): Promise<void> {
    if (!this.ended) await this.it?.return?.();
  }
}
