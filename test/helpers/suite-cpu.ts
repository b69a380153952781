// With SUITE_CPU_LOG=FILE, vitest.config.ts loads this before every test file: it appends a line per
// file to FILE (path, CPU seconds of the worker process, CPU seconds of the child processes it waited
// for, wall seconds, its start in Unix seconds, the worker's pid), from the file's import to its last
// hook. The suite is CPU-bound on 2 cores, so this, not wall time under contention, says which files
// to make cheaper.
import { appendFileSync, readFileSync } from "node:fs";
import { afterAll, expect } from "vitest";

/** utime, stime, cutime, cstime of this process, in clock ticks of 1/100 s (/proc/self/stat; USER_HZ is 100 on Linux). */
function ticks(): number[] {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  return fields.slice(11, 15).map(Number);
}

const log = process.env.SUITE_CPU_LOG!;
const start = ticks();
const started = Date.now();

afterAll(() => {
  const end = ticks();
  const seconds = (i: number) => (end[i]! - start[i]!) / 100;
  const line = [expect.getState().testPath, (seconds(0) + seconds(1)).toFixed(2), (seconds(2) + seconds(3)).toFixed(2), ((Date.now() - started) / 1000).toFixed(1), (started / 1000).toFixed(1), String(process.pid)];
  appendFileSync(log, line.join("\t") + "\n");
});
