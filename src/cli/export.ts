// npm run export -- --db PATH --out DIR [--format parquet|csv] [--run ID | --all]: the stored
// answers as typed Parquet (or CSV) for DuckDB, pandas/polars, Spark (see docs/scale-and-export.md).
import { existsSync } from "node:fs";
import Database from "better-sqlite3";
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { DatabaseError, openDatabase, type Db } from "../store/db.js";
import { ReportError } from "../report/scope.js";
import { EXPORT_FORMATS, writeExport, type ExportFormat } from "../export/write-export.js";

class UsageError extends Error {}

async function main(): Promise<number> {
  const argv = await yargs(hideBin(process.argv))
    .scriptName("npm run export --")
    .usage("$0 --out DIR [options]\n\nWrites the stored answers as Parquet (or CSV) files (see docs/scale-and-export.md).")
    .option("db", { type: "string", default: "output/coverage.sqlite", describe: "SQLite database" })
    .option("out", { type: "string", demandOption: true, describe: "directory for the export" })
    .option("format", { type: "string", default: "parquet", describe: "parquet or csv" })
    .option("run", { type: "string", describe: "export this run's postcodes instead of the last run's (an id from npm run status)" })
    .option("all", { type: "boolean", describe: "export every stored postcode instead" })
    .conflicts("run", "all")
    .strict()
    .exitProcess(false)
    .fail((msg, err) => {
      throw new UsageError(msg ?? err?.message ?? "invalid arguments");
    })
    .parse();
  if ((argv as { help?: boolean; version?: boolean }).help || (argv as { version?: boolean }).version) return 0;
  if (!(EXPORT_FORMATS as readonly string[]).includes(argv.format))
    throw new UsageError(`--format: "${argv.format}" is not one of ${EXPORT_FORMATS.join(", ")}`);
  if (argv.run !== undefined && !/^[1-9]\d{0,15}$/.test(argv.run))
    throw new UsageError(`--run: "${argv.run}" is not a run id (a whole number; npm run status lists them)`);
  if (!existsSync(argv.db)) throw new ReportError(`no database at ${argv.db} (run a batch first, or give --db PATH)`);

  let db: Db | null = null;
  try {
    db = openDatabase(argv.db, { readonly: true });
    const result = await writeExport(db, {
      outDir: argv.out,
      format: argv.format as ExportFormat,
      runId: argv.run === undefined ? undefined : Number(argv.run),
      all: argv.all,
      onProgress: (m) => process.stderr.write(`export: ${m}\n`),
    });
    const scope = result.runId === null ? "every stored postcode" : `run ${result.runId}'s postcodes`;
    process.stdout.write(`exported ${scope} to ${argv.out}: ${result.tables.map((t) => `${t.path} (${t.rows} rows)`).join(", ")}\n`);
  } catch (err) {
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
    if (err instanceof UsageError) process.stderr.write(`error: ${err.message}\n(npm run export -- --help lists the options)\n`);
    else if (err instanceof ReportError || err instanceof DatabaseError) process.stderr.write(`error: ${err.message}\n`);
    else if (err instanceof Error && "code" in err && typeof err.code === "string" && /^E[A-Z]+$/.test(err.code))
      process.stderr.write(`error: cannot write the export: ${err.message}\n`);
    else process.stderr.write(`error: unexpected failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
