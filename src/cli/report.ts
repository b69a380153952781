// npm run report -- [--db PATH] [--out DIR] [--run ID | --all] [--no-bom] [--good-rating 3]:
// rewrites the report set from the database, without fetching anything.
import { parseTable } from "./options/engine.js";
import { REPORT_OPTIONS } from "./report-options.js";
import { databaseMissing, noDatabaseMessage } from "../store/location.js";
import { ReportError } from "../report/set/scope.js";
import { dbReadPaths, readPathInReportSet } from "../report/set/read-paths.js";
import { declareOptions, runCli } from "./run-cli.js";
import { answerPaces } from "../plan/answer-pace.js";
import { LOOKUPS } from "../contract/fields.js";
import { systemClock } from "../fetch/clock.js";
import { clockSkewWords, serverClock, shiftedClock } from "../pipeline/team-clock.js";

runCli({
  name: "report",
  usage: "$0 [options]\n\nWrites the report set for the last run that read its input, from a SQLite or PostgreSQL database (see docs/reports.md).",
  examples: [
    ["$0 --out output", "the last run's reports again, from output/coverage.sqlite"],
    ["$0 --all --group-by region,district --out everything", "every stored postcode, grouped by region and district"],
  ],
  // --clock-offset-ms: tests of a machine whose clock is off
  options: (y) => declareOptions(y, REPORT_OPTIONS).conflicts("run", "all").option("clock-offset-ms", { type: "number", hidden: true }),
  run: async (argv) => {
    const o = parseTable(REPORT_OPTIONS, argv);
    // loaded once the command runs: --help, --version and a refused option print without them
    const [{ headlineLines, openFirstLine, REPORT_FILES, writeReports }, { openStore, storeError }] = await Promise.all([import("../report/index.js"), import("../store/open-store.js")]);
    const reads = [...dbReadPaths(o.db), ...(o.areaFile ? [{ flag: "--area-file", path: o.areaFile }] : [])];
    const clash = readPathInReportSet(reads, o.out, REPORT_FILES.map((f) => f.name));
    if (clash) throw new ReportError(clash);
    if (databaseMissing(o.db)) throw new ReportError(noDatabaseMessage(o.db));
    // Read-only; a database of an older schema is migrated first when its user may write it.
    const source = await openStore(o.db, { readonly: true, upgrade: true });
    try {
      const warn = (m: string) => process.stderr.write(`warning: ${m}\n`);
      // what has expired is judged by the database server's time, as the batch judges it (PostgreSQL)
      const local = shiftedClock(systemClock, (argv as { clockOffsetMs?: number }).clockOffsetMs ?? 0);
      const clock = await serverClock(source, local, (offset) =>
        warn(`${clockSkewWords(offset, source.location)}; the report reads what has expired by the server's time, but set this machine's clock right (NTP)`),
      );
      const result = await writeReports(source, {
        outDir: o.out,
        runId: o.run,
        all: o.all,
        bom: o.bom,
        goodRating: o.goodRating,
        mobileScale: o.mobileScale,
        groupBy: o.groupBy,
        areaFile: o.areaFile,
        uprnColumn: o.uprnColumn,
        workbookRows: o.workbookRows,
        since: o.since,
        attribution: o.attribution,
        now: () => new Date(clock.now()),
        answerPaces: await answerPaces(source, clock.now(), LOOKUPS, { runId: o.run, all: o.all }),
        onWarning: warn,
      });
      process.stdout.write(`reports written to ${o.out}: ${result.files.map((f) => f.split(/[\\/]/).pop()).join(", ")}\n`);
      for (const line of [...headlineLines(result.summary), ...result.notes]) process.stdout.write(line + "\n");
      process.stdout.write(openFirstLine(o.out) + "\n");
    } catch (err) {
      // a failure of the database names it (without password) and the cause
      throw storeError(err, o.db);
    } finally {
      await source.close();
    }
    return 0;
  },
});
