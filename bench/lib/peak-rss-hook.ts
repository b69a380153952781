// Preloaded into a measured child process (node --import): on exit, writes to $BENCH_PEAK_RSS_FILE
// the process's peak resident set size in bytes (getrusage's ru_maxrss, the figure /usr/bin/time -v
// reports, without needing that tool) and, every 500 ms, where its memory was: resident, V8 heap
// (total and used) and memory outside the heap (buffers, SQLite's), to say what a peak is made of;
// and its CPU time (user + system), the figure to compare on a busy machine.
import { writeFileSync } from "node:fs";

export interface MemoryReport {
  peakRssBytes: number;
  /** user + system CPU time of the whole process, in seconds */
  cpuSeconds: number;
  /** [seconds since start, rss, heapTotal, heapUsed, external + arrayBuffers] in bytes */
  samples: [number, number, number, number, number][];
}

const path = process.env.BENCH_PEAK_RSS_FILE;
if (path) {
  const samples: MemoryReport["samples"] = [];
  const started = performance.now();
  const sample = () => {
    const m = process.memoryUsage();
    samples.push([Math.round(performance.now() - started) / 1000, m.rss, m.heapTotal, m.heapUsed, m.external + m.arrayBuffers]);
  };
  setInterval(sample, 500).unref();
  process.on("exit", () => {
    sample();
    const cpu = process.cpuUsage();
    const report: MemoryReport = { peakRssBytes: process.resourceUsage().maxRSS * 1024, cpuSeconds: (cpu.user + cpu.system) / 1e6, samples };
    writeFileSync(path, JSON.stringify(report));
  });
}
