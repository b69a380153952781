// One writer per output folder (the report set's --out, the export's --out). The lock is a file
// created with O_EXCL (atomic on local filesystems and on NFS v3+, so it also holds when two hosts
// share the folder), naming the holder's host, pid, process identity and start time, and an expiry
// the holder renews while it writes. It is stale only when it has expired (any host: a host that
// died cannot renew) or its holder is on this host and no longer running (no need to wait out the
// expiry after a kill). A stale lock is moved aside under a name of our own and checked to be the
// one we judged stale before it is deleted, so two writers taking it over at once cannot both win.
import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, closeSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { processAlive, processIdentity } from "../store/process-identity.js";
import { causeOf, OutputError } from "./output-error.js";

export const OUT_LOCK_FILE = ".writer-lock";
/** A lock not renewed for this long is stale, whoever holds it. */
const LOCK_TTL_MS = 120_000;

export interface LockOwner {
  host: string;
  pid: number;
  /** boot id and start time (process-identity.ts); null where the system gives none */
  identity: string | null;
  /** what holds it: "batch", "report", "export" */
  command: string;
  startedAt: string;
  expiresAt: string;
}

/** --out is being written by another live process. */
export class OutLockedError extends OutputError {}

export interface OutLockOptions {
  command: string;
  now?: () => number;
  ttlMs?: number;
  /** how often the holder renews the expiry (default a quarter of the TTL) */
  renewMs?: number;
  /** runs `renew` every `everyMs` until the returned function is called (default an unref'd setInterval; tests drive it by hand) */
  schedule?: (renew: () => void, everyMs: number) => () => void;
  host?: string;
  isAlive?: (pid: number, identity: string | null) => boolean;
}

export interface OutLock {
  readonly owner: LockOwner;
  /** throws when the lock file is no longer this holder's (it expired and another writer took it) */
  assertHeld(): void;
  /** stops renewing and removes the lock file if it is still ours; never throws */
  release(): void;
}

/** Whether a recorded owner is gone: expired, or on this host and not running. Pure apart from isAlive. */
export function isStale(owner: LockOwner, now: number, host: string, isAlive: (pid: number, identity: string | null) => boolean): boolean {
  if (!(Date.parse(owner.expiresAt) > now)) return true;
  return owner.host === host && !isAlive(owner.pid, owner.identity);
}

function readOwner(path: string): LockOwner | null {
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as LockOwner;
    return typeof value.pid === "number" && typeof value.host === "string" ? value : null;
  } catch {
    return null;
  }
}

function describeOwner(o: LockOwner): string {
  return `${o.command} pid ${o.pid} on ${o.host}, since ${o.startedAt}`;
}

/** Takes the lock of `dir` (created if missing) or throws OutLockedError naming the holder. */
export function acquireOutLock(dir: string, options: OutLockOptions): OutLock {
  const now = options.now ?? Date.now;
  const ttl = options.ttlMs ?? LOCK_TTL_MS;
  const host = options.host ?? hostname();
  const isAlive = options.isAlive ?? processAlive;
  const path = join(dir, OUT_LOCK_FILE);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new OutputError(`cannot write to ${dir}: ${causeOf(err)}`);
  }
  const owner: LockOwner = {
    host,
    pid: process.pid,
    identity: processIdentity(process.pid),
    command: options.command,
    startedAt: new Date(now()).toISOString(),
    expiresAt: new Date(now() + ttl).toISOString(),
  };
  createLockFile(dir, path, owner, (held) => (held ? isStale(held, now(), host, isAlive) : olderThan(path, now() - ttl)));
  const renew = () => renewLock(path, owner, () => new Date(now() + ttl).toISOString());
  const stopRenewing = (options.schedule ?? everyInterval)(renew, options.renewMs ?? Math.max(1, Math.floor(ttl / 4)));
  const ours = () => {
    const o = readOwner(path);
    return o !== null && o.pid === owner.pid && o.host === owner.host && o.startedAt === owner.startedAt;
  };
  return {
    owner,
    assertHeld: () => {
      if (!ours()) throw new OutLockedError(`lost the lock of ${dir} (it expired and another process took it): the set was not put in place`);
    },
    release: () => {
      stopRenewing();
      try {
        if (ours()) rmSync(path, { force: true });
      } catch {
        // nothing to release, or the folder is gone
      }
    },
  };
}

/**
 * Creates the lock file holding `owner`, taking over a stale one (at most three times); throws
 * OutLockedError naming the holder of a live one. `stale` judges a holder (null: the file is unreadable).
 */
function createLockFile(dir: string, path: string, owner: LockOwner, stale: (held: LockOwner | null) => boolean): void {
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o644);
      try {
        writeSync(fd, JSON.stringify(owner) + "\n");
      } finally {
        closeSync(fd);
      }
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw new OutputError(`cannot write to ${dir}: ${causeOf(err)}`);
    }
    const held = readOwner(path);
    // An unreadable lock file is one being written this instant, or debris of a kill between create
    // and write: it is stale once it is older than the TTL.
    if (!stale(held) || attempt >= 3)
      throw new OutLockedError(
        `${dir} is being written by another process (${held ? describeOwner(held) : "unknown holder"}); ` +
          `wait for it to finish (the lock in ${path} expires ${held ? `at ${held.expiresAt}` : "after 2 minutes"} if its holder died)`,
      );
    takeOverStale(path, held);
  }
}

/** Moves the lock's expiry to `expiresAt()`, by one rename, while the file is still `owner`'s. */
function renewLock(path: string, owner: LockOwner, expiresAt: () => string): void {
  if (readOwner(path)?.pid !== owner.pid || readOwner(path)?.startedAt !== owner.startedAt) return;
  owner.expiresAt = expiresAt();
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, JSON.stringify(owner) + "\n");
    renameSync(temporary, path);
  } catch {
    // a full disk: the lock keeps its earlier expiry; assertHeld notices if it was taken meanwhile
    rmSync(temporary, { force: true });
  }
}

function olderThan(path: string, time: number): boolean {
  try {
    return statSync(path).mtimeMs < time;
  } catch {
    return true; // gone already: try again
  }
}

/** Moves the stale lock aside; if what was moved is not the lock judged stale, puts it back. */
function takeOverStale(path: string, judged: LockOwner | null): void {
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    renameSync(path, aside);
  } catch {
    return; // another writer moved it first: try to create again
  }
  const moved = readOwner(aside);
  const same = judged === null ? moved === null : moved !== null && moved.pid === judged.pid && moved.startedAt === judged.startedAt;
  if (!same) {
    // a live writer's lock, created between our read and our rename: give it back (link never overwrites)
    try {
      linkSync(aside, path);
    } catch {
      // a third writer created one meanwhile; the live writer notices in assertHeld
    }
  }
  rmSync(aside, { force: true });
}

/** Runs `work` holding the lock of `dir`; the lock is released whatever happens. */
export async function withOutLock<T>(dir: string, options: OutLockOptions, work: (lock: OutLock) => Promise<T>): Promise<T> {
  const lock = acquireOutLock(dir, options);
  try {
    return await work(lock);
  } finally {
    lock.release();
  }
}

/** A timer that does not keep the process alive. */
function everyInterval(fn: () => void, ms: number): () => void {
  const timer = setInterval(fn, ms);
  timer.unref();
  return () => clearInterval(timer);
}
