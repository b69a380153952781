// One batch per database. The lock is a row naming the holder's pid and host; a lock whose
// process is gone (killed run) is taken over.
import { hostname } from "node:os";
import type { Db } from "./db.js";
import { processAlive, processIdentity } from "../process-identity.js";
import { UserError } from "../../errors.js";

export { processAlive } from "../process-identity.js";

export class LockedError extends UserError {}

interface LockRow {
  pid: number;
  process: string | null;
  host: string;
  run_id: number | null;
  started_at: string;
}

export interface LockTaken {
  /** the holder whose lock was taken over because its process is gone; null when the lock was free */
  previous: { pid: number; runId: number | null } | null;
}

/** Takes the lock or throws LockedError. A lock whose process is gone (a killed run) is taken over. */
export function acquireLock(db: Db, at: string, isAlive: (pid: number, identity: string | null) => boolean = processAlive): LockTaken {
  const host = hostname();
  return db
    .transaction(() => {
      const held = db.prepare("SELECT pid, process, host, run_id, started_at FROM batch_lock WHERE id = 1").get() as LockRow | undefined;
      if (held && held.pid !== process.pid) {
        // On another host we cannot see the process; treat the lock as live rather than risk two writers.
        if (held.host !== host || isAlive(held.pid, held.process))
          throw new LockedError(
            `another batch (pid ${held.pid} on ${held.host}, run ${held.run_id ?? "?"}, since ${held.started_at}) is using this database; ` +
              "wait for it to finish or use another --db",
          );
      }
      db.prepare(
        "INSERT INTO batch_lock (id, pid, process, host, run_id, started_at) VALUES (1, ?, ?, ?, NULL, ?) " +
          "ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, process = excluded.process, host = excluded.host, run_id = NULL, " +
          "started_at = excluded.started_at",
      ).run(process.pid, processIdentity(process.pid), host, at);
      return { previous: held && held.pid !== process.pid ? { pid: held.pid, runId: held.run_id } : null };
    })
    .immediate();
}

export function setLockRun(db: Db, runId: number): void {
  db.prepare("UPDATE batch_lock SET run_id = ? WHERE id = 1 AND pid = ?").run(runId, process.pid);
}

export function releaseLock(db: Db): void {
  db.prepare("DELETE FROM batch_lock WHERE id = 1 AND pid = ?").run(process.pid);
}
