// The simulator's own throughput (bench/simulator.ts), as an extra row: every other scenario is
// only a measure of the client while the simulator is faster than it.
import { measureSimulatorThroughput } from "../simulator.js";
import { atLeast, check, type BenchContext, type Scenario } from "../lib/scenario.js";

const TARGET = 5000;

export const simulatorThroughput: Scenario = {
  name: "simulator",
  async run(ctx: BenchContext) {
    const seconds = ctx.quick ? 2 : 5;
    ctx.log(`simulator: throughput for ${seconds} s (child process)`);
    const r = await measureSimulatorThroughput({ seconds });
    const notes: string[] = [];
    if (r.requestsPerSecond < TARGET)
      notes.push(
        `simulator: ${r.requestsPerSecond} requests/s, under ${TARGET}; where a scenario's client runs near this rate, ` +
          "its figure is bounded by the simulator rather than the client.",
      );
    return {
      setup: `simulator child process, faults and latency off, concurrency ${r.concurrency}, ${r.seconds} s`,
      checks: [check("simulator throughput, requests/s", r.requestsPerSecond, `${r.requestsPerSecond} requests/s`, atLeast(TARGET, `≥ ${TARGET.toLocaleString("en-GB")}`))],
      figures: { ...r },
      notes,
    };
  },
};
