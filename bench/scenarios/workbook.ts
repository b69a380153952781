// Workbook (issue 13): the whole report set, coverage.xlsx included, written by the report CLI
// (src/cli/report.ts, a forced rewrite) in a child process of its own, for a database of a fifth
// of N mobile addresses and then of N. The streaming workbook writer should keep the peak resident
// memory flat as the rows grow five-fold: the peak at N must stay within 1.5× of the peak at N/5,
// and under 400 MB. Each child's wall time, CPU time (the figure to compare on a busy machine) and
// the workbook's size are recorded too. --workbook-rows is raised to what a sheet holds, so that
// the Mobile sheet is written in full at both sizes.
import { statSync } from "node:fs";
import { join } from "node:path";
import { runBatchProcess, sampledPeakRssBytes } from "../lib/batch-process.js";
import { buildMobileDb } from "../lib/mobile-db.js";
import { scratchDir } from "../lib/paths.js";
import { atMost, below, check, skippedCheck, type BenchContext, type Check, type Scenario } from "../lib/scenario.js";
import { round, scaled, thousands } from "../lib/stats.js";
import { SHEET_MAX_ROWS } from "../../src/report/xlsx/sheet-limits.js";

const MB = 2 ** 20;
const GROWTH = 1.5;
const LIMIT_MB = 400;

interface SizeRun {
  addresses: number;
  postcodes: number;
  buildSeconds: number;
  seconds: number;
  cpuSeconds: number | null;
  /** highest resident size sampled in the child (its ru_maxrss can start at the bench's size) */
  peakRssMb: number | null;
  /** the child's ru_maxrss, for reference */
  maxRssMb: number | null;
  xlsxBytes: number;
}

export const workbook: Scenario = {
  name: "workbook",
  async run(ctx: BenchContext) {
    const n = scaled(500_000, ctx.quick, 0.1);
    const scratch = scratchDir("workbook");
    try {
      const runs: SizeRun[] = [];
      for (const size of [Math.round(n / 5), n]) {
        const dbPath = join(scratch.dir, `mobile-${size}.sqlite`);
        const out = join(scratch.dir, `out-${size}`);
        ctx.log(`workbook: building a database of ${thousands(size)} mobile addresses`);
        const built = buildMobileDb(dbPath, size);
        ctx.log(`workbook: writing every report, coverage.xlsx included, in a child process`);
        const r = await runBatchProcess({ scratch: scratch.dir, script: "src/cli/report.ts", args: ["--db", dbPath, "--out", out, "--workbook-rows", String(SHEET_MAX_ROWS)], marks: {} });
        if (r.exitCode !== 0) throw new Error(`workbook: the report CLI exited ${r.exitCode}:\n${r.tail.join("\n")}`);
        const sampled = sampledPeakRssBytes(r);
        const run: SizeRun = {
          addresses: built.addresses,
          postcodes: built.postcodes,
          buildSeconds: round(built.seconds, 1),
          seconds: round(r.seconds, 1),
          cpuSeconds: r.memory === null ? null : round(r.memory.cpuSeconds, 1),
          peakRssMb: sampled === null ? null : round(sampled / MB, 0),
          maxRssMb: r.memory === null ? null : round(r.memory.peakRssBytes / MB, 0),
          xlsxBytes: statSync(join(out, "coverage.xlsx")).size,
        };
        runs.push(run);
        ctx.log(
          `workbook: ${thousands(run.addresses)} addresses: ${run.seconds} s (CPU ${run.cpuSeconds ?? "?"} s), ` +
            `peak ${run.peakRssMb ?? "?"} MB, coverage.xlsx ${round(run.xlsxBytes / MB, 1)} MB`,
        );
      }
      const [small, large] = runs as [SizeRun, SizeRun];
      const growthTarget = atMost(GROWTH, `≤ ${GROWTH}×`);
      const limitTarget = below(LIMIT_MB, `< ${LIMIT_MB} MB`);
      const unavailable = "peak RSS unavailable on this platform";
      const checks: Check[] = [];
      const notes: string[] = [];
      if (small.peakRssMb === null || large.peakRssMb === null) {
        checks.push(skippedCheck(`peak memory at ${thousands(large.addresses)} ÷ at ${thousands(small.addresses)} addresses`, growthTarget, unavailable));
        checks.push(skippedCheck(`peak memory at ${thousands(large.addresses)} addresses`, limitTarget, unavailable));
      } else {
        const growth = large.peakRssMb / small.peakRssMb;
        checks.push(
          check(
            `peak memory at ${thousands(large.addresses)} ÷ at ${thousands(small.addresses)} addresses`,
            growth,
            `${growth.toFixed(2)}× (${large.peakRssMb} MB vs ${small.peakRssMb} MB)`,
            growthTarget,
          ),
          check(`peak memory at ${thousands(large.addresses)} addresses`, large.peakRssMb, `${large.peakRssMb} MB`, limitTarget),
        );
        if (growth > GROWTH || large.peakRssMb >= LIMIT_MB)
          notes.push(
            `workbook: the peak grew from ${small.peakRssMb} to ${large.peakRssMb} MB as the rows grew five-fold: something holds rows ` +
              "in memory (the sheet's XML or its deflated output, unless the writer waits for the file); bench.json has both sizes' figures.",
          );
      }
      return {
        setup:
          `${thousands(small.addresses)} then ${thousands(large.addresses)} mobile addresses (${thousands(small.postcodes)}, ` +
          `${thousands(large.postcodes)} postcodes); every report by the report CLI in a child process`,
        checks,
        figures: {
          sizes: runs.map((run) => ({ ...run, xlsxMb: round(run.xlsxBytes / MB, 1) })),
          peakRssSource: "highest resident size sampled every 500 ms in the child (maxRssMb: its getrusage ru_maxrss)",
          secondsInclude: "the child's whole life: Node and tsx start-up, opening the database, every report",
        },
        notes,
      };
    } finally {
      scratch.remove();
    }
  },
};
