// Whole job (issue 23): the batch as a user runs it, reports included (input, plan, fetch, store,
// every report file), against the bare fetch-and-parse loop over the same requests, at 10,000
// postcodes. Then, from the database that run left, the report set in parts, each rewritten alone
// by writeReports: nothing (the shared work: postcode table, changes, summary), every CSV, and
// coverage.xlsx, so that the workbook's cost can be set against the CSVs' together. And the floor
// of the job, in the same run (bench/lib/floor.ts): the bare loop, SQLite's own insert of the run's
// address rows, the sqlite3 shell's address CSVs; the whole job's wall time against their sum.
import { join } from "node:path";
import { LOOKUPS } from "../../src/contract/fields.js";
import { REPORT_FILES, writeReports } from "../../src/report/index.js";
import { openStore } from "../../src/store/open-store.js";
import { runBareLoop } from "../lib/bare-loop.js";
import { insertFloor, shellFloor } from "../lib/floor.js";
import { SQLITE3_INSTALL_HINT } from "../lib/sqlite-shell.js";
import { runBatchTimed } from "../lib/batch-in-process.js";
import { compactPostcodes, writePostcodeCsv } from "../lib/input-file.js";
import { scratchDir } from "../lib/paths.js";
import { atMost, check, skippedCheck, type BenchContext, type Scenario } from "../lib/scenario.js";
import { startSimulatorProcess } from "../lib/simulator-process.js";
import { median, round, scaled, thousands } from "../lib/stats.js";

const CONCURRENCY = 16;
const TIMEOUT_S = 30;
/** The whole job's wall time at most this many times its floor's. */
const FLOOR_RATIO = 2;

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

      // the floor, from the run's database: SQLite's own insert of its address rows, the shell's CSVs
      const dbPath = join(dir, "coverage.sqlite");
      const inserts = insertFloor(dbPath, scratch.dir);
      const shell = await shellFloor(dbPath, scratch.dir);
      const floorSeconds = shell === null ? null : bareSeconds + inserts.seconds + shell.broadband + shell.mobile + shell.joined;
      ctx.log(
        `whole-job: floor ${floorSeconds === null ? "(no sqlite3 shell)" : `${round(floorSeconds, 2)} s`}: bare loop ${round(bareSeconds, 2)} s, ` +
          `${thousands(inserts.rows)} address rows inserted in ${round(inserts.seconds, 2)} s` +
          (shell ? `, shell CSVs ${round(shell.broadband, 2)} + ${round(shell.mobile, 2)} + ${round(shell.joined, 2)} s (joined)` : ""),
      );

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
          "two bare loops (their median); its floor from that run's database (SQLite's insert of its address rows, the sqlite3 shell's address CSVs); then each part of the report set rewritten alone, in 3 rounds (median)",
        checks: [
          floorSeconds === null
            ? skippedCheck("whole batch ÷ its floor, wall time", atMost(FLOOR_RATIO), SQLITE3_INSTALL_HINT)
            : check("whole batch ÷ its floor, wall time", batch.wallSeconds / floorSeconds, `${round(batch.wallSeconds / floorSeconds, 2)} (${round(batch.wallSeconds, 1)} s vs ${round(floorSeconds, 1)} s)`, atMost(FLOOR_RATIO)),
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
          floor: {
            seconds: floorSeconds === null ? null : round(floorSeconds, 2),
            bareLoopSeconds: round(bareSeconds, 2),
            insert: { seconds: round(inserts.seconds, 2), rows: inserts.rows, how: "INSERT ... SELECT from the run's database into the store's schema, sorted by (postcode, uprn), one transaction, the close included" },
            shellCsvSeconds: shell === null ? null : { broadband: round(shell.broadband, 2), mobile: round(shell.mobile, 2), joined: round(shell.joined, 2) },
          },
          floorRatio: floorSeconds === null ? null : round(batch.wallSeconds / floorSeconds),
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
