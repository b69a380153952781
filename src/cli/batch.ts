// npm run batch -- --in FILE [options]: parse flags, build the config, run the pipeline.
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { DEFAULT_PROVIDERS } from "../spec/fields.js";
import { createLogger, type LogFormat, type Logger } from "../log/logger.js";
import { buildConfig, ConfigError, ENV } from "../pipeline/config.js";
import { runBatch } from "../pipeline/batch.js";
import { EXIT } from "../pipeline/exit-code.js";

async function main(): Promise<number> {
  const argv = await yargs(hideBin(process.argv))
    .scriptName("npm run batch --")
    .usage("$0 --in FILE [options]\n\nLooks up every postcode of FILE (CSV; - for standard input), stores the answers in SQLite and writes reports.")
    // nargs 1: without it yargs reads a lone "-" as a positional argument, not as the value of --in
    .option("in", { type: "string", nargs: 1, demandOption: true, describe: "input CSV file, or - for standard input" })
    .option("column", { type: "string", describe: "input column holding postcodes (default: auto-detect)" })
    .option("db", { type: "string", default: "output/coverage.sqlite", describe: "SQLite database" })
    .option("out", { type: "string", default: "output", describe: "directory for the reports" })
    .option("lookups", { type: "string", default: "broadband,mobile", describe: "which lookups" })
    .option("base-url", { type: "string", describe: `API base URL (default: env ${ENV.url}); required unless --simulate` })
    .option("providers", { type: "string", default: DEFAULT_PROVIDERS.join(","), describe: "mobile provider prefixes" })
    .option("concurrency", { type: "number", default: 4, describe: "requests in flight per lookup" })
    .option("rate", { type: "number", default: 100, describe: "requests per minute per lookup, paced client-side" })
    .option("retries", { type: "number", default: 5, describe: "retries after the first attempt for retryable failures" })
    .option("timeout", { type: "number", default: 30, describe: "seconds per request" })
    .option("max-age", { type: "string", default: "30d", describe: "reuse a stored answer younger than this" })
    .option("refresh", { type: "boolean", default: false, describe: "fetch even what is fresh" })
    .option("probe", { type: "number", describe: "fresh answers re-fetched per lookup to notice a new release (default 20; 0 off)" })
    .option("release", { type: "string", describe: "name the dataset release of broadband answers (default: the date a change is first seen)" })
    .option("simulate-release", { type: "number", describe: "with --simulate: the simulator's dataset release (default 1)" })
    .option("monthly-quota", { type: "string", describe: `requests per month per lookup ("N" or "broadband=N,mobile=M"; default: env ${ENV.monthlyQuota}); plans the nightly spend` })
    .option("quota-reset-day", { type: "number", describe: "day of the month (UTC, 1-28) the quota period starts (default 1)" })
    .option("spend-all", { type: "boolean", describe: "with --monthly-quota: refreshes may spend all that is left tonight, not an even share" })
    .option("max-requests", { type: "number", describe: "stop cleanly after N requests in this run" })
    .option("simulate", { type: "boolean", default: false, describe: "use the bundled simulator in-process (run marked simulated)" })
    .option("progress", { type: "boolean", describe: "progress bar (default: on a terminal); --no-progress for none" })
    .option("log-format", { choices: ["text", "json"] as const, default: "text" as LogFormat, describe: "json: one object per line" })
    .option("quiet", { type: "boolean", default: false, describe: "errors and the final summary only" })
    .option("key-file", { type: "string", describe: "file with the API key (or broadband=KEY / mobile=KEY lines)" })
    .option("reports", { type: "boolean", default: true, hidden: true })
    .option("verbose", { type: "boolean", default: false, describe: "log every retry" })
    .option("backoff-base-ms", { type: "number", hidden: true })
    .option("rate-window-ms", { type: "number", hidden: true })
    .epilogue(
      `Keys come from ${ENV.key} (both lookups), ${ENV.broadbandKey} / ${ENV.mobileKey}, or --key-file; never from a flag.\n` +
        "Exit codes: 0 all answered; 1 configuration, input or key error; 2 some postcodes failed after retries;\n" +
        "3 stopped early by quota or --max-requests (re-run resumes); 130/143 interrupted.",
    )
    .strict()
    .exitProcess(false)
    .fail((msg, err) => {
      throw new ConfigError(msg ?? err?.message ?? "invalid arguments");
    })
    .parse();
  if ((argv as { help?: boolean }).help) return EXIT.ok;

  const logger = createLogger({ format: argv.logFormat, quiet: argv.quiet, verbose: argv.verbose });
  const config = withConfigErrors(logger, () => buildConfig(
    {
      in: argv.in,
      column: argv.column,
      db: argv.db,
      out: argv.out,
      lookups: argv.lookups,
      baseUrl: argv.baseUrl,
      providers: argv.providers,
      concurrency: argv.concurrency,
      rate: argv.rate,
      retries: argv.retries,
      timeout: argv.timeout,
      maxAge: argv.maxAge,
      refresh: argv.refresh,
      maxRequests: argv.maxRequests,
      simulate: argv.simulate,
      progress: argv.progress,
      logFormat: argv.logFormat,
      quiet: argv.quiet,
      keyFile: argv.keyFile,
      reports: argv.reports,
      probe: argv.probe,
      release: argv.release,
      simulateRelease: argv.simulateRelease,
      monthlyQuota: argv.monthlyQuota,
      quotaResetDay: argv.quotaResetDay,
      spendAll: argv.spendAll,
    },
    process.env,
    (m) => logger.warn(m),
  ));
  if (config === null) return EXIT.error;
  const result = await runBatch(config, {
    logger,
    handleSignals: true,
    isTTY: process.stderr.isTTY === true,
    ...(argv.backoffBaseMs !== undefined ? { backoff: { baseMs: argv.backoffBaseMs, capMs: argv.backoffBaseMs * 60 } } : {}),
    ...(argv.rateWindowMs !== undefined ? { rateWindowMs: argv.rateWindowMs } : {}),
  });
  return result.exitCode;
}

const HELP_HINT = "(npm run batch -- --help lists the options)";

/** A configuration error goes through the logger, so cron's JSON log gets it as JSON too. */
function withConfigErrors<T>(logger: Logger, build: () => T): T | null {
  try {
    return build();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    logger.error(`${err.message} ${HELP_HINT}`, { event: "config" });
    return null;
  }
}

/** Before the flags are parsed the logger does not exist: look for --log-format json by hand. */
function wantsJson(args: readonly string[]): boolean {
  return args.some((a, i) => a === "--log-format=json" || (a === "--log-format" && args[i + 1] === "json"));
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const user = err instanceof ConfigError;
    const message = user ? `${err.message} ${HELP_HINT}` : `unexpected failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
    process.stderr.write(
      (wantsJson(hideBin(process.argv)) ? JSON.stringify({ time: new Date().toISOString(), level: "error", message }) : `error: ${message}`) + "\n",
    );
    process.exitCode = EXIT.error;
  },
);
