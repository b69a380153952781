// Faults: the same batch against a simulator that answers 5% of requests 500, resets 2% mid-body
// and never answers 1%, timed against a fault-free simulator; every postcode must still end with a
// final answer.
//
// A stall costs a full --timeout and holds a slot meanwhile, and a stall among the last requests
// adds the whole timeout to the run: against a fault-free run of a couple of seconds, the timeout
// decides the ratio. So it is set from what a healthy answer takes here: a few ms on loopback, a
// few tens at worst on a busy machine, so 250 ms is still about ten times the slowest. The backoff
// base is 100 ms (cap 6 s, as the CLI's --backoff-base-ms sets it): these faults are independent
// per attempt, so a short wait is enough, and full jitter keeps retries from bunching. Against the
// real service the defaults (--timeout 30, 500 ms base) stay right: its answers are slower and its
// faults last longer.
//
// A stall's cost is fixed in seconds, not proportional to the run, so --quick keeps the run's size
// (shrinking it would only inflate the ratio) and runs once each way instead of twice.
import { runBatchTimed, type TimedBatch } from "../lib/batch-in-process.js";
import { writePostcodeCsv } from "../lib/input-file.js";
import { scratchDir } from "../lib/paths.js";
import { atMost, check, type BenchContext, type Check, type Scenario } from "../lib/scenario.js";
import { startSimulatorProcess } from "../lib/simulator-process.js";
import { median, round } from "../lib/stats.js";

const FAULTS = { failRate: 0.05, resetRate: 0.02, stallRate: 0.01 } as const;
const CONCURRENCY = 16;
const BACKOFF = { baseMs: 100, capMs: 6_000 } as const;

export const faults: Scenario = {
  name: "faults",
  async run(ctx: BenchContext) {
    const n = 2000;
    const timeoutS = 0.25;
    const repeats = ctx.quick ? 1 : 2;
    const scratch = scratchDir("faults");
    const clean = await startSimulatorProcess({ seed: "bench" });
    const faulty = await startSimulatorProcess({ seed: "bench", ...FAULTS });
    try {
      const input = writePostcodeCsv(scratch.dir, n);
      let runNo = 0;
      const once = (url: string) =>
        runBatchTimed({
          dir: `${scratch.dir}/run-${runNo++}`,
          input,
          baseUrl: url,
          flags: { concurrency: CONCURRENCY, retries: 5 },
          // below --timeout's 1 s minimum: the dependency, not the flag
          deps: { backoff: BACKOFF, timeoutMs: timeoutS * 1000 },
        });
      // Warm-up of both simulators (JIT, and each one's body cache: a cold one spends its first run
      // generating bodies), then clean and faulty runs alternating (C F F C ...) so drift hits both alike.
      ctx.log(`faults: ${n} postcodes, --timeout ${timeoutS}, backoff base ${BACKOFF.baseMs} ms; ${repeats} run(s) each way after a warm-up`);
      await once(clean.url);
      await once(faulty.url);
      const cleanRuns: TimedBatch[] = [];
      const faultyRuns: TimedBatch[] = [];
      for (let r = 0; r < repeats; r++) {
        if (r % 2 === 0) {
          cleanRuns.push(await once(clean.url));
          faultyRuns.push(await once(faulty.url));
        } else {
          faultyRuns.push(await once(faulty.url));
          cleanRuns.push(await once(clean.url));
        }
      }
      for (const run of cleanRuns)
        if (run.result.exitCode !== 0) throw new Error(`faults: the fault-free run exited ${run.result.exitCode}: ${run.problems.join("; ")}`);

      const cleanSeconds = median(cleanRuns.map((r) => r.wallSeconds));
      const faultySeconds = median(faultyRuns.map((r) => r.wallSeconds));
      const ratio = faultySeconds / cleanSeconds;
      // Final: ok or not found for both lookups; failed (retries used up) or pending is not.
      const unfinished = faultyRuns.map((r) => (r.result.counts ? r.result.counts.failed + r.result.counts.pending : n * 2));
      const worstUnfinished = Math.max(...unfinished);
      const pairs = n * 2;
      const retries = faultyRuns.map((r) => (r.result.stats ? r.result.stats.broadband.retries + r.result.stats.mobile.retries : 0));
      const requests = faultyRuns.map((r) => (r.result.stats ? r.result.stats.broadband.requests + r.result.stats.mobile.requests : 0));
      const checks: Check[] = [
        check("wall time with faults ÷ without", ratio, `${round(ratio, 2)} (${round(faultySeconds, 2)} s vs ${round(cleanSeconds, 2)} s)`, atMost(1.5)),
        check(
          "postcode × lookup pairs not final",
          worstUnfinished,
          `${worstUnfinished} of ${pairs}`,
          { op: "==", value: 0, text: "0" },
        ),
      ];
      const notes: string[] = [];
      if (ratio > 1.5) {
        const stalls = Math.round(pairs * FAULTS.stallRate);
        notes.push(
          `faults: about ${stalls} stalls each hold a slot for the full ${timeoutS} s timeout, and one among the last requests ` +
            `extends the run by up to ${timeoutS} s; against a fault-free run of ${round(cleanSeconds, 1)} s that alone is ` +
            `${round(timeoutS / cleanSeconds, 2)} of the budget of 0.5.`,
        );
      }
      if (worstUnfinished > 0)
        notes.push(`faults: ${worstUnfinished} pairs did not end final: ${faultyRuns.flatMap((r) => r.problems).slice(0, 3).join("; ")}`);
      return {
        setup:
          `${n} postcodes × 2 lookups, --concurrency ${CONCURRENCY}, 5% 500s, 2% resets, 1% stalls, ` +
          `--timeout ${timeoutS}, --retries 5, backoff ${BACKOFF.baseMs} ms base; median of ${repeats}`,
        checks,
        figures: {
          postcodes: n,
          faults: FAULTS,
          timeoutSeconds: timeoutS,
          backoff: BACKOFF,
          cleanSeconds: cleanRuns.map((r) => round(r.wallSeconds)),
          faultySeconds: faultyRuns.map((r) => round(r.wallSeconds)),
          ratio: round(ratio),
          faultyRequests: requests,
          faultyRetries: retries,
          unfinishedPairs: unfinished,
        },
        notes,
      };
    } finally {
      await Promise.all([clean.stop(), faulty.stop()]);
      scratch.remove();
    }
  },
};
