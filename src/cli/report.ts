// npm run report -- [--db PATH] [--out DIR] [--run ID | --all] [--no-bom] [--good-rating 3]:
// rewrites the CSV reports and summary from the database, without fetching anything.
import { existsSync } from "node:fs";
import Database from "better-sqlite3";
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { DatabaseError, openDatabase, type Db } from "../store/db.js";
import { headlineLines, ReportError, writeReports } from "../report/index.js";

class UsageError extends Error {}

async function main(): Promise<number> {
  const argv = await yargs(hideBin(process.argv))
    .scriptName("npm run report --")
    .usage("$0 [options]\n\nWrites the CSV reports and summary for the last run's input (see docs/reports.md).")
    .option("db", { type: "string", default: "output/coverage.sqlite", describe: "SQLite database" })
    .option("out", { type: "string", default: "output", describe: "directory for the reports" })
    .option("run", { type: "string", describe: "report this run's input instead of the last run's (an id from npm run status)" })
    .option("all", { type: "boolean", describe: "report every stored postcode instead" })
    .option("bom", { type: "boolean", default: true, describe: "start each CSV with a UTF-8 BOM (--no-bom drops it)" })
    .option("since", { type: "string", describe: "changes.csv: compare with the answers as they were at this run id or date (default: each answer's previous version)" })
    .option("good-rating", { type: "number", default: 3, describe: "mobile ratings at or above this are good coverage (1-4)" })
    .conflicts("run", "all")
    .strict()
    .exitProcess(false)
    .fail((msg, err) => {
      throw new UsageError(msg ?? err?.message ?? "invalid arguments");
    })
    .parse();
  if ((argv as { help?: boolean; version?: boolean }).help || (argv as { version?: boolean }).version) return 0;
  if (argv.run !== undefined && !/^[1-9]\d{0,15}$/.test(argv.run))
    throw new UsageError(`--run: "${argv.run}" is not a run id (a whole number; npm run status lists them)`);
  if (!existsSync(argv.db)) throw new ReportError(`no database at ${argv.db} (run a batch first, or give --db PATH)`);

  let db: Db | null = null;
  try {
    // Read-write only so that a database of an older schema is migrated first; reporting only reads.
    db = openDatabase(argv.db);
    const result = await writeReports(db, {
      outDir: argv.out,
      runId: argv.run === undefined ? undefined : Number(argv.run),
      all: argv.all,
      bom: argv.bom,
      goodRating: argv.goodRating,
      since: argv.since,
      onWarning: (m) => process.stderr.write(`warning: ${m}\n`),
    });
    process.stdout.write(`reports written to ${argv.out}: ${result.files.map((f) => f.split(/[\\/]/).pop()).join(", ")}\n`);
    for (const line of headlineLines(result.summary)) process.stdout.write(line + "\n");
  } catch (err) {
    // A file that is not this program's database, or a damaged one.
    if (err instanceof Database.SqliteError) throw new ReportError(`cannot read ${argv.db}: ${err.message}`);
    throw err;
  } finally {
    db?.close();
  }
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) process.stderr.write(`error: ${err.message}\n(npm run report -- --help lists the options)\n`);
    else if (err instanceof ReportError || err instanceof DatabaseError) process.stderr.write(`error: ${err.message}\n`);
    else if (err instanceof Error && "code" in err && typeof err.code === "string" && /^E[A-Z]+$/.test(err.code))
      // File system errors (a read-only or full --out): the message names the path.
      process.stderr.write(`error: cannot write the reports: ${err.message}\n`);
    else process.stderr.write(`error: unexpected failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
