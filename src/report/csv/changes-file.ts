// changes.csv: one row per change the figures found (changes/changes.ts), in their order.
import type { ChangeSet } from "../changes/changes.js";
import { writeCsv, type CsvFileOptions } from "./csv-file.js";

export const CHANGES_HEADER = ["PostCode", "UPRN", "AddressShortDescription", "Lookup", "Change", "Before", "After", "BeforeRelease", "AfterRelease"] as const;

export function writeChangesCsv(changes: ChangeSet, path: string, options: CsvFileOptions): Promise<number> {
  return writeCsv(
    path,
    CHANGES_HEADER,
    changes.rows.map((c) => [c.postcode, String(c.uprn), c.address, c.lookup, c.change, c.before, c.after, c.beforeRelease, c.afterRelease]),
    options,
  );
}
