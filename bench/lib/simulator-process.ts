// The simulator as a child process (`src/cli/simulate.ts --port 0`), ready once it prints
// `listening <url>`. A separate process gives the simulator its own event loop and its own core on
// a 2-core machine, so a scenario's figure measures the client, and the client's CPU time
// (process.cpuUsage) is not mixed with the server's.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { ROOT } from "./paths.js";

/** Flags of `npm run simulate`, camel-cased as in its yargs definition (e.g. failRate → --fail-rate). */
export interface SimulatorFlags {
  seed?: string;
  dialect?: "spec" | "live";
  key?: string;
  rateLimit?: number;
  rateWindowMs?: number;
  failRate?: number;
  resetRate?: number;
  stallRate?: number;
  latency?: number;
  jitter?: number;
}

export interface SimulatorProcess {
  url: string;
  pid: number;
  /** user + system CPU seconds the simulator has used so far (Linux /proc; null elsewhere) */
  cpuSeconds(): number | null;
  stop(): Promise<void>;
}

/** The key the bench's simulators take and its batches send: as long as a real key, which the batch checks for. */
export const BENCH_KEY = "bench-key-0123456789-abcdefghijk";

export async function startSimulatorProcess(flags: SimulatorFlags = {}): Promise<SimulatorProcess> {
  const args = ["--import", "tsx", "src/cli/simulate.ts", "--port", "0"];
  for (const [name, value] of Object.entries({ key: BENCH_KEY, ...flags })) {
    if (value === undefined) continue;
    args.push(`--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, String(value));
  }
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const fail = (why: string) => reject(new Error(`simulator child process ${why}`));
    child.once("error", (err) => fail(`failed to start: ${err.message}`));
    child.once("exit", (code) => fail(`exited (code ${code}) before listening`));
    lines.on("line", (line) => {
      const m = /^listening (\S+)$/.exec(line);
      if (m?.[1]) resolve(m[1]);
    });
  });
  child.stdout!.resume(); // keep draining its later lines
  child.removeAllListeners("exit");
  return { url, pid: child.pid!, cpuSeconds: () => processCpuSeconds(child.pid!), stop: () => stopChild(child) };
}

/** utime + stime of a process, from /proc/<pid>/stat (fields 14 and 15, in clock ticks). */
export function processCpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may contain spaces; fields after it follow its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks / CLOCK_TICKS_PER_SECOND : null;
  } catch {
    return null;
  }
}

/** USER_HZ: 100 on every Linux architecture Node supports. */
const CLOCK_TICKS_PER_SECOND = 100;

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
