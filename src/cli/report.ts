// npm run report -- [--db PATH] [--out DIR] [--run ID | --all] [--no-bom] [--good-rating 3]:
// rewrites the report set from the database, without fetching anything.
import { DEFAULT_DB } from "../pipeline/options.js";
import { existsSync } from "node:fs";
import Database from "better-sqlite3";
import { openForReport, type ReadOnlyDb } from "../store/read-only.js";
import { headlineLines, openFirstLine, REPORT_FILES, ReportError, writeReports } from "../report/index.js";
import { readPathInReportSet } from "../report/read-paths.js";
import { BATCH_OPTIONS } from "../pipeline/options.js";
import { parseRunId, runCli, UsageError } from "./run-cli.js";

runCli({
  name: "report",
  usage: "$0 [options]\n\nWrites the report set for the last run that read its input (see docs/reports.md).",
  options: (y) =>
    y
      .option("db", { type: "string", default: DEFAULT_DB, describe: "SQLite database" })
      .option("out", { type: "string", default: "output", describe: "directory for the reports" })
      .option("run", { type: "string", describe: "report this run's input instead of the last run's (an id from npm run status)" })
      .option("all", { type: "boolean", describe: "report every stored postcode instead" })
      .option("bom", { type: "boolean", default: true, describe: "start each CSV with a UTF-8 BOM (--no-bom drops it)" })
      .option("since", { type: "string", describe: "changes.csv: compare with the answers as they were at this run id or date (default: each answer's previous version)" })
      .option("good-rating", { type: "string", default: "3", describe: "mobile ratings at or above this are good coverage (2-4)" })
      .option("group-by", { type: "string", describe: BATCH_OPTIONS.groupBy.help })
      .option("area-file", { type: "string", describe: BATCH_OPTIONS.areaFile.help })
      .option("uprn-column", { type: "string", describe: BATCH_OPTIONS.uprnColumn.help })
      .option("workbook-rows", { type: "string", default: String(BATCH_OPTIONS.workbookRows.default), describe: BATCH_OPTIONS.workbookRows.help })
      .conflicts("run", "all"),
  run: async (argv) => {
    const runId = parseRunId(argv.run);
    if (!/^\d+$/.test(argv.goodRating)) throw new UsageError(`--good-rating: expected a whole number, got ${JSON.stringify(argv.goodRating)}`);
    const reads = [...["", "-wal", "-shm"].map((s) => ({ flag: "--db", path: argv.db + s })), ...(argv.areaFile ? [{ flag: "--area-file", path: argv.areaFile }] : [])];
    const clash = readPathInReportSet(reads, argv.out, REPORT_FILES.map((f) => f.name));
    if (clash) throw new ReportError(clash);
    if (!existsSync(argv.db)) throw new ReportError(`no database at ${argv.db} (run a batch first, or give --db PATH)`);
    let reader: ReadOnlyDb | null = null;
    try {
      // Read-only; a database of an older schema is migrated first when its user may write it.
      reader = openForReport(argv.db);
      const result = await writeReports(reader.db, {
        outDir: argv.out,
        runId,
        all: argv.all,
        bom: argv.bom,
        goodRating: Number(argv.goodRating),
        groupBy: BATCH_OPTIONS.groupBy.parse(argv.groupBy, "--group-by"),
        areaFile: argv.areaFile,
        uprnColumn: argv.uprnColumn,
        workbookRows: BATCH_OPTIONS.workbookRows.parse(argv.workbookRows, "--workbook-rows"),
        since: argv.since,
        onWarning: (m) => process.stderr.write(`warning: ${m}\n`),
      });
      process.stdout.write(`reports written to ${argv.out}: ${result.files.map((f) => f.split(/[\\/]/).pop()).join(", ")}\n`);
      for (const line of [...headlineLines(result.summary), ...result.notes]) process.stdout.write(line + "\n");
      process.stdout.write(openFirstLine(argv.out) + "\n");
    } catch (err) {
      // A file that is not this program's database, or a damaged one.
      if (err instanceof Database.SqliteError) throw new ReportError(`cannot read ${argv.db}: ${err.message}`);
      throw err;
    } finally {
      reader?.close();
    }
    return 0;
  },
});
