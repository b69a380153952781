// npm run status -- [--db PATH]: the last runs (a running one with its progress and ETA) and what the database holds.
import { parseTable } from "./options/engine.js";
import { STATUS_OPTIONS } from "./status-options.js";
import { databaseMissing, noDatabaseMessage } from "../store/location.js";
import type { Store } from "../store/store.js";
import { DatabaseError } from "../store/types.js";
import { formatOpenDataStatus, formatQuotaStatus, formatReleaseStatus, formatRunningProgress, formatStatus } from "./status-text.js";
import { quotaStatus } from "../plan/quota-status.js";
import { openDataStatus } from "../plan/open-data-status.js";
import { runningProgress } from "./running-progress.js";
import { CliError, declareOptions, runCli } from "./run-cli.js";

runCli({
  name: "status",
  usage: "$0 [--db PATH|URL]\n\nPrints the last runs recorded in the database (SQLite or PostgreSQL) and what it holds.",
  examples: [
    ["$0", "the last runs, releases and quota of output/coverage.sqlite"],
    ["$0 --db postgres://ana@db.example.org/coverage --json", "the same for a shared PostgreSQL database, as JSON"],
  ],
  // test hook: put this process's clock off, as a machine with a wrong clock has it
  options: (y) => declareOptions(y, STATUS_OPTIONS).option("clock-offset-ms", { type: "number", hidden: true }),
  run: async (argv) => {
    const o = parseTable(STATUS_OPTIONS, argv);
    if (databaseMissing(o.db)) throw new CliError(noDatabaseMessage(o.db));
    let store: Store;
    try {
      // loaded here: --help, --version and a refused option print without the store
      const { openStore } = await import("../store/open-store.js");
      store = await openStore(o.db, { readonly: true });
    } catch (err) {
      throw new CliError((err as Error).message);
    }
    try {
      // a team's leases are written on the database server's clock: liveness is judged on it, not on this machine's
      const now = (await store.leases.serverNow()) ?? Date.now() + (argv.clockOffsetMs ?? 0);
      const status = await store.status.database(o.runs, now);
      const running = await runningProgress(store, now);
      const releases = await store.status.releases(now);
      const quota = await quotaStatus(store, now);
      const openData = await openDataStatus(store);
      if (o.json) process.stdout.write(JSON.stringify({ ...status, running, releases, quota, openData }, null, 2) + "\n");
      else
        process.stdout.write(
          formatStatus(status, store.location) + formatRunningProgress(running) + formatReleaseStatus(releases) + formatQuotaStatus(quota) + formatOpenDataStatus(openData),
        );
    } catch (err) {
      // the store names the database in its errors; this line names it once
      const cause = err instanceof DatabaseError && err.cause instanceof Error ? err.cause : (err as Error);
      throw new CliError(`${store.location}: ${cause.message}`);
    } finally {
      await store.close();
    }
    return 0;
  },
});
