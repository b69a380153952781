// Overhead: how much the batch adds on top of raw HTTP. The batch (input, plan, fetch, validate,
// store; reports off, they have their own scenario) against a bare loop with the same HTTP client
// and concurrency that fetches and JSON-parses the same URLs and stores nothing. Both run in this
// process, alternating (B L, L B, ...) so that drift on a shared machine hits both alike; the
// simulator runs as a child process, on its own event loop, so neither side pays for serving.
import { LOOKUPS } from "../../src/contract/fields.js";
import { runBareLoop, type BareLoopResult } from "../lib/bare-loop.js";
import { runBatchTimed, type TimedBatch } from "../lib/batch-in-process.js";
import { measureCostBreakdown } from "../lib/cost-breakdown.js";
import { compactPostcodes, writePostcodeCsv } from "../lib/input-file.js";
import { scratchDir } from "../lib/paths.js";
import { atLeast, check, type BenchContext, type Scenario } from "../lib/scenario.js";
import { startSimulatorProcess, type SimulatorProcess } from "../lib/simulator-process.js";
import { median, round, scaled } from "../lib/stats.js";

const CONCURRENCY = 16;
const TIMEOUT_S = 30;

interface Side {
  seconds: number;
  postcodesPerSecond: number;
  cpuSeconds: number;
  eventLoopUtilization: number;
  simulatorCpuSeconds: number | null;
}

interface Round {
  order: string;
  batch: Side;
  bare: Side;
  ratio: number;
}

export const overhead: Scenario = {
  name: "overhead",
  async run(ctx: BenchContext) {
    const n = scaled(5000, ctx.quick, 0.2);
    const rounds = ctx.quick ? 2 : 4;
    const scratch = scratchDir("overhead");
    const sim = await startSimulatorProcess({ seed: "bench" });
    try {
      const input = writePostcodeCsv(scratch.dir, n);
      const postcodes = compactPostcodes(n);
      let runNo = 0;
      const batch = async () => {
        const dir = `${scratch.dir}/run-${runNo++}`;
        const cpu0 = sim.cpuSeconds();
        const run = await runBatchTimed({ dir, input, baseUrl: sim.url, flags: { concurrency: CONCURRENCY, timeout: TIMEOUT_S } });
        return { run, simulatorCpuSeconds: cpuSince(sim, cpu0) };
      };
      const bare = async () => {
        const cpu0 = sim.cpuSeconds();
        const run = await runBareLoop({ baseUrl: sim.url, postcodes, lookups: LOOKUPS, concurrency: CONCURRENCY, timeoutMs: TIMEOUT_S * 1000 });
        return { run, simulatorCpuSeconds: cpuSince(sim, cpu0) };
      };

      // Warm-up: JIT on both sides, the simulator's sockets and body cache.
      ctx.log(`overhead: warm-up (${Math.min(n, 1000)} postcodes each way)`);
      await runBareLoop({ baseUrl: sim.url, postcodes: postcodes.slice(0, 1000), lookups: LOOKUPS, concurrency: CONCURRENCY, timeoutMs: TIMEOUT_S * 1000 });
      const warm = writePostcodeCsv(scratch.dir, Math.min(n, 1000), "warm.csv");
      await runBatchTimed({ dir: `${scratch.dir}/warm`, input: warm, baseUrl: sim.url, flags: { concurrency: CONCURRENCY } });

      const results: Round[] = [];
      for (let r = 0; r < rounds; r++) {
        const batchFirst = r % 2 === 0;
        let b: Awaited<ReturnType<typeof batch>>;
        let l: Awaited<ReturnType<typeof bare>>;
        if (batchFirst) {
          b = await batch();
          l = await bare();
        } else {
          l = await bare();
          b = await batch();
        }
        checkBatch(b.run, n);
        checkBare(l.run);
        const round_: Round = {
          order: batchFirst ? "batch, bare" : "bare, batch",
          batch: side(n, b.run.wallSeconds, b.run.cpuSeconds, b.run.eventLoopUtilization, b.simulatorCpuSeconds),
          bare: side(n, l.run.seconds, l.run.cpuSeconds, l.run.eventLoopUtilization, l.simulatorCpuSeconds),
          ratio: l.run.seconds / b.run.wallSeconds,
        };
        results.push(round_);
        ctx.log(
          `overhead: round ${r + 1}/${rounds}: batch ${round_.batch.postcodesPerSecond} postcodes/s, ` +
            `bare ${round_.bare.postcodesPerSecond} postcodes/s, ratio ${round(round_.ratio)}`,
        );
      }

      const ratio = median(results.map((r) => r.ratio));
      const batchRate = median(results.map((r) => r.batch.postcodesPerSecond));
      const bareRate = median(results.map((r) => r.bare.postcodesPerSecond));
      // CPU per postcode on the client side: what the ratio would be if the client, not the
      // server, were the bottleneck (e.g. against a faster server or on more cores).
      const cpuRatio = median(results.map((r) => r.bare.cpuSeconds / r.batch.cpuSeconds));
      const simCpuShareBare = median(results.map((r) => (r.bare.simulatorCpuSeconds ?? NaN) / r.bare.seconds));
      const simCpuShareBatch = median(results.map((r) => (r.batch.simulatorCpuSeconds ?? NaN) / r.batch.seconds));

      const batchElu = median(results.map((r) => r.batch.eventLoopUtilization));
      const bareElu = median(results.map((r) => r.bare.eventLoopUtilization));

      // The batch's extra CPU, piece by piece: the same answers classified and stored alone.
      ctx.log("overhead: timing classification and storage of the same answers alone");
      const breakdown = await measureCostBreakdown(scratch.dir, n);
      const batchMs = (median(results.map((r) => r.batch.cpuSeconds)) / n) * 1000;
      const bareMs = (median(results.map((r) => r.bare.cpuSeconds)) / n) * 1000;
      const validateMs = breakdown.classifyMs - breakdown.jsonParseMs;
      const restMs = batchMs - bareMs - validateMs - breakdown.storeMs;

      const notes: string[] = [
        `overhead: CPU per postcode (both lookups): batch ${batchMs.toFixed(2)} ms, bare loop ${bareMs.toFixed(2)} ms (ratio ${round(cpuRatio, 2)}). ` +
          `Of the batch's extra ${(batchMs - bareMs).toFixed(2)} ms, timed alone: storing the answers (answerWriter, a commit per answer at worst) ` +
          `${breakdown.storeMs.toFixed(2)} ms, validating beyond JSON.parse ${validateMs.toFixed(2)} ms; not attributed by this breakdown ` +
          `(input, plan, retry loop, and work that costs more inside the run than alone) ${restMs.toFixed(2)} ms. ` +
          `Event loop busy: batch ${pct(batchElu)}, bare loop ${pct(bareElu)}; ` +
          `simulator CPU: ${pct(simCpuShareBatch)} of a core during the batch, ${pct(simCpuShareBare)} during the bare loop.`,
      ];
      if (ratio < 0.9 && batchElu >= 0.8)
        notes.push(
          `overhead: the batch is bound by its own thread: its event loop is busy ${pct(batchElu)} of the time, and per postcode it ` +
            `needs ${round(1 / cpuRatio, 2)}× the bare loop's CPU. The largest part measured is storing the answers synchronously on that ` +
            `thread (src/store/sqlite/answers.ts through better-sqlite3: ${breakdown.storeMs.toFixed(2)} ms of the extra ${(batchMs - bareMs).toFixed(2)} ms). ` +
            "While the client, not the server, is the bottleneck, the wall-clock ratio follows the CPU ratio.",
        );
      if (ratio < 0.9 && batchElu < 0.8)
        notes.push("overhead: the batch's event loop was often idle, so it waits on something other than its own CPU.");
      if (simCpuShareBare > 0.85)
        notes.push(
          `overhead: the bare loop was itself held back by the simulator (${pct(simCpuShareBare)} of a core), so against a faster ` +
            "server the ratio would be lower still, nearer the CPU ratio.",
        );
      return {
        setup: `${n} postcodes × 2 lookups, --concurrency ${CONCURRENCY} per lookup, no pacing, no latency; ${rounds} alternating rounds, median`,
        checks: [
          check(
            "batch ÷ bare loop, postcodes/s",
            ratio,
            `${round(ratio, 2)} (${Math.round(batchRate)} vs ${Math.round(bareRate)} postcodes/s)`,
            atLeast(0.9),
          ),
        ],
        figures: {
          postcodes: n,
          concurrencyPerLookup: CONCURRENCY,
          rounds: results,
          ratio: round(ratio),
          batchPostcodesPerSecond: round(batchRate, 1),
          barePostcodesPerSecond: round(bareRate, 1),
          clientCpuRatio: round(cpuRatio),
          cpuMsPerPostcode: { batch: round(batchMs), bare: round(bareMs), ...roundAll(breakdown) },
          eventLoopUtilization: { batch: round(batchElu), bare: round(bareElu) },
          simulatorCpuShareDuringBare: round(simCpuShareBare),
          simulatorCpuShareDuringBatch: round(simCpuShareBatch),
          simulator: "child process",
        },
        notes,
      };
    } finally {
      await sim.stop();
      scratch.remove();
    }
  },
};

function cpuSince(sim: SimulatorProcess, before: number | null): number | null {
  const now = sim.cpuSeconds();
  return before === null || now === null ? null : now - before;
}

function side(n: number, seconds: number, cpuSeconds: number, eventLoopUtilization: number, simulatorCpuSeconds: number | null): Side {
  return {
    seconds: round(seconds),
    postcodesPerSecond: round(n / seconds, 1),
    cpuSeconds: round(cpuSeconds),
    eventLoopUtilization: round(eventLoopUtilization),
    simulatorCpuSeconds: simulatorCpuSeconds === null ? null : round(simulatorCpuSeconds),
  };
}

function roundAll<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === "number" ? round(v) : v])) as T;
}

function pct(share: number): string {
  return Number.isFinite(share) ? `${Math.round(share * 100)}%` : "n/a";
}

function checkBatch(run: TimedBatch, n: number): void {
  const c = run.result.counts;
  if (run.result.exitCode !== 0 || !c || c.postcodes !== n)
    throw new Error(`overhead: the batch did not finish cleanly (exit ${run.result.exitCode}): ${run.problems.join("; ")}`);
}

function checkBare(run: BareLoopResult): void {
  if (run.errors > 0) throw new Error(`overhead: the bare loop got ${run.errors} errors out of ${run.requests} requests`);
}
