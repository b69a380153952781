// npm run status -- [--db PATH]: the last runs (a running one with its progress and ETA) and what the database holds.
import { parseTable, STATUS_OPTIONS } from "../pipeline/options.js";
import { existsSync } from "node:fs";
import { openReadOnly } from "../store/sqlite/read-only.js";
import { databaseStatus } from "../store/sqlite/status.js";
import { formatStatus } from "../report/status-text.js";
import { formatReleaseStatus, releaseStatus } from "../store/sqlite/release-status.js";
import { formatQuotaStatus, quotaStatus } from "../plan/quota-status.js";
import { formatOpenDataStatus, openDataStatus } from "../plan/open-data-status.js";
import { runningProgress, formatRunningProgress } from "./running-progress.js";
import { CliError, declareOptions, runCli } from "./run-cli.js";

runCli({
  name: "status",
  usage: "$0 [--db PATH]\n\nPrints the last runs recorded in the database and what it holds.",
  options: (y) => declareOptions(y, STATUS_OPTIONS),
  run: (argv) => {
    const o = parseTable(STATUS_OPTIONS, argv);
    if (!existsSync(o.db)) throw new CliError(`no database at ${o.db} (run a batch first, or give --db PATH)`);
    let reader;
    try {
      reader = openReadOnly(o.db);
    } catch (err) {
      throw new CliError((err as Error).message);
    }
    try {
      const status = databaseStatus(reader.db, o.runs);
      const running = runningProgress(reader.db, Date.now());
      const releases = releaseStatus(reader.db);
      const quota = quotaStatus(reader.db, Date.now());
      const openData = openDataStatus(reader.db);
      if (o.json) process.stdout.write(JSON.stringify({ ...status, running, releases, quota, openData }, null, 2) + "\n");
      else
        process.stdout.write(
          formatStatus(status, o.db) + formatRunningProgress(running) + formatReleaseStatus(releases) + formatQuotaStatus(quota) + formatOpenDataStatus(openData),
        );
    } catch (err) {
      throw new CliError(`${o.db}: ${(err as Error).message}`);
    } finally {
      reader.close();
    }
    return 0;
  },
});
