// Whole job (issue 23): the batch as a user runs it, reports included (input, plan, fetch, store,
// every report file), against the bare fetch-and-parse loop over the same requests, at 10,000
// postcodes. Then, from the database that run left, the report set in parts, each rewritten alone
// by writeReports: nothing (the shared work: postcode table, changes, summary), every CSV, and
// coverage.xlsx, so that the workbook's cost can be set against the CSVs' together.
import { join } from "node:path";
import { LOOKUPS } from "../../src/contract/fields.js";
import { REPORT_FILES, writeReports } from "../../src/report/index.js";
import { openStore } from "../../src/store/open-store.js";
import { runBareLoop } from "../lib/bare-loop.js";
import { runBatchTimed } from "../lib/batch-in-process.js";
import { compactPostcodes, writePostcodeCsv } from "../lib/input-file.js";
import { scratchDir } from "../lib/paths.js";
import { atLeast, atMost, check, type BenchContext, type Scenario } from "../lib/scenario.js";
import { startSimulatorProcess } from "../lib/simulator-process.js";
import { median, round, scaled, thousands } from "../lib/stats.js";

const CONCURRENCY = 16;
const TIMEOUT_S = 30;

export const wholeJob: Scenario = {
  name: "whole-job",
  async run(ctx: BenchContext) {
    const n = scaled(10_000, ctx.quick, 0.2);
    const scratch = scratchDir("whole-job");
    const sim = await startSimulatorProcess({ seed: "bench" });
    try {
      const input = writePostcodeCsv(scratch.dir, n);
      const postcodes = compactPostcodes(n);
      ctx.log(`whole-job: warm-up (1,000 postcodes each way)`);
      await runBareLoop({ baseUrl: sim.url, postcodes: postcodes.slice(0, 1000), lookups: LOOKUPS, concurrency: CONCURRENCY, timeoutMs: TIMEOUT_S * 1000 });
      await runBatchTimed({ dir: join(scratch.dir, "warm"), input: writePostcodeCsv(scratch.dir, 1000, "warm.csv"), baseUrl: sim.url, flags: { concurrency: CONCURRENCY } });

      // bare loop, whole batch, bare loop: the batch's neighbours on both sides, their median
      ctx.log(`whole-job: ${thousands(n)} postcodes, bare loop, then the whole batch with its reports, then the bare loop again`);
      const bare1 = await runBareLoop({ baseUrl: sim.url, postcodes, lookups: LOOKUPS, concurrency: CONCURRENCY, timeoutMs: TIMEOUT_S * 1000 });
      const dir = join(scratch.dir, "run");
      const batch = await runBatchTimed({ dir, input, baseUrl: sim.url, flags: { concurrency: CONCURRENCY, timeout: TIMEOUT_S, reports: true } });
      const bare2 = await runBareLoop({ baseUrl: sim.url, postcodes, lookups: LOOKUPS, concurrency: CONCURRENCY, timeoutMs: TIMEOUT_S * 1000 });
      if (batch.result.exitCode !== 0 || batch.result.counts?.postcodes !== n)
        throw new Error(`whole-job: the batch did not finish cleanly (exit ${batch.result.exitCode}): ${batch.problems.join("; ")}`);
      for (const b of [bare1, bare2]) if (b.errors > 0) throw new Error(`whole-job: the bare loop got ${b.errors} errors of ${b.requests} requests`);
      const bareSeconds = median([bare1.seconds, bare2.seconds]);
      const ratio = bareSeconds / batch.wallSeconds;

      // The report set in parts, from the batch's database, in 3 rounds (shared, CSVs, workbook each
      // round): each part's cost is its time less the same round's shared work, the median of rounds.
      const store = await openStore(join(dir, "coverage.sqlite"));
      const rounds: Record<"shared" | "csvs" | "workbook", number>[] = [];
      try {
        const timed = async (name: string, files: typeof REPORT_FILES) => {
          const t = performance.now();
          await writeReports(store, { outDir: join(scratch.dir, `part-${name}`), runId: batch.result.runId, files });
          return (performance.now() - t) / 1000;
        };
        for (let r = 0; r < 3; r++) {
          const shared = await timed("shared", []);
          const csvs = await timed("csvs", REPORT_FILES.filter((f) => f.name.endsWith(".csv")));
          const workbook = await timed("workbook", REPORT_FILES.filter((f) => f.name.endsWith(".xlsx")));
          rounds.push({ shared: round(shared, 2), csvs: round(csvs, 2), workbook: round(workbook, 2) });
          ctx.log(`whole-job: report parts, round ${r + 1}: shared ${round(shared, 2)} s, with every CSV ${round(csvs, 2)} s, with the workbook ${round(workbook, 2)} s`);
        }
      } finally {
        await store.close();
      }
      const csvs = median(rounds.map((r) => r.csvs - r.shared));
      const workbook = median(rounds.map((r) => r.workbook - r.shared));
      return {
        setup:
          `${thousands(n)} postcodes × 2 lookups, --concurrency ${CONCURRENCY}, no pacing; the whole batch (reports on) once between ` +
          "two bare loops (their median); then each part of the report set rewritten alone, in 3 rounds (median)",
        checks: [
          check("whole batch ÷ bare loop, wall time", ratio, `${round(ratio, 2)} (${round(batch.wallSeconds, 1)} s vs ${round(bareSeconds, 1)} s)`, atLeast(0.5)),
          check("coverage.xlsx ÷ every CSV, report time", workbook / csvs, `${round(workbook / csvs, 2)} (${round(workbook, 2)} s vs ${round(csvs, 2)} s)`, atMost(1)),
        ],
        figures: {
          postcodes: n,
          batch: {
            wallSeconds: round(batch.wallSeconds, 2),
            fetchSeconds: round(batch.fetchSeconds, 2),
            reportSeconds: round(batch.reportSeconds, 2),
            cpuSeconds: round(batch.cpuSeconds, 2),
            eventLoopUtilization: round(batch.eventLoopUtilization),
          },
          bareLoopSeconds: [round(bare1.seconds, 2), round(bare2.seconds, 2)],
          bareLoopCpuSeconds: [round(bare1.cpuSeconds, 2), round(bare2.cpuSeconds, 2)],
          // on a busy machine the wall times follow the load; the CPU each side needed does not
          cpuRatio: round(median([bare1.cpuSeconds, bare2.cpuSeconds]) / batch.cpuSeconds),
          ratio: round(ratio),
          reportPartsSeconds: rounds,
          reportPartsNote: "per round: shared is writeReports with no files (postcode table, changes, summary, fingerprint); csvs and workbook include the shared work",
          workbookSeconds: round(workbook, 2),
          csvsSeconds: round(csvs, 2),
        },
        notes: [],
      };
    } finally {
      await sim.stop();
      scratch.remove();
    }
  },
};
