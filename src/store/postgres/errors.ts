// The PostgreSQL engine's failures as one-line DatabaseErrors naming the database by its URL
// without password. No pg import: open-store.ts names errors without loading the client.
import { oneLine, UserError } from "../../errors.js";
import { DatabaseError } from "../types.js";
import { redactUrl } from "./url.js";

/** A failure of the server or the connection (it carries a code, or pg says the connection ended), not a bug. */
export function isDatabaseFailure(err: unknown): boolean {
  if (!(err instanceof Error) || err instanceof UserError) return false;
  return typeof (err as { code?: unknown }).code === "string" || /^Connection terminated|^timeout exceeded when trying to connect/.test(err.message);
}

/** A failure of the database as a one-line DatabaseError naming it (`location`: its URL without password). */
export function databaseError(err: unknown, location: string, what = "database"): Error {
  if (err instanceof DatabaseError) return err;
  const code = (err as { code?: unknown }).code;
  const coded = typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? ` (${code})` : "";
  return new DatabaseError(`${what} ${location}: ${oneLine(err)}${coded}${endedByServer(err, code) ? ENDED : ""}`, { cause: err });
}

const ENDED = "; the server ended the connection (restarted, shut down, or an administrator ended the session): run the command again once it is back";

/** Whether the connection was ended from the server's side: admin shutdown codes (57P0x) or pg's word for a vanished connection. */
function endedByServer(err: unknown, code: unknown): boolean {
  if (typeof code === "string" && /^57P0[1-3]$/.test(code)) return true;
  return err instanceof Error && /Connection terminated|connection error and is not queryable|ECONNRESET|server closed the connection/i.test(err.message);
}

/** What storeError gives for a PostgreSQL store: its failures named, anything else (a bug) as it is. */
export function namingUrl(err: unknown, url: string): Error {
  if (err instanceof UserError) return err;
  if (isDatabaseFailure(err)) return databaseError(err, redactUrl(url));
  return err instanceof Error ? err : new Error(String(err));
}
