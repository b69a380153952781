// Runs `tsx src/cli/batch.ts` as a child process, optionally SIGKILLing it at a chosen moment.
// The child gets its own process group and the kill goes to the whole group: tsx runs the script
// in a node process of its own, and killing only tsx would leave that one running (and holding
// the database lock), which is not what a machine losing the job looks like.
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export interface BatchInvocation {
  /** the project root: where node_modules/.bin/tsx and src/cli/batch.ts are */
  root: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** stdout and stderr of the child are appended here */
  logPath: string;
  /** told the child's process group once it runs (the pause step stops and resumes it) */
  onStart?: (pgid: number) => void;
}

export interface KillTrigger {
  /** polled every few ms; true once the moment has come */
  due(): boolean;
  /** wait this long after due() before the kill */
  delayMs: number;
}

export interface BatchExit {
  /** exit code, null when killed by a signal */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** true when we killed it (trigger or timeout) */
  killed: boolean;
  timedOut: boolean;
  ms: number;
}

const running = new Set<number>();

/** SIGKILLs every batch process group still running (for the soak's own Ctrl-C). */
export function killAllBatches(): void {
  for (const pgid of running) killGroup(pgid);
}

export async function runBatchProcess(inv: BatchInvocation, trigger: KillTrigger | null, timeoutMs: number): Promise<BatchExit> {
  const started = Date.now();
  const log = openSync(inv.logPath, "a");
  const child = spawn(join(inv.root, "node_modules", ".bin", "tsx"), ["src/cli/batch.ts", ...inv.args], {
    cwd: inv.root,
    env: inv.env,
    detached: true,
    stdio: ["ignore", log, log],
  });
  closeSync(log);
  const pgid = child.pid;
  if (pgid === undefined) throw new Error("could not start the batch (no pid)");
  running.add(pgid);
  inv.onStart?.(pgid);

  let killed = false;
  let timedOut = false;
  const kill = () => {
    if (killed) return;
    killed = true;
    killGroup(pgid);
  };
  let poll: NodeJS.Timeout | undefined;
  if (trigger)
    poll = setInterval(() => {
      if (!trigger.due()) return;
      clearInterval(poll);
      if (trigger.delayMs > 0) setTimeout(kill, trigger.delayMs);
      else kill();
    }, 2);
  const deadline = setTimeout(() => {
    timedOut = true;
    kill();
  }, timeoutMs);

  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (c, s) => resolve({ code: c, signal: s }));
  });
  clearInterval(poll);
  clearTimeout(deadline);
  // tsx's own child, orphaned by the kill, lingers as a zombie until init reaps it (over a second
  // on some machines), and the batch's lock counts a zombie holder as alive: wait until the whole
  // group is gone, so that the restart meets a dead lock holder as after a real crash.
  if (killed) await groupGone(pgid);
  running.delete(pgid);
  return { code, signal, killed, timedOut, ms: Date.now() - started };
}

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGKILL");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
  }
}

async function groupGone(pgid: number): Promise<void> {
  for (let i = 0; i < 1500; i++) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    await sleep(10);
  }
  throw new Error(`batch process group ${pgid} still present 15 s after SIGKILL`);
}
