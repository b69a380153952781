// npx tsx bench/workbook-memory.ts [--addresses 500000]: peak memory of the whole report set,
// coverage.xlsx included, at two sizes (a fifth of N, then N mobile addresses), each written by a
// child process that bench/lib/peak-rss-hook.ts measures, with its wall and CPU time (the CPU time
// is the figure to compare on a busy machine). A streamed workbook keeps the peak
// flat as the rows grow five-fold; docs/reports.md quotes the figures.
import { spawnSync } from "node:child_process";
import { createWriteStream, readFileSync, statSync } from "node:fs";
import { once } from "node:events";
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
  const areaFile = args[3];
  await writeReports(db, { outDir: args[2]!, ...(areaFile ? { areaFile, groupBy: ["district", "oslaua"] } : {}) });
  db.close();
  const cpu = process.cpuUsage();
  process.stdout.write(JSON.stringify({ wall: (performance.now() - started) / 1000, cpu: (cpu.user + cpu.system) / 1e6 }));
} else {
  const flag = (name: string, fallback: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
  const n = flag("--addresses", 500_000);
  const areaRows = flag("--area-rows", 0);
  const scratch = scratchDir("report-memory");
  try {
    for (const size of [Math.round(n / 5), n]) {
      const dbPath = join(scratch.dir, `mobile-${size}.sqlite`);
      const built = buildMobileDb(dbPath, size);
      const out = join(scratch.dir, `out-${size}`);
      const areaFile = areaRows > 0 ? await writeAreaFile(join(scratch.dir, `areas-${size}.csv`), areaRows, dbPath) : null;
      const rssFile = join(scratch.dir, `rss-${size}.json`);
      const child = spawnSync(
        process.execPath,
        ["--import", "tsx", "--import", join(ROOT, "bench/lib/peak-rss-hook.ts"), fileURLToPath(import.meta.url), "--child", dbPath, out, ...(areaFile ? [areaFile] : [])],
        { cwd: ROOT, encoding: "utf8", env: { ...process.env, BENCH_PEAK_RSS_FILE: rssFile } },
      );
      if (child.status !== 0) throw new Error(`the report child failed: ${child.stderr}`);
      const report = JSON.parse(readFileSync(rssFile, "utf8")) as MemoryReport;
      const xlsx = statSync(join(out, "coverage.xlsx")).size;
      const time = JSON.parse(child.stdout) as { wall: number; cpu: number };
      process.stdout.write(
        `${thousands(built.addresses)} mobile addresses in ${thousands(built.postcodes)} postcodes: all reports ${round(time.wall, 1)} s (CPU ${round(time.cpu, 1)} s), ` +
          `peak RSS ${round(report.peakRssBytes / 2 ** 20, 0)} MiB, coverage.xlsx ${round(xlsx / 2 ** 20, 1)} MiB` +
          (areaFile ? `, grouped by a ${thousands(areaRows)}-row area file of ${round(statSync(areaFile).size / 2 ** 20, 0)} MiB` : "") +
          "\n",
      );
    }
  } finally {
    scratch.remove();
  }
}

/** An ONS-directory-like CSV: `rows` synthetic postcodes with their areas, then the database's own postcodes. */
async function writeAreaFile(path: string, rows: number, dbPath: string): Promise<string> {
  const file = createWriteStream(path);
  const write = async (line: string) => {
    if (!file.write(line)) await once(file, "drain");
  };
  const FIRST = "ABCDEFGHKLMNOPRSTUWY";
  const SECOND = "ABCDEFGHKLMNOPQRSTUVWXY";
  const UNIT = "ABDEFGHJLNPQRSTUWXYZ";
  await write("pcd,pcd2,pcds,dointr,oslaua,osward,pcon\n");
  for (let i = 0; i < rows; i++) {
    const outward = `${FIRST[i % 20]}${SECOND[Math.floor(i / 20) % 23]}${1 + (Math.floor(i / 460) % 99)}`;
    const inward = `${Math.floor(i / 45_540) % 10}${UNIT[Math.floor(i / 455_400) % 20]}${UNIT[Math.floor(i / 9_108_000) % 20]}`;
    const pc = `${outward} ${inward}`;
    await write(`${pc.replace(" ", "")},${pc},${pc},202401,E0${String(i % 400).padStart(7, "0")},E05${String(i % 9000).padStart(6, "0")},E14${String(i % 650).padStart(6, "0")}\n`);
  }
  const db = openDatabase(dbPath);
  for (const p of db.prepare("SELECT DISTINCT postcode FROM run_rows WHERE postcode IS NOT NULL").pluck().all() as string[])
    await write(`${p},${p},${p},202401,W06000015,W05000867,W07000050\n`);
  db.close();
  file.end();
  await once(file, "close");
  return path;
}
