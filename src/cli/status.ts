// npm run status -- [--db PATH]: the last runs (a running one with its progress and ETA) and what the database holds.
import { DEFAULT_DB } from "../pipeline/options.js";
import { existsSync } from "node:fs";
import { openReadOnly } from "../store/read-only.js";
import { databaseStatus } from "../store/status.js";
import { formatStatus } from "../report/status-text.js";
import { formatReleaseStatus, releaseStatus } from "../store/release-status.js";
import { formatQuotaStatus, quotaStatus } from "../plan/quota-status.js";
import { formatOpenDataStatus, openDataStatus } from "../plan/open-data-status.js";
import { runningProgress, formatRunningProgress } from "./running-progress.js";
import { CliError, runCli, UsageError } from "./run-cli.js";

runCli({
  name: "status",
  usage: "$0 [--db PATH]\n\nPrints the last runs recorded in the database and what it holds.",
  options: (y) =>
    y
      .option("db", { type: "string", default: DEFAULT_DB, describe: "SQLite database" })
      .option("runs", { type: "string", default: "10", describe: "how many recent runs to list" })
      .option("json", { type: "boolean", default: false, describe: "print JSON" }),
  run: (argv) => {
    if (!/^[1-9]\d{0,5}$/.test(argv.runs)) throw new UsageError(`--runs: expected a whole number >= 1, got ${JSON.stringify(argv.runs)}`);
    if (!existsSync(argv.db)) throw new CliError(`no database at ${argv.db} (run a batch first, or give --db PATH)`);
    let reader;
    try {
      reader = openReadOnly(argv.db);
    } catch (err) {
      throw new CliError((err as Error).message);
    }
    try {
      const status = databaseStatus(reader.db, Number(argv.runs));
      const running = runningProgress(reader.db, Date.now());
      const releases = releaseStatus(reader.db);
      const quota = quotaStatus(reader.db, Date.now());
      const openData = openDataStatus(reader.db);
      if (argv.json) process.stdout.write(JSON.stringify({ ...status, running, releases, quota, openData }, null, 2) + "\n");
      else
        process.stdout.write(
          formatStatus(status, argv.db) + formatRunningProgress(running) + formatReleaseStatus(releases) + formatQuotaStatus(quota) + formatOpenDataStatus(openData),
        );
    } catch (err) {
      throw new CliError(`${argv.db}: ${(err as Error).message}`);
    } finally {
      reader.close();
    }
    return 0;
  },
});
