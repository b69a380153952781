// One batch per database. The lock is a row naming the holder's pid and host; a lock whose
// process is gone (killed run) is taken over.
import { hostname } from "node:os";
import type { Db } from "./db.js";

export class LockedError extends Error {}

interface LockRow {
  pid: number;
  host: string;
  run_id: number | null;
  started_at: string;
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export interface LockTaken {
  /** the holder whose lock was taken over because its process is gone; null when the lock was free */
  previous: { pid: number; runId: number | null } | null;
}

/** Takes the lock or throws LockedError. A lock whose process is gone (a killed run) is taken over. */
export function acquireLock(db: Db, at: string, isAlive: (pid: number) => boolean = processAlive): LockTaken {
  const host = hostname();
  return db
    .transaction(() => {
      const held = db.prepare("SELECT pid, host, run_id, started_at FROM batch_lock WHERE id = 1").get() as LockRow | undefined;
      if (held && held.pid !== process.pid) {
        // On another host we cannot see the process; treat the lock as live rather than risk two writers.
        if (held.host !== host || isAlive(held.pid))
          throw new LockedError(
            `another batch (pid ${held.pid} on ${held.host}, run ${held.run_id ?? "?"}, since ${held.started_at}) is using this database; ` +
              "wait for it to finish or use another --db",
          );
      }
      db.prepare(
        "INSERT INTO batch_lock (id, pid, host, run_id, started_at) VALUES (1, ?, ?, NULL, ?) " +
          "ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, host = excluded.host, run_id = NULL, started_at = excluded.started_at",
      ).run(process.pid, host, at);
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
