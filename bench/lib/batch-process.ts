// The batch CLI (or another of src/cli) as a child process of its own (`node --import tsx
// src/cli/batch.ts`, one process, no tsx wrapper), so its memory can be measured apart from the bench's.
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { BENCH_KEY } from "./simulator-process.js";
import type { MemoryReport } from "./peak-rss-hook.js";
import { ROOT } from "./paths.js";

export interface BatchProcessResult {
  exitCode: number | null;
  seconds: number;
  /** what the process reported of its own memory on exit (null if it could not) */
  memory: MemoryReport | null;
  /** seconds since start at which a log line's message first matched, by pattern name */
  marks: Record<string, number>;
  /** the last lines of its output, for error messages */
  tail: string[];
}

export async function runBatchProcess(options: {
  args: string[];
  scratch: string;
  marks: Record<string, RegExp>;
  /** the CLI run, default src/cli/batch.ts */
  script?: string;
  /** the tree whose CLI runs (default this one's; --against runs a commit's through --cli-root) */
  root?: string;
}): Promise<BatchProcessResult> {
  const rssFile = join(options.scratch, "peak-rss.txt");
  const hook = pathToFileURL(join(ROOT, "bench/lib/peak-rss-hook.ts")).href;
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  const child = spawn(process.execPath, ["--import", "tsx", "--import", hook, options.script ?? "src/cli/batch.ts", ...options.args], {
    cwd: options.root ?? ROOT,
    env: { ...process.env, COVERAGE_API_KEY: BENCH_KEY, BENCH_PEAK_RSS_FILE: rssFile },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const marks: Record<string, number> = {};
  const tail: string[] = [];
  for (const stream of [child.stdout!, child.stderr!])
    createInterface({ input: stream }).on("line", (line) => {
      tail.push(line);
      if (tail.length > 20) tail.shift();
      for (const [name, pattern] of Object.entries(options.marks)) if (!(name in marks) && pattern.test(line)) marks[name] = elapsed();
    });
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => resolve(code));
  });
  const seconds = elapsed();
  let memory: MemoryReport | null = null;
  try {
    memory = JSON.parse(readFileSync(rssFile, "utf8")) as MemoryReport;
    rmSync(rssFile);
  } catch {
    memory = null;
  }
  return { exitCode, seconds, memory, marks, tail };
}

/**
 * The highest resident size sampled (every 500 ms), in bytes, or null if nothing was sampled. Linux
 * starts a spawned child's ru_maxrss at the resident size of the process it was forked from, so
 * after the bench has built a large database in its own process, ru_maxrss of a small child is the
 * bench's size, not the child's: compare children by this figure instead.
 */
export function sampledPeakRssBytes(r: BatchProcessResult): number | null {
  const samples = r.memory?.samples ?? [];
  return samples.length === 0 ? null : Math.max(...samples.map((s) => s[1]));
}
