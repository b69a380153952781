// Unchanged night: the batch as cron runs it, reports on, over a list it has just filled, so that
// nothing is due: no request, the report set kept. Its cost is reading the input, planning and
// finding the set current; at 30,000 postcodes it should be a small share of the fill's.
import { join } from "node:path";
import { runBatchTimed, type TimedBatch } from "../lib/batch-in-process.js";
import { writePostcodeCsv } from "../lib/input-file.js";
import { scratchDir } from "../lib/paths.js";
import { atMost, check, type BenchContext, type Scenario } from "../lib/scenario.js";
import { startSimulatorProcess } from "../lib/simulator-process.js";
import { median, round, scaled, thousands } from "../lib/stats.js";

const CONCURRENCY = 16;
const RERUNS = 3;

export const unchangedNight: Scenario = {
  name: "unchanged-night",
  async run(ctx: BenchContext) {
    const n = scaled(30_000, ctx.quick, 0.2);
    const scratch = scratchDir("unchanged-night");
    const sim = await startSimulatorProcess({ seed: "bench" });
    try {
      const input = writePostcodeCsv(scratch.dir, n);
      const dir = join(scratch.dir, "run");
      const night = (label: string) => {
        ctx.log(`unchanged-night: ${thousands(n)} postcodes, ${label}`);
        return runBatchTimed({ dir, input, baseUrl: sim.url, flags: { concurrency: CONCURRENCY, reports: true } });
      };
      const fill = await night("the fill (every pair fetched, every report written)");
      const reruns: TimedBatch[] = [];
      for (let i = 0; i < RERUNS; i++) reruns.push(await night(`unchanged re-run ${i + 1} of ${RERUNS}`));
      for (const b of [fill, ...reruns])
        if (b.result.exitCode !== 0) throw new Error(`unchanged-night: a run did not finish cleanly (exit ${b.result.exitCode}): ${b.problems.join("; ")}`);
      const sent = reruns.reduce((s, b) => s + (b.result.counts?.requests ?? 0), 0);
      if (sent > 0) throw new Error(`unchanged-night: the unchanged re-runs sent ${sent} requests; nothing was due`);
      const unchanged = median(reruns.map((b) => b.wallSeconds));
      const ratio = unchanged / fill.wallSeconds;
      return {
        setup: `${thousands(n)} postcodes × 2 lookups, --concurrency ${CONCURRENCY}, no pacing, reports on: the fill, then ${RERUNS} unchanged re-runs (their median)`,
        checks: [check("unchanged re-run ÷ fill, wall time", ratio, `${round(ratio, 3)} (${round(unchanged, 2)} s vs ${round(fill.wallSeconds, 1)} s)`, atMost(0.05))],
        figures: {
          postcodes: n,
          fillSeconds: round(fill.wallSeconds, 2),
          fillCpuSeconds: round(fill.cpuSeconds, 2),
          fillReportSeconds: round(fill.reportSeconds, 2),
          rerunSeconds: reruns.map((b) => round(b.wallSeconds, 2)),
          rerunCpuSeconds: reruns.map((b) => round(b.cpuSeconds, 2)),
          ratio: round(ratio, 4),
        },
        notes: [],
      };
    } finally {
      await sim.stop();
      scratch.remove();
    }
  },
};
