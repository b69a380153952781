// npx tsx bench/workbook-memory.ts [--addresses 500000]: peak memory of the whole report set,
// coverage.xlsx included, at two sizes (a fifth of N, then N mobile addresses), each written by a
// child process that bench/lib/peak-rss-hook.ts measures, with its wall and CPU time (the CPU time
// is the figure to compare on a busy machine). A streamed workbook keeps the peak
// flat as the rows grow five-fold; docs/reports.md quotes the figures.
import { spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openDatabase } from "../src/store/db.js";
import { writeReports } from "../src/report/index.js";
import type { MemoryReport } from "./lib/peak-rss-hook.js";
import { buildMobileDb } from "./lib/mobile-db.js";
import { ROOT, scratchDir } from "./lib/paths.js";
import { round, thousands } from "./lib/stats.js";

const args = process.argv.slice(2);

if (args[0] === "--child") {
  const db = openDatabase(args[1]!);
  const started = performance.now();
  await writeReports(db, { outDir: args[2]! });
  db.close();
  const cpu = process.cpuUsage();
  process.stdout.write(JSON.stringify({ wall: (performance.now() - started) / 1000, cpu: (cpu.user + cpu.system) / 1e6 }));
} else {
  const at = args.indexOf("--addresses");
  const n = at >= 0 ? Number(args[at + 1]) : 500_000;
  const scratch = scratchDir("workbook-memory");
  try {
    for (const size of [Math.round(n / 5), n]) {
      const dbPath = join(scratch.dir, `mobile-${size}.sqlite`);
      const built = buildMobileDb(dbPath, size);
      const out = join(scratch.dir, `out-${size}`);
      const rssFile = join(scratch.dir, `rss-${size}.json`);
      const child = spawnSync(
        process.execPath,
        ["--import", "tsx", "--import", join(ROOT, "bench/lib/peak-rss-hook.ts"), fileURLToPath(import.meta.url), "--child", dbPath, out],
        { cwd: ROOT, encoding: "utf8", env: { ...process.env, BENCH_PEAK_RSS_FILE: rssFile } },
      );
      if (child.status !== 0) throw new Error(`the report child failed: ${child.stderr}`);
      const report = JSON.parse(readFileSync(rssFile, "utf8")) as MemoryReport;
      const xlsx = statSync(join(out, "coverage.xlsx")).size;
      const time = JSON.parse(child.stdout) as { wall: number; cpu: number };
      process.stdout.write(
        `${thousands(built.addresses)} mobile addresses in ${thousands(built.postcodes)} postcodes: all reports ${round(time.wall, 1)} s (CPU ${round(time.cpu, 1)} s), ` +
          `peak RSS ${round(report.peakRssBytes / 2 ** 20, 0)} MiB, coverage.xlsx ${round(xlsx / 2 ** 20, 1)} MiB\n`,
      );
    }
  } finally {
    scratch.remove();
  }
}
