// Opening the store: the location picks the engine. A path is SQLite (the default, nothing to
// install); a postgres:// or postgresql:// URL is PostgreSQL. A second engine plugs in here and in the contract
// suite's engine list (test/store-contract/engines.ts).
import type { Store } from "./store.js";
import { namingPath } from "./sqlite/db.js";
import { openSqliteStore } from "./sqlite/sqlite-store.js";
import type { OpenStoreOptions } from "./types.js";
import { namingUrl } from "./postgres/errors.js";
import { isPostgresUrl } from "./postgres/url.js";

export type { OpenStoreOptions } from "./types.js";

/** Opens (creating and migrating unless read only) the store at `location`. Throws DatabaseError naming it. */
export async function openStore(location: string, options: OpenStoreOptions = {}): Promise<Store> {
  if (isPostgresUrl(location)) {
    // loaded only for a URL: SQLite users never load the PostgreSQL client
    const { openPostgresStore } = await import("./postgres/postgres-store.js");
    return openPostgresStore(location, options);
  }
  return openSqliteStore(location, options);
}

/** A failure of the store as a DatabaseError naming it, where the engine can tell one (else the error as it is). */
export function storeError(err: unknown, location: string): Error {
  return isPostgresUrl(location) ? namingUrl(err, location) : namingPath(err, location);
}
