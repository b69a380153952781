// Open data: a synthetic whole-UK release of Ofcom's postcode files (1,741,096 postcodes in 121 area
// files, a zip in a zip) imported by the batch CLI (--open-data) in a process of its own: the
// import's time (target under 2 minutes) and the process's peak resident memory (bounded: under
// 300 MB, as the memory scenario). The run fetches nothing (--max-requests 0, no reports).
import { statSync } from "node:fs";
import { join } from "node:path";
import { runBatchProcess } from "../lib/batch-process.js";
import { writeUkArchive, UK_AREAS, UK_POSTCODES } from "../lib/open-data-archive.js";
import { scratchDir } from "../lib/paths.js";
import { below, check, skippedCheck, type BenchContext, type Scenario } from "../lib/scenario.js";
import { round, scaled, thousands } from "../lib/stats.js";
import { writeFileSync } from "node:fs";

const MB = 2 ** 20;
const LIMIT_SECONDS = 120;
const LIMIT_MB = 300;

export const openData: Scenario = {
  name: "open-data",
  async run(ctx: BenchContext) {
    const n = scaled(UK_POSTCODES, ctx.quick, 0.1);
    const scratch = scratchDir("open-data");
    try {
      ctx.log(`open-data: writing a synthetic archive of ${thousands(n)} postcodes in ${UK_AREAS} area files (zip in a zip)`);
      const t = performance.now();
      const archive = writeUkArchive(scratch.dir, n);
      const writeSeconds = (performance.now() - t) / 1000;
      const input = join(scratch.dir, "in.csv");
      writeFileSync(input, "postcode\nSW1A 2AA\n");
      ctx.log(`open-data: importing it with the batch CLI (--open-data), in a child process`);
      const run = await runBatchProcess({
        scratch: scratch.dir,
        args: [
          "--in", input,
          "--db", join(scratch.dir, "coverage.sqlite"),
          "--out", join(scratch.dir, "out"),
          "--simulate",
          "--lookups", "broadband",
          "--max-requests", "0",
          "--no-reports",
          "--open-data", archive,
          "--no-progress",
          "--log-format", "json",
        ],
        marks: { imported: /"event":"open_data"/ },
      });
      const event = run.tail.map((l) => { try { return JSON.parse(l) as Record<string, unknown>; } catch { return {}; } }).find((e) => e.event === "open_data");
      if (!event) throw new Error(`open-data: the batch logged no import (exit ${run.exitCode}):\n${run.tail.join("\n")}`);
      const seconds = event.seconds as number;
      const peakBytes = run.memory?.peakRssBytes ?? null;
      return {
        setup: `${thousands(n)} postcodes, ${UK_AREAS} area files, ${round(statSync(archive).size / MB, 1)} MB archive (zip in a zip); batch CLI in a child process`,
        checks: [
          check("import time", seconds, `${round(seconds, 1)} s (${thousands(n / seconds)} rows/s)`, below(LIMIT_SECONDS, `< ${LIMIT_SECONDS} s`)),
          peakBytes === null
            ? skippedCheck("peak resident memory of the batch process", below(LIMIT_MB, `< ${LIMIT_MB} MB`), "peak RSS unavailable on this platform")
            : check("peak resident memory of the batch process", peakBytes / MB, `${Math.round(peakBytes / MB)} MB`, below(LIMIT_MB, `< ${LIMIT_MB} MB`)),
        ],
        figures: {
          postcodes: n,
          files: UK_AREAS,
          archiveMb: round(statSync(archive).size / MB, 1),
          archiveWriteSeconds: round(writeSeconds, 1),
          importSeconds: round(seconds, 1),
          processSeconds: round(run.seconds, 1),
          rowsPerSecond: Math.round(n / seconds),
          peakRssMb: peakBytes === null ? null : round(peakBytes / MB, 1),
          storedPostcodes: event.postcodes,
        },
        notes: [],
      };
    } finally {
      scratch.remove();
    }
  },
};
