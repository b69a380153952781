// npm run status -- [--db PATH]: the last runs and what the database holds.
import { existsSync } from "node:fs";
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { openDatabase } from "../store/db.js";
import { databaseStatus, formatStatus } from "../store/status.js";
import { formatReleaseStatus, releaseStatus } from "../store/release-status.js";
import { formatQuotaStatus, quotaStatus } from "../plan/quota-status.js";

function main(): number {
  let argv: { db: string; runs: number; json: boolean };
  try {
    argv = yargs(hideBin(process.argv))
      .scriptName("npm run status --")
      .usage("$0 [--db PATH]\n\nPrints the last runs recorded in the database and what it holds.")
      .option("db", { type: "string", default: "output/coverage.sqlite", describe: "SQLite database" })
      .option("runs", { type: "number", default: 10, describe: "how many recent runs to list" })
      .option("json", { type: "boolean", default: false, describe: "print JSON" })
      .strict()
      .exitProcess(false)
      .fail((msg, err) => {
        throw new Error(msg ?? err?.message ?? "invalid arguments");
      })
      .parseSync();
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n(npm run status -- --help lists the options)\n`);
    return 1;
  }
  if ((argv as { help?: boolean }).help) return 0;
  if (!Number.isInteger(argv.runs) || argv.runs < 1) {
    process.stderr.write(`error: --runs: expected a whole number >= 1, got ${argv.runs}\n`);
    return 1;
  }
  if (!existsSync(argv.db)) {
    process.stderr.write(`error: no database at ${argv.db} (run a batch first, or give --db PATH)\n`);
    return 1;
  }
  try {
    const db = openDatabase(argv.db, { readonly: true });
    try {
      const status = databaseStatus(db, argv.runs);
      const releases = releaseStatus(db);
      const quota = quotaStatus(db, Date.now());
      process.stdout.write(
        argv.json
          ? JSON.stringify({ ...status, releases, quota }, null, 2) + "\n"
          : formatStatus(status, argv.db) + formatReleaseStatus(releases) + formatQuotaStatus(quota),
      );
    } finally {
      db.close();
    }
  } catch (err) {
    process.stderr.write(`error: ${argv.db}: ${(err as Error).message}\n`);
    return 1;
  }
  return 0;
}

process.exitCode = main();
