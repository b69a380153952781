// Opening the store: the location picks the engine. A path is SQLite (the default, nothing to
// install); issue 21 adds postgres:// here. A second engine plugs in here and in the contract
// suite's engine list (test/store-contract/engines.ts).
import type { Store } from "./store.js";
import { namingPath } from "./sqlite/db.js";
import { openSqliteStore } from "./sqlite/sqlite-store.js";
import type { LeaseHolder } from "./types.js";
import { isPostgresUrl } from "./postgres/url.js";

export interface OpenStoreOptions {
  /** read only: never creates, migrates or changes the store (status) */
  readonly?: boolean;
  /** with `readonly`: a database of an older schema is migrated first when its user may write it (report) */
  upgrade?: boolean;
  /** whether a lease holder on this host still runs (tests inject one; default: process-identity.ts) */
  isAlive?: ((holder: LeaseHolder) => boolean) | undefined;
}

/** Opens (creating and migrating unless read only) the store at `location`. Throws DatabaseError naming it. */
export async function openStore(location: string, options: OpenStoreOptions = {}): Promise<Store> {
  // loaded only for a URL: a SQLite user never loads pg
  if (isPostgresUrl(location)) return (await import("./postgres/postgres-store.js")).openPostgresStore(location, options);
  return openSqliteStore(location, options);
}

/** A failure of the store as a DatabaseError naming it, where the engine can tell one (else the error as it is). */
export function storeError(err: unknown, location: string): Error {
  return namingPath(err, location);
}
