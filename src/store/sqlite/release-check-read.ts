// The last check of a lookup's release as recorded: when, how (a probe round or answers) and by
// which run, for tests and tools that must tell why a night sent no probe.
import type { Lookup } from "../../spec/fields.js";
import type { CheckedBy, ReleaseCheck } from "../types.js";
import { tableExists, type Db } from "./db.js";

export function lastReleaseCheckRecord(db: Db, lookup: Lookup): ReleaseCheck | null {
  if (!tableExists(db, "release_checks")) return null;
  const row = db.prepare("SELECT checked_at, how, run_id FROM release_checks WHERE lookup = ?").get(lookup) as
    | { checked_at: string; how: CheckedBy; run_id: number }
    | undefined;
  return row ? { lookup, at: row.checked_at, how: row.how, runId: row.run_id } : null;
}
