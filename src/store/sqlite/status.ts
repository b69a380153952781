// What `npm run status` reads on SQLite: the figures written once (sql/status.ts), run
// synchronously (the caller hides expired answers around them), and the lock: the newest lease
// (SQLite holds one at most), live or left by a killed batch.
import type { Db } from "./db.js";
import type { DatabaseStatus, LookupReleases } from "../types.js";
import { releaseStatusSteps, storedFiguresSteps } from "../sql/status.js";
import { writtenBySteps } from "../sql/tool-version.js";
import { SQLITE_DIALECT } from "./dialect.js";
import { allLeases, leaseLive, type IsAlive } from "./leases.js";
import { SCHEMA_VERSION } from "./schema.js";
import { runStepsNow } from "./transact.js";

export type { DatabaseStatus, RunSummary } from "../types.js";

/** `here` is this host's name; `isAlive` tells whether a holder on it still runs. */
export function databaseStatus(db: Db, recentRuns: number, nowMs: number, here: string, isAlive: IsAlive): DatabaseStatus {
  const leases = allLeases(db);
  const newest = leases.at(-1);
  const live = leases.filter((l) => leaseLive({ ...l.holder, expires_ms: l.expiresMs }, nowMs, here, isAlive)).map(({ expiresMs: _e, ...l }) => l);
  return {
    schemaVersion: db.pragma("user_version", { simple: true }) as number,
    schemaLatest: SCHEMA_VERSION,
    writtenBy: runStepsNow(db, writtenBySteps(SQLITE_DIALECT)),
    ...runStepsNow(db, storedFiguresSteps(recentRuns, new Set(live.map((l) => l.id)))),
    lock: newest
      ? { pid: newest.holder.pid, host: newest.holder.host, run_id: newest.runId, started_at: newest.takenAt, alive: newest.holder.host === here ? isAlive(newest.holder) : null }
      : null,
    leases: live,
  };
}

export const releaseStatus = (db: Db): LookupReleases[] => runStepsNow(db, releaseStatusSteps(SQLITE_DIALECT));
