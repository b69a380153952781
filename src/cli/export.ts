// npm run export -- --out DIR [--db PATH] [--format parquet|csv] [--run ID | --all]: the stored
// answers as typed Parquet (or CSV) for DuckDB, pandas/polars, Spark (see docs/scale-and-export.md).
import { DEFAULT_DB } from "../pipeline/options.js";
import { existsSync } from "node:fs";
import Database from "better-sqlite3";
import { openReadOnly } from "../store/read-only.js";
import { EXPORT_FORMATS, writeExport, type ExportFormat } from "../export/write-export.js";
import { EXPORT_TABLES } from "../export/tables.js";
import { readPathInReportSet } from "../report/read-paths.js";
import { CliError, parseRunId, runCli, UsageError } from "./run-cli.js";

runCli({
  name: "export",
  usage: "$0 --out DIR [options]\n\nWrites the stored answers as Parquet (or CSV) files (see docs/scale-and-export.md).",
  options: (y) =>
    y
      .option("db", { type: "string", default: DEFAULT_DB, describe: "SQLite database" })
      .option("out", { type: "string", demandOption: true, describe: "directory for the export" })
      .option("format", { type: "string", default: "parquet", describe: "parquet or csv" })
      .option("run", { type: "string", describe: "export this run's postcodes instead of the last run's (an id from npm run status)" })
      .option("all", { type: "boolean", describe: "export every stored postcode instead" })
      .option("area-file", { type: "string", describe: "CSV of postcodes with lat and long columns (e.g. an ONS postcode directory extract): the postcodes table's latitude and longitude" })
      .conflicts("run", "all"),
  run: async (argv) => {
    if (!(EXPORT_FORMATS as readonly string[]).includes(argv.format))
      throw new UsageError(`--format: "${argv.format}" is not one of ${EXPORT_FORMATS.join(", ")}`);
    const runId = parseRunId(argv.run);
    const tables = EXPORT_TABLES.flatMap((t) => EXPORT_FORMATS.map((f) => `${t.name}.${f}`));
    const clash = readPathInReportSet(["", "-wal", "-shm"].map((s) => ({ flag: "--db", path: argv.db + s })), argv.out, tables, "the export");
    if (clash) throw new CliError(clash);
    if (!existsSync(argv.db)) throw new CliError(`no database at ${argv.db} (run a batch first, or give --db PATH)`);
    const reader = openReadOnly(argv.db);
    try {
      const result = await writeExport(reader.db, {
        outDir: argv.out,
        format: argv.format as ExportFormat,
        runId,
        all: argv.all,
        areaFile: argv.areaFile,
        onProgress: (m) => process.stderr.write(`export: ${m}\n`),
      });
      const scope = result.runId === null ? "every stored postcode" : `run ${result.runId}'s postcodes`;
      process.stdout.write(`exported ${scope} to ${argv.out}: ${result.tables.map((t) => `${t.path} (${t.rows} rows)`).join(", ")}\n`);
    } catch (err) {
      // a damaged database: one line naming it
      if (err instanceof Database.SqliteError) throw new CliError(`cannot read ${argv.db}: ${err.message}`);
      // DuckDB's own words for a full disk: "IO Error: Could not write file ...: No space left on device"
      if (err instanceof Error && /No space left on device|ENOSPC/i.test(err.message))
        throw new CliError(`cannot write the export to ${argv.out}: no space left on the device; the previous export is kept`);
      throw err;
    } finally {
      reader.close();
    }
    return 0;
  },
});
