// National: the whole UK as one list on one machine. A synthetic list of 1,741,096 postcodes over
// about 2,500 districts and 12,000 sectors of heavy-tailed sizes (bench/lib/national-list.ts),
// Ofcom's open postcode files for every one of them in the published layout (a zip in a zip, a
// file per area), then, each CLI in a child process of its own for its wall time, CPU time and
// peak resident memory:
//   1. the night: the batch with --open-data, --group-by district,sector and a few thousand
//      requests (--max-requests), reports on, against the simulator in its own process;
//   2. `report` of that run, grouped by district and sector;
//   3. `export` (Parquet) of that run.
// Targets: the night in at most 60 s and 768 MB; summary.json at most 5 MB. The CLIs run from
// ctx.cliRoot, so `--against COMMIT` measures the commit's CLIs with this same harness.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { runBatchProcess, sampledPeakRssBytes, type BatchProcessResult } from "../lib/batch-process.js";
import { nationalShape, postcodesByArea, writeNationalList, NATIONAL_DISTRICTS, NATIONAL_SECTORS } from "../lib/national-list.js";
import { writeOpenDataArchive, UK_POSTCODES } from "../lib/open-data-archive.js";
import { scratchDir } from "../lib/paths.js";
import { atMost, check, skippedCheck, type BenchContext, type Check, type Scenario } from "../lib/scenario.js";
import { startSimulatorProcess } from "../lib/simulator-process.js";
import { round, scaled, thousands } from "../lib/stats.js";

const MB = 2 ** 20;
const NIGHT_SECONDS = 60;
const NIGHT_MB = 768;
const SUMMARY_JSON_MB = 5;
const NIGHT_REQUESTS = 3_000;

const peakMb = (r: BatchProcessResult) => {
  const bytes = Math.max(r.memory?.peakRssBytes ?? 0, sampledPeakRssBytes(r) ?? 0);
  return bytes === 0 ? null : round(bytes / MB, 1);
};
const sizeMb = (path: string) => round(statSync(path).size / MB, 2);

/** One CLI's figures: wall and CPU seconds, peak resident memory. */
const cliFigures = (r: BatchProcessResult) => ({ wallSeconds: round(r.seconds, 1), cpuSeconds: r.memory ? round(r.memory.cpuSeconds, 1) : null, peakRssMb: peakMb(r), exitCode: r.exitCode });

export const national: Scenario = {
  name: "national",
  // minutes at full size: run when named (--only national), as scale
  onlyWhenNamed: true,
  drivesClis: true,
  async run(ctx: BenchContext) {
    const postcodes = scaled(UK_POSTCODES, ctx.quick, 0.1);
    const districts = scaled(NATIONAL_DISTRICTS, ctx.quick, 0.1);
    const sectors = scaled(NATIONAL_SECTORS, ctx.quick, 0.1);
    const requests = scaled(NIGHT_REQUESTS, ctx.quick, 0.1);
    const scratch = scratchDir("national");
    const sim = await startSimulatorProcess({ seed: "bench" });
    try {
      const t = performance.now();
      const shape = nationalShape(postcodes, districts, sectors);
      const list = writeNationalList(scratch.dir, shape);
      const archive = writeOpenDataArchive(scratch.dir, postcodesByArea(shape));
      const setupSeconds = (performance.now() - t) / 1000;
      ctx.log(`national: ${thousands(postcodes)} postcodes over ${thousands(districts)} districts and ${thousands(sectors)} sectors, and their open data, written in ${round(setupSeconds, 1)} s`);
      const db = join(scratch.dir, "coverage.sqlite");
      const cli = async (step: string, script: string, args: string[], ok: (code: number | null) => boolean = (c) => c === 0) => {
        ctx.log(`national: ${step}`);
        const r = await runBatchProcess({ scratch: scratch.dir, script, args, marks: {}, root: ctx.cliRoot });
        if (!ok(r.exitCode)) throw new Error(`national: ${step} exited ${r.exitCode}:\n${r.tail.join("\n")}`);
        ctx.log(`national: ${step} took ${round(r.seconds, 1)} s (${r.memory ? round(r.memory.cpuSeconds, 1) : "?"} CPU-s), peak ${peakMb(r)} MB`);
        return r;
      };
      const nightOut = join(scratch.dir, "night");
      // a night that stops at --max-requests exits 3 (a re-run resumes)
      const night = await cli("the night (batch, reports on)", "src/cli/batch.ts", [
        "--in", list, "--db", db, "--out", nightOut, "--base-url", sim.url, "--open-data", archive, "--group-by", "district,sector",
        "--max-requests", String(requests), "--concurrency", "16", "--rate", "1000000000", "--no-progress", "--log-format", "json",
      ], (c) => c === 0 || c === 3);
      const reportOut = join(scratch.dir, "report");
      const report = await cli("report --group-by district,sector", "src/cli/report.ts", ["--db", db, "--out", reportOut, "--group-by", "district,sector"]);
      const exportOut = join(scratch.dir, "export");
      const exported = await cli("export (Parquet)", "src/cli/export.ts", ["--db", db, "--out", exportOut]);
      const files = (dir: string) => Object.fromEntries(readdirSync(dir).filter((f) => !f.startsWith(".")).map((f) => [f, sizeMb(join(dir, f))]));
      const nightFiles = files(nightOut);
      const summaryMb = nightFiles["summary.json"] ?? null;
      const nightPeak = peakMb(night);
      const checks: Check[] = [
        check("the night: wall time", night.seconds, `${round(night.seconds, 1)} s (${night.memory ? round(night.memory.cpuSeconds, 1) : "?"} CPU-s)`, atMost(NIGHT_SECONDS, `≤ ${NIGHT_SECONDS} s`)),
        nightPeak === null
          ? skippedCheck("the night: peak resident memory", atMost(NIGHT_MB, `≤ ${NIGHT_MB} MB`), "peak RSS unavailable on this platform")
          : check("the night: peak resident memory", nightPeak, `${Math.round(nightPeak)} MB`, atMost(NIGHT_MB, `≤ ${NIGHT_MB} MB`)),
        summaryMb === null
          ? skippedCheck("summary.json's size", atMost(SUMMARY_JSON_MB, `≤ ${SUMMARY_JSON_MB} MB`), "the night wrote no summary.json")
          : check("summary.json's size", summaryMb, `${summaryMb} MB`, atMost(SUMMARY_JSON_MB, `≤ ${SUMMARY_JSON_MB} MB`)),
      ];
      return {
        setup: `${thousands(postcodes)} postcodes, ${thousands(districts)} districts, ${thousands(sectors)} sectors (heavy-tailed), Ofcom's files for all; a night of ${thousands(requests)} requests (--open-data, --group-by district,sector, reports on), then report and export, each CLI in a child process`,
        checks,
        figures: {
          postcodes,
          districts,
          sectors,
          requests,
          listMb: sizeMb(list),
          archiveMb: sizeMb(archive),
          setupSeconds: round(setupSeconds, 1),
          night: { ...cliFigures(night), files: nightFiles },
          report: { ...cliFigures(report), files: files(reportOut) },
          export: { ...cliFigures(exported), files: files(exportOut) },
          databaseMb: sizeMb(db),
        },
        notes: [],
      };
    } finally {
      await sim.stop();
      scratch.remove();
    }
  },
};
