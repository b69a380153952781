// npm run report -- [--db PATH] [--out DIR] [--run ID | --all] [--no-bom] [--good-rating 3]:
// rewrites the CSV reports and summary from the database, without fetching anything.
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { parseRunId, runCli, UsageError, withDatabase } from "./report-like.js";
import { headlineLines, writeReports } from "../report/index.js";

async function main(): Promise<number> {
  const argv = await yargs(hideBin(process.argv))
    .scriptName("npm run report --")
    .usage("$0 [options]\n\nWrites the CSV reports and summary for the last run's input (see docs/reports.md).")
    .option("db", { type: "string", default: "output/coverage.sqlite", describe: "SQLite database" })
    .option("out", { type: "string", default: "output", describe: "directory for the reports" })
    .option("run", { type: "string", describe: "report this run's input instead of the last run's (an id from npm run status)" })
    .option("all", { type: "boolean", describe: "report every stored postcode instead" })
    .option("bom", { type: "boolean", default: true, describe: "start each CSV with a UTF-8 BOM (--no-bom drops it)" })
    .option("good-rating", { type: "number", default: 3, describe: "mobile ratings at or above this are good coverage (1-4)" })
    .conflicts("run", "all")
    .strict()
    .exitProcess(false)
    .fail((msg, err) => {
      throw new UsageError(msg ?? err?.message ?? "invalid arguments");
    })
    .parse();
  if ((argv as { help?: boolean; version?: boolean }).help || (argv as { version?: boolean }).version) return 0;
  const runId = parseRunId(argv.run);
  // Read-write only so that a database of an older schema is migrated first; reporting only reads.
  await withDatabase(argv.db, {}, async (db) => {
    const result = await writeReports(db, {
      outDir: argv.out,
      runId,
      all: argv.all,
      bom: argv.bom,
      goodRating: argv.goodRating,
      onWarning: (m) => process.stderr.write(`warning: ${m}\n`),
    });
    process.stdout.write(`reports written to ${argv.out}: ${result.files.map((f) => f.split(/[\\/]/).pop()).join(", ")}\n`);
    for (const line of headlineLines(result.summary)) process.stdout.write(line + "\n");
  });
  return 0;
}

runCli("report", "the reports", main);
