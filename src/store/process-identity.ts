// Whether the process that took a lock is still alive and still that process. A pid alone is not
// enough: a killed batch can linger as a zombie for a moment, and after a reboot its pid may belong
// to an unrelated program, which would block every nightly run. On Linux /proc tells both; elsewhere
// the pid is all there is.
import { readFileSync } from "node:fs";

interface ProcStat {
  state: string;
  ppid: number;
  /** clock ticks after boot: with the boot id, names one process for good */
  startTime: string;
}

function procStat(pid: number): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ..." where comm may itself hold spaces and parentheses.
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0] ?? "", ppid: Number(fields[1]), startTime: fields[19] ?? "" };
  } catch {
    return null;
  }
}

let bootId: string | null | undefined;
function currentBootId(): string | null {
  if (bootId === undefined) {
    try {
      bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    } catch {
      bootId = null;
    }
  }
  return bootId;
}

/** An identity for `pid` that a later process can check; null where the system gives none. */
export function processIdentity(pid: number): string | null {
  const boot = currentBootId();
  const stat = procStat(pid);
  return boot && stat ? `${boot}:${stat.startTime}` : null;
}

/** The parent of `pid`; null where there is no /proc (or no such process). */
export function parentPid(pid: number): number | null {
  return procStat(pid)?.ppid ?? null;
}

/** True while `pid` runs (not a zombie) and, when an identity was recorded, is the same process. */
export function processAlive(pid: number, identity: string | null = null): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const stat = procStat(pid);
  if (stat === null) return true; // no /proc: the pid answering is all we can know
  if (stat.state === "Z" || stat.state === "X") return false;
  return identity === null || identity === processIdentity(pid);
}
