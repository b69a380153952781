// Memory: 100,000 input postcodes through the batch and its reports, in a process of its own (the
// CLI, as cron runs it); its peak resident memory must stay under 300 MB. Input streams, answers
// are stored as they come and reports stream from SQLite, so the peak should not grow with the input.
import { join } from "node:path";
import { runBatchProcess } from "../lib/batch-process.js";
import { writePostcodeCsv } from "../lib/input-file.js";
import { scratchDir } from "../lib/paths.js";
import { below, check, skippedCheck, type BenchContext, type Scenario } from "../lib/scenario.js";
import { startSimulatorProcess } from "../lib/simulator-process.js";
import { round, scaled, thousands } from "../lib/stats.js";

const MB = 2 ** 20;
const LIMIT_MB = 300;

export const memory: Scenario = {
  name: "memory",
  async run(ctx: BenchContext) {
    const n = scaled(100_000, ctx.quick, 0.2);
    const scratch = scratchDir("memory");
    const sim = await startSimulatorProcess({ seed: "bench" });
    try {
      const input = writePostcodeCsv(scratch.dir, n);
      ctx.log(`memory: ${thousands(n)} postcodes through batch and reports, in a child process`);
      const run = await runBatchProcess({
        scratch: scratch.dir,
        args: [
          "--in", input,
          "--db", join(scratch.dir, "coverage.sqlite"),
          "--out", join(scratch.dir, "out"),
          "--base-url", sim.url,
          "--concurrency", "16",
          "--rate", "1000000000",
          "--no-progress",
          "--log-format", "json",
        ],
        marks: { fetching: /"event":"plan"/, reportsWritten: /reports written/ },
      });
      if (run.exitCode !== 0)
        throw new Error(`memory: the batch exited ${run.exitCode}:\n${run.tail.join("\n")}`);
      const samples = run.memory?.samples ?? [];
      const peakSample = samples.reduce<(typeof samples)[number] | null>((best, x) => (best === null || x[1] > best[1] ? x : best), null);
      const peakBytes = run.memory?.peakRssBytes ?? null;
      const mb = (bytes: number) => Math.round(bytes / MB);
      const notes: string[] = [];
      if (peakBytes !== null && peakSample !== null && peakBytes / MB >= LIMIT_MB) {
        const [at, rss, heapTotal, heapUsed, outside] = peakSample;
        const fetchingAt = run.marks.fetching ?? 0;
        const inUse = samples.filter(([t]) => t >= fetchingAt).map((x) => x[3]);
        notes.push(
          `memory: peak ${mb(peakBytes)} MB. At the highest sample (${mb(rss)} MB resident, about ${round(at, 1)} s into the run; fetching ` +
            `began at about ${round(fetchingAt, 1)} s and the reports were done at about ${round(run.marks.reportsWritten ?? NaN, 1)} s) ` +
            `the V8 heap held ${mb(heapTotal)} MB (${mb(heapUsed)} MB in use), buffers and other memory outside it ${mb(outside)} MB, ` +
            `and the rest (code, SQLite's cache, allocator slack) ${mb(rss - heapTotal - outside)} MB. From the start of fetching, the ` +
            `heap in use ranged from ${mb(Math.min(...inUse))} to ${mb(Math.max(...inUse))} MB; bench.json has the timeline.`,
        );
      }
      return {
        setup: `${thousands(n)} postcodes × 2 lookups, batch CLI in a child process, --concurrency 16, no pacing, reports on`,
        checks: [
          peakBytes === null
            ? skippedCheck("peak resident memory of the batch process", below(LIMIT_MB, `< ${LIMIT_MB} MB`), "peak RSS unavailable on this platform")
            : check("peak resident memory of the batch process", peakBytes / MB, `${Math.round(peakBytes / MB)} MB`, below(LIMIT_MB, `< ${LIMIT_MB} MB`)),
        ],
        figures: {
          postcodes: n,
          seconds: round(run.seconds, 1),
          peakRssMb: peakBytes === null ? null : round(peakBytes / MB, 1),
          peakRssSource: "getrusage ru_maxrss of the batch process",
          fetchingFromSeconds: run.marks.fetching === undefined ? null : round(run.marks.fetching, 1),
          reportsWrittenAtSeconds: run.marks.reportsWritten === undefined ? null : round(run.marks.reportsWritten, 1),
          memoryTimelineMb: {
            columns: ["seconds", "rss", "heapTotal", "heapUsed", "outsideHeap"],
            samples: samples.map(([t, ...bytes]) => [t, ...bytes.map(mb)]),
          },
        },
        notes,
      };
    } finally {
      await sim.stop();
      scratch.remove();
    }
  },
};

