// npm run export -- --db PATH --out DIR [--format parquet|csv] [--run ID | --all]: the stored
// answers as typed Parquet (or CSV) for DuckDB, pandas/polars, Spark (see docs/scale-and-export.md).
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { parseRunId, runCli, UsageError, withDatabase } from "./report-like.js";
import { EXPORT_FORMATS, writeExport, type ExportFormat } from "../export/write-export.js";

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
  const runId = parseRunId(argv.run);
  await withDatabase(argv.db, { readonly: true }, async (db) => {
    const result = await writeExport(db, {
      outDir: argv.out,
      format: argv.format as ExportFormat,
      runId,
      all: argv.all,
      onProgress: (m) => process.stderr.write(`export: ${m}\n`),
    });
    const scope = result.runId === null ? "every stored postcode" : `run ${result.runId}'s postcodes`;
    process.stdout.write(`exported ${scope} to ${argv.out}: ${result.tables.map((t) => `${t.path} (${t.rows} rows)`).join(", ")}\n`);
  });
  return 0;
}

runCli("export", "the export", main);
