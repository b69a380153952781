// Report: mobile.csv for a database of 1,000,000 mobile addresses, written by the project's report
// code, against the sqlite3 shell's own CSV export of the same rows and columns (the ratings and
// the per-provider yes/no columns, computed by the report's own SQL). Runs alternate
// (report, shell, shell, report, report, shell) and the median of each is compared.
import { createReadStream } from "node:fs";
import { join } from "node:path";
import { mobileFields } from "../../src/contract/fields.js";
import { openDatabase } from "../../src/store/sqlite/db.js";
import { writeAddressReport } from "../../src/report/index.js";
import { goodColumns } from "../../src/figures/measures.js";
import { BOUND_GOOD, goodSql } from "../../src/store/sql/measures.js";
import { buildMobileDb } from "../lib/mobile-db.js";
import { scratchDir } from "../lib/paths.js";
import { atMost, check, skippedCheck, type BenchContext, type Check, type Scenario } from "../lib/scenario.js";
import { SQLITE3_INSTALL_HINT, sqlite3CsvExport, sqlite3Version } from "../lib/sqlite-shell.js";
import { median, round, scaled, thousands } from "../lib/stats.js";
import { sqliteSnapshotSource } from "../../src/store/sqlite/report/source.js";

const TARGET = atMost(1.5);

export const report: Scenario = {
  name: "report",
  async run(ctx: BenchContext) {
    const n = scaled(1_000_000, ctx.quick, 0.2);
    // three each, also when quick: the shell's own time varies by half from run to run on a shared machine
    const repeats = 3;
    const scratch = scratchDir("report");
    try {
      const dbPath = join(scratch.dir, "coverage.sqlite");
      ctx.log(`report: building a database of ${thousands(n)} mobile addresses`);
      const built = buildMobileDb(dbPath, n);
      const version = sqlite3Version();
      if (version === null) ctx.log(`report: ${SQLITE3_INSTALL_HINT}; timing the report alone`);

      const reportRuns: { seconds: number; rows: number; lines: number }[] = [];
      const shellRuns: { seconds: number; lines: number }[] = [];
      const runReport = async () => {
        const out = join(scratch.dir, "mobile.csv");
        const r = await timeMobileCsv(dbPath, built.runId, out);
        reportRuns.push({ ...r, lines: await countLines(out) });
      };
      const runShell = async () => {
        const out = join(scratch.dir, "shell.csv");
        const seconds = await sqlite3CsvExport(dbPath, shellSql(), out);
        shellRuns.push({ seconds, lines: await countLines(out) });
      };
      for (let r = 0; r < repeats; r++) {
        const order = r % 2 === 0 ? [runReport, runShell] : [runShell, runReport];
        for (const step of order) if (version !== null || step === runReport) await step();
        ctx.log(`report: round ${r + 1}/${repeats} done`);
      }

      const reportSeconds = median(reportRuns.map((r) => r.seconds));
      const rows = reportRuns[0]!.rows;
      if (rows !== built.addresses) throw new Error(`report: mobile.csv has ${rows} rows, the database ${built.addresses} addresses`);
      const checks: Check[] = [];
      const notes: string[] = [];
      let shellSeconds: number | null = null;
      if (version === null) {
        checks.push(skippedCheck("mobile.csv ÷ sqlite3 shell export", TARGET, SQLITE3_INSTALL_HINT, `skipped (report alone ${round(reportSeconds, 2)} s)`));
      } else {
        shellSeconds = median(shellRuns.map((r) => r.seconds));
        if (shellRuns.some((s) => s.lines !== reportRuns[0]!.lines))
          throw new Error(`report: the shell wrote ${shellRuns[0]!.lines} lines, the report ${reportRuns[0]!.lines}`);
        const ratio = reportSeconds / shellSeconds;
        checks.push(
          check("mobile.csv ÷ sqlite3 shell export", ratio, `${round(ratio, 2)} (${round(reportSeconds, 2)} s vs ${round(shellSeconds, 2)} s)`, TARGET),
        );
        if (ratio > TARGET.value)
          notes.push(
            `report: ${thousands(rows / reportSeconds)} rows/s against the shell's ${thousands(rows / shellSeconds)}; ` +
              "profile with `node --cpu-prof` on bench/bench.ts --only report.",
          );
      }
      return {
        setup: `${thousands(built.addresses)} mobile addresses in ${thousands(built.postcodes)} postcodes; median of ${repeats} alternating runs each`,
        checks,
        figures: {
          addresses: built.addresses,
          postcodes: built.postcodes,
          buildSeconds: round(built.seconds, 1),
          sqlite3: version,
          reportSeconds: reportRuns.map((r) => round(r.seconds)),
          shellSeconds: shellRuns.map((r) => round(r.seconds)),
          ratio: shellSeconds === null ? null : round(reportSeconds / shellSeconds),
          reportRowsPerSecond: Math.round(rows / reportSeconds),
          shellRowsPerSecond: shellSeconds === null ? null : Math.round(rows / shellSeconds),
        },
        notes,
      };
    } finally {
      scratch.remove();
    }
  },
};

/** The good rating both sides compare with, given explicitly: the report's own default follows the scale of the data. */
const GOOD_RATING = 3;

/** mobile.csv alone, by the report's own entry point for one address file (scope, snapshot, atomic write). */
async function timeMobileCsv(dbPath: string, runId: number, out: string): Promise<{ seconds: number; rows: number }> {
  const db = openDatabase(dbPath);
  try {
    const started = performance.now();
    const rows = await writeAddressReport(sqliteSnapshotSource(db), "mobile.csv", out, { runId, bom: true, goodRating: GOOD_RATING });
    return { seconds: (performance.now() - started) / 1000, rows };
  } finally {
    db.close();
  }
}

/** The same columns from the shell: ratings, then the yes/no columns through the report's own SQL. */
function shellSql(): string {
  const fields = mobileFields();
  const good = goodColumns(["ProvA", "ProvB", "ProvC", "ProvD"]).map((g) => `${goodSql(`m.${g.rating}`, BOUND_GOOD)} AS ${g.column}`);
  return (
    `SELECT m.postcode AS PostCode, m.uprn AS UPRN, m.address AS AddressShortDescription, ${fields.map((f) => `m.${f}`).join(", ")}, ${good.join(", ")} ` +
    `FROM mobile_addresses m ORDER BY m.postcode, m.uprn`
  ).replaceAll("@good", String(GOOD_RATING));
}

async function countLines(path: string): Promise<number> {
  let lines = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  }
  return lines;
}
