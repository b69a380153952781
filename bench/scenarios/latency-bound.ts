// Latency-bound: with 50 ms per answer, the batch should keep every slot of its pools busy, so
// requests/s ≈ requests in flight / latency. The batch's --concurrency is per lookup and both
// lookups run at once, so 32 per lookup is 64 in flight: ideally 64 / 0.05 s = 1,280 requests/s.
import { runBatchTimed } from "../lib/batch-in-process.js";
import { writePostcodeCsv } from "../lib/input-file.js";
import { scratchDir } from "../lib/paths.js";
import { atLeast, check, type BenchContext, type Scenario } from "../lib/scenario.js";
import { startSimulatorProcess } from "../lib/simulator-process.js";
import { round } from "../lib/stats.js";

const LATENCY_MS = 50;
const CONCURRENCY = 32;
const LOOKUPS = 2;

const pct = (share: number) => `${Math.round(share * 100)}%`;

export const latencyBound: Scenario = {
  name: "latency-bound",
  async run(ctx: BenchContext) {
    const ideal = (CONCURRENCY * LOOKUPS) / (LATENCY_MS / 1000);
    // About 15 s of requests at the ideal rate (3 s with --quick).
    const seconds = ctx.quick ? 3 : 15;
    const n = Math.round((ideal * seconds) / LOOKUPS);
    const scratch = scratchDir("latency");
    const sim = await startSimulatorProcess({ seed: "bench", latency: LATENCY_MS });
    try {
      const input = writePostcodeCsv(scratch.dir, n);
      ctx.log(`latency-bound: ${n} postcodes, ${LATENCY_MS} ms latency, --concurrency ${CONCURRENCY}`);
      const cpu0 = sim.cpuSeconds();
      const run = await runBatchTimed({ dir: scratch.dir, input, baseUrl: sim.url, flags: { concurrency: CONCURRENCY } });
      const simCpu = sim.cpuSeconds();
      const stats = run.result.stats;
      if (run.result.exitCode !== 0 || !stats)
        throw new Error(`latency-bound: the batch did not finish cleanly (exit ${run.result.exitCode}): ${run.problems.join("; ")}`);
      const requests = stats.broadband.requests + stats.mobile.requests;
      const achieved = requests / run.fetchSeconds;
      const ratio = achieved / ideal;
      const clientCpuShare = run.cpuSeconds / run.wallSeconds;
      const simCpuShare = cpu0 === null || simCpu === null ? null : (simCpu - cpu0) / run.fetchSeconds;
      const elu = run.eventLoopUtilization;
      const cpuPerRequestMs = (run.cpuSeconds / requests) * 1000;
      // Little's law: requests in flight ÷ throughput = the time each request holds its slot.
      const cycleMs = ((CONCURRENCY * LOOKUPS) / achieved) * 1000;
      const notes: string[] = [];
      if (ratio < 0.9)
        notes.push(
          `latency-bound: ${Math.round(achieved)} of an ideal ${Math.round(ideal)} requests/s: each slot's cycle took ` +
            `${cycleMs.toFixed(1)} ms on average against the simulator's ${LATENCY_MS} ms. The batch's event loop was busy ` +
            `${pct(elu)} of the time, its process used ${pct(clientCpuShare)} of a core (${cpuPerRequestMs.toFixed(2)} ms CPU a request), ` +
            `the simulator ${simCpuShare === null ? "n/a" : pct(simCpuShare)}. ` +
            (elu >= 0.8
              ? `Answers wait in the event loop's queue behind the work on earlier ones, so each slot's cycle is longer than ${LATENCY_MS} ms` +
                (clientCpuShare < elu - 0.15 ? "; the loop was busy more than the process ran: it waited for a CPU held by other processes (busy machine)." : ": the client's own CPU per answer is the limit.")
              : "The event loop was often idle, so slots wait between answers for another reason (timers, scheduling)."),
        );
      return {
        setup: `${n} postcodes × 2 lookups, simulator --latency ${LATENCY_MS}, --concurrency ${CONCURRENCY} per lookup (${CONCURRENCY * LOOKUPS} in flight), no pacing`,
        checks: [
          check(
            "requests/s ÷ (in flight / latency)",
            ratio,
            `${round(ratio, 2)} (${Math.round(achieved)} of ${Math.round(ideal)} requests/s)`,
            atLeast(0.9),
          ),
        ],
        figures: {
          postcodes: n,
          latencyMs: LATENCY_MS,
          concurrencyPerLookup: CONCURRENCY,
          inFlight: CONCURRENCY * LOOKUPS,
          requests,
          fetchSeconds: round(run.fetchSeconds),
          wallSeconds: round(run.wallSeconds),
          requestsPerSecond: round(achieved, 1),
          idealRequestsPerSecond: ideal,
          ratio: round(ratio),
          clientCpuShare: round(clientCpuShare),
          eventLoopUtilization: round(elu),
          meanSlotCycleMs: round(cycleMs, 1),
          clientCpuMsPerRequest: round(cpuPerRequestMs),
          simulatorCpuShare: simCpuShare === null ? null : round(simCpuShare),
        },
        notes,
      };
    } finally {
      await sim.stop();
      scratch.remove();
    }
  },
};
