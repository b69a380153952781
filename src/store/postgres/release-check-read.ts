// The last check of a lookup's release as recorded, on PostgreSQL: when, how (a probe round or
// answers) and by which run.
import type { Lookup } from "../../spec/fields.js";
import type { CheckedBy, ReleaseCheck } from "../types.js";
import type { ReleaseCheckStore } from "../store.js";
import { rowOf, type Queryable } from "./connect.js";

export async function lastReleaseCheckRecord(q: Queryable, lookup: Lookup): Promise<ReleaseCheck | null> {
  const row = await rowOf<{ checked_at: string; how: CheckedBy; run_id: string | number }>(q, "SELECT checked_at, how, run_id FROM release_checks WHERE lookup = $1", [lookup]);
  return row ? { lookup, at: row.checked_at, how: row.how, runId: Number(row.run_id) } : null;
}

/** The engine's release-check members with this read beside them. */
export function withLastCheck(q: Queryable, checks: Omit<ReleaseCheckStore, "lastCheck">): ReleaseCheckStore {
  return { ...checks, lastCheck: (lookup) => lastReleaseCheckRecord(q, lookup) };
}
