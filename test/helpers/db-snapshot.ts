// A database's stored answers as plain data, to compare two runs.
import { openDatabase } from "../../src/store/sqlite/db.js";

export interface Snapshot {
  lookups: unknown[];
  broadband: unknown[];
  mobile: unknown[];
}

export function snapshot(path: string, options: { dropDataset?: boolean } = {}): Snapshot {
  const db = openDatabase(path, { readonly: true });
  try {
    return {
      lookups: db
        .prepare(
          `SELECT postcode, lookup, status, http_status, ${options.dropDataset ? "" : "dataset,"} address_count
             FROM lookups ORDER BY postcode, lookup`,
        )
        .all(),
      broadband: db.prepare("SELECT * FROM broadband_addresses ORDER BY postcode, uprn").all(),
      mobile: db.prepare("SELECT * FROM mobile_addresses ORDER BY postcode, uprn").all(),
    };
  } finally {
    db.close();
  }
}
