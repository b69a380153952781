// Rate-limited: the simulator enforces 3,000 requests a minute per lookup (sliding window, like the
// gateway) and the batch paces itself at the same 3,000: it should use nearly all of it and
// almost never be answered 429.
//
// A 60 s window cannot fill in a 20 s run (no 429 would be possible at all), so the window is
// scaled down with the limit, keeping the rate: 3,000/min = 250 per 5 s. The run then crosses
// several full windows, which is the steady state of a long nightly run against the real service.
// Both sides get the same window: the simulator through --rate-window-ms, the batch through its
// rateWindowMs dependency (the same hidden --rate-window-ms flag of the CLI).
import { runBatchTimed } from "../lib/batch-in-process.js";
import { writePostcodeCsv } from "../lib/input-file.js";
import { scratchDir } from "../lib/paths.js";
import { atLeast, atMost, check, type BenchContext, type Scenario } from "../lib/scenario.js";
import { startSimulatorProcess } from "../lib/simulator-process.js";
import { percent, round } from "../lib/stats.js";

const PER_MINUTE = 3000;

export const rateLimited: Scenario = {
  name: "rate-limited",
  async run(ctx: BenchContext) {
    const seconds = ctx.quick ? 6 : 20;
    const windowMs = (seconds * 1000) / 4;
    const perWindow = Math.round((PER_MINUTE * windowMs) / 60_000);
    // Enough postcodes for `seconds` at the limit, per lookup.
    const n = Math.round((PER_MINUTE / 60) * seconds);
    const scratch = scratchDir("rate");
    const sim = await startSimulatorProcess({ seed: "bench", rateLimit: perWindow, rateWindowMs: windowMs });
    try {
      const input = writePostcodeCsv(scratch.dir, n);
      ctx.log(`rate-limited: ${n} postcodes, limit and --rate ${PER_MINUTE}/min per lookup (${perWindow} per ${windowMs / 1000} s window), ~${seconds} s`);
      const run = await runBatchTimed({
        dir: scratch.dir,
        input,
        baseUrl: sim.url,
        flags: { concurrency: 4, rate: perWindow },
        deps: { rateWindowMs: windowMs },
      });
      const stats = run.result.stats;
      if (run.result.exitCode !== 0 || !stats)
        throw new Error(`rate-limited: the batch did not finish cleanly (exit ${run.result.exitCode}): ${run.problems.join("; ")}`);
      const perLookup = (["broadband", "mobile"] as const).map((l) => {
        const s = stats[l];
        const answered = s.requests - s.throttled;
        return { lookup: l, requests: s.requests, throttled: s.throttled, perMinute: (answered / run.fetchSeconds) * 60 };
      });
      const ratio = Math.min(...perLookup.map((p) => p.perMinute)) / PER_MINUTE;
      const requests = perLookup.reduce((a, p) => a + p.requests, 0);
      const throttled = perLookup.reduce((a, p) => a + p.throttled, 0);
      const share429 = requests === 0 ? 0 : throttled / requests;
      const notes: string[] = [];
      if (throttled > 0)
        notes.push(
          `rate-limited: ${throttled} answers were 429; each pauses the lookup for the Retry-After (at least 1 s, ` +
            `${PER_MINUTE / 60} requests' worth) and slows its pacer, which is what costs rate.`,
        );
      if (ratio < 0.97 && throttled === 0)
        notes.push(
          `rate-limited: the server refused nothing, so the client itself started fewer requests than its --rate allows ` +
            `(${Math.round(ratio * PER_MINUTE)}/min for ${PER_MINUTE}): the pacer (src/fetch/pacer.ts) leaves time unused, ` +
            "from its safety margin and from timer delays, which push back every later slot when each slot is counted from the previous actual start.",
        );
      return {
        setup: `${n} postcodes × 2 lookups, simulator --rate-limit ${PER_MINUTE}/min per lookup, --rate ${PER_MINUTE}, window scaled to ${windowMs / 1000} s, ~${seconds} s`,
        checks: [
          check(
            "achieved rate ÷ limit (slower lookup)",
            ratio,
            `${round(ratio, 3)} (${perLookup.map((p) => `${p.lookup} ${Math.round(p.perMinute)}/min`).join(", ")})`,
            atLeast(0.97),
          ),
          check("share of requests answered 429", share429, `${percent(share429)} (${throttled} of ${requests})`, atMost(0.005, "≤ 0.5%")),
        ],
        figures: {
          postcodes: n,
          limitPerMinute: PER_MINUTE,
          windowMs,
          limitPerWindow: perWindow,
          fetchSeconds: round(run.fetchSeconds),
          perLookup: perLookup.map((p) => ({ ...p, perMinute: round(p.perMinute, 1) })),
          ratio: round(ratio, 4),
          requests,
          throttled,
          share429: round(share429, 5),
        },
        notes,
      };
    } finally {
      await sim.stop();
      scratch.remove();
    }
  },
};
