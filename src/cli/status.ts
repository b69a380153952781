// npm run status -- [--db PATH]: the last runs and what the database holds.
import { existsSync } from "node:fs";
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { openDatabase } from "../store/db.js";
import { databaseStatus, formatStatus } from "../store/status.js";

const argv = yargs(hideBin(process.argv))
  .scriptName("npm run status --")
  .option("db", { type: "string", default: "output/coverage.sqlite", describe: "SQLite database" })
  .option("runs", { type: "number", default: 10, describe: "how many recent runs to list" })
  .option("json", { type: "boolean", default: false, describe: "print JSON" })
  .strict()
  .parseSync();

if (!existsSync(argv.db)) {
  process.stderr.write(`error: no database at ${argv.db} (run a batch first, or give --db PATH)\n`);
  process.exitCode = 1;
} else {
  const db = openDatabase(argv.db, { readonly: true });
  try {
    const status = databaseStatus(db, argv.runs);
    process.stdout.write(argv.json ? JSON.stringify(status, null, 2) + "\n" : formatStatus(status, argv.db));
  } finally {
    db.close();
  }
}
