// npm run export -- --out DIR [--db PATH] [--format parquet|csv] [--run ID | --all]: the stored
// answers as typed Parquet (or CSV) for DuckDB, pandas/polars, Spark (see docs/scale-and-export.md).
import { parseTable } from "./options/engine.js";
import { EXPORT_OPTIONS } from "./export-options.js";
import { databaseMissing, noDatabaseMessage } from "../store/location.js";
import { EXPORT_FORMATS, writeExport } from "../export/write-export.js";
import { EXPORT_TABLES } from "../figures/export-tables.js";
import { dbReadPaths, readPathInReportSet } from "../report/set/read-paths.js";
import { CliError, declareOptions, runCli } from "./run-cli.js";

runCli({
  name: "export",
  usage: "$0 --out DIR [options]\n\nWrites the stored answers of a SQLite or PostgreSQL database as Parquet (or CSV) files (see docs/scale-and-export.md).",
  examples: [
    ["$0 --out export", "the last run's postcodes from output/coverage.sqlite as Parquet files in export/"],
    ["$0 --out export --all --format csv", "every stored postcode, as CSV files"],
  ],
  options: (y) => declareOptions(y, EXPORT_OPTIONS).conflicts("run", "all"),
  run: async (argv) => {
    const o = parseTable(EXPORT_OPTIONS, argv);
    const tables = EXPORT_TABLES.flatMap((t) => EXPORT_FORMATS.map((f) => `${t.name}.${f}`));
    const clash = readPathInReportSet(dbReadPaths(o.db), o.out, tables, "the export");
    if (clash) throw new CliError(clash);
    if (databaseMissing(o.db)) throw new CliError(noDatabaseMessage(o.db));
    // Read-only; a database of an older schema is migrated first when its user may write it. The
    // store is loaded here: --help, --version and a refused option print without it.
    const { openStore } = await import("../store/open-store.js");
    const source = await openStore(o.db, { readonly: true, upgrade: true });
    try {
      const result = await writeExport(source, {
        outDir: o.out,
        format: o.format,
        runId: o.run,
        all: o.all,
        areaFile: o.areaFile,
        onProgress: (m) => process.stderr.write(`export: ${m}\n`),
      });
      const scope = result.runId === null ? "every stored postcode" : `run ${result.runId}'s postcodes`;
      process.stdout.write(`exported ${scope} to ${o.out}: ${result.tables.map((t) => `${t.path} (${t.rows} rows)`).join(", ")}\n`);
    } catch (err) {
      // DuckDB's own words for a full disk: "IO Error: Could not write file ...: No space left on device"
      if (err instanceof Error && /No space left on device|ENOSPC/i.test(err.message))
        throw new CliError(`cannot write the export to ${o.out}: no space left on the device; the previous export is kept`);
      throw err;
    } finally {
      await source.close();
    }
    return 0;
  },
});
