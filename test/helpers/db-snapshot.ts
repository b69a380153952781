// A database's stored answers as plain data, to compare two runs: read through the store's
// interface (helpers/stored.ts), as every engine gives them.
import { storedTable, withStore } from "./stored.js";

export interface Snapshot {
  lookups: unknown[];
  broadband: unknown[];
  mobile: unknown[];
}

export function snapshot(path: string, options: { dropDataset?: boolean } = {}): Promise<Snapshot> {
  return withStore(path, async (store) => ({
    lookups: (await storedTable(store, "postcodes")).map((l) => ({
      postcode: l.postcode,
      lookup: l.lookup,
      status: l.status,
      http_status: l.http_status,
      ...(options.dropDataset ? {} : { dataset: l.dataset }),
      address_count: l.address_count,
    })),
    broadband: await storedTable(store, "broadband"),
    mobile: await storedTable(store, "mobile"),
  }));
}
