// npm run export -- --out DIR [--db PATH] [--format parquet|csv] [--run ID | --all]: the stored
// answers as typed Parquet (or CSV) for DuckDB, pandas/polars, Spark (see docs/scale-and-export.md).
import { parseTable } from "./options/engine.js";
import { EXPORT_OPTIONS } from "./export-options.js";
import { existsSync } from "node:fs";
import { openStore } from "../store/open-store.js";
import { isPostgresUrl } from "../store/location.js";
import { EXPORT_FORMATS, writeExport } from "../export/write-export.js";
import { EXPORT_TABLES } from "../figures/export-tables.js";
import { dbReadPaths, readPathInReportSet } from "../report/read-paths.js";
import { CliError, declareOptions, runCli } from "./run-cli.js";

runCli({
  name: "export",
  usage: "$0 --out DIR [options]\n\nWrites the stored answers as Parquet (or CSV) files (see docs/scale-and-export.md).",
  options: (y) => declareOptions(y, EXPORT_OPTIONS).conflicts("run", "all"),
  run: async (argv) => {
    const o = parseTable(EXPORT_OPTIONS, argv);
    const tables = EXPORT_TABLES.flatMap((t) => EXPORT_FORMATS.map((f) => `${t.name}.${f}`));
    const clash = readPathInReportSet(dbReadPaths(o.db), o.out, tables, "the export");
    if (clash) throw new CliError(clash);
    if (!isPostgresUrl(o.db) && !existsSync(o.db)) throw new CliError(`no database at ${o.db} (run a batch first, or give --db PATH)`);
    const source = await openStore(o.db, { readonly: true });
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
