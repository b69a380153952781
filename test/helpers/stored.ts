// What a store holds, read through its interface (openStore, the snapshot's export rows), never by
// SQL of the test's own: a test reads the same on either engine and does not break when an
// engine's tables or modules move.
import { EXPORT_TABLES, type ExportTableName } from "../../src/figures/export-tables.js";
import { openStore, type OpenStoreOptions } from "../../src/store/open-store.js";
import type { Cell, InputRow, ReportSnapshot, ScopeRequest } from "../../src/store/snapshot.js";
import type { Store } from "../../src/store/store.js";

/** Opens the store at `location` (read only unless told), runs `work` on it, and closes it. */
export async function withStore<T>(location: string, work: (store: Store) => Promise<T>, options: OpenStoreOptions = { readonly: true }): Promise<T> {
  const store = await openStore(location, options);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** A row of an export table by column name (src/figures/export-tables.ts): PostCode in display form, and `postcode` its compact form as the store keys it. */
export type StoredRow = Record<string, Cell>;

/**
 * One export table's rows as the store gives them (key order: address tables by postcode then
 * UPRN, postcodes by postcode then lookup, runs and releases by id), over everything stored
 * unless `scope` says otherwise, hidden what the retention expires by its `nowMs` (default now). Mobile rows hold the ratings of the scope's providers.
 */
export async function storedTable(location: string | Store, table: ExportTableName, scope: Omit<ScopeRequest, "nowMs"> & { nowMs?: number } = { all: true }): Promise<StoredRow[]> {
  return (await storedTables(location, [table], scope))[table]!;
}

/** Several export tables, as storedTable reads each, all from one snapshot of the store: one consistent state, and one snapshot's cost. */
export async function storedTables<T extends ExportTableName>(
  location: string | Store,
  tables: readonly T[],
  scope: Omit<ScopeRequest, "nowMs"> & { nowMs?: number } = { all: true },
): Promise<Record<T, StoredRow[]>> {
  if (typeof location === "string") return withStore(location, (store) => storedTables(store, tables, scope));
  return location.snapshot({ ...scope, nowMs: scope.nowMs ?? Date.now() }, async (snapshot) => {
    const held = await snapshot.exportTables();
    const read = {} as Record<T, StoredRow[]>;
    for (const table of tables) read[table] = held.includes(table) ? await tableRows(snapshot, table) : [];
    return read;
  });
}

async function tableRows(snapshot: ReportSnapshot, table: ExportTableName): Promise<StoredRow[]> {
  const names = EXPORT_TABLES.find((t) => t.name === table)!
    .columns(snapshot.scope.providers)
    .map((c) => c.name);
  const rows: StoredRow[] = [];
  for await (const batch of snapshot.exportRows(table, snapshot.scope.providers))
    for (const cells of batch) {
      const row: StoredRow = Object.fromEntries(names.map((name, i) => [name, cells[i] ?? null]));
      if (row.PostCode !== undefined) row.postcode = compact(row.PostCode);
      rows.push(row);
    }
  return rows;
}

/** A run's input rows as stored (line, value, compact postcode, reason, cells as JSON), in line order. */
export async function storedInputRows(location: string | Store, runId: number): Promise<InputRow[]> {
  if (typeof location === "string") return withStore(location, (store) => storedInputRows(store, runId));
  return location.snapshot({ runId, nowMs: Date.now() }, async (snapshot) => {
    const rows: InputRow[] = [];
    for await (const batch of snapshot.inputRows()) rows.push(...batch);
    return rows;
  });
}

/** The compact form of a display postcode (CF10 1AA -> CF101AA), as the store keys it. */
export const compact = (postcode: Cell | undefined): string => String(postcode).replace(/ /g, "");
