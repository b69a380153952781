// When each lookup's release was last checked: by a probe round, or by answers the run fetched
// that tell as much (plan/probe-rule.ts decides which). The planner reads it to send at most one
// probe round per lookup a day.
import type { Lookup } from "../../spec/fields.js";
import { tableExists, type Db } from "./db.js";
import type { CheckedBy } from "../types.js";

export type { CheckedBy } from "../types.js";

/** The last check of the lookup's release (ISO), or null when there was none. */
export function lastReleaseCheck(db: Db, lookup: Lookup): string | null {
  if (!tableExists(db, "release_checks")) return null;
  return (db.prepare("SELECT checked_at FROM release_checks WHERE lookup = ?").pluck().get(lookup) as string | undefined) ?? null;
}

export function recordReleaseCheck(db: Db, check: { lookup: Lookup; at: string; how: CheckedBy; runId: number }): void {
  db.prepare(
    `INSERT INTO release_checks (lookup, checked_at, how, run_id) VALUES (@lookup, @at, @how, @runId)
     ON CONFLICT (lookup) DO UPDATE SET checked_at = excluded.checked_at, how = excluded.how, run_id = excluded.run_id`,
  ).run(check);
}

/** Whether the run stored a mobile answer that names its release (DBName): what a probe would have told. */
export function runStoredNamedRelease(db: Db, runId: number, lookup: Lookup): boolean {
  return (
    db.prepare("SELECT EXISTS (SELECT 1 FROM lookups WHERE run_id = ? AND lookup = ? AND status = 'ok' AND dataset IS NOT NULL)").pluck().get(runId, lookup) === 1
  );
}
