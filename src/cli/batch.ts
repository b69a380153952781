// npm run batch -- --in FILE [options]: flags from the option declarations, a checked config, the pipeline.
import type { Argv } from "yargs";
import { createLogger } from "../log/logger.js";
import { routeProcessWarnings } from "../log/process-warnings.js";
import { tailKeeping, watchedLogger } from "../log/watched-logger.js";
import { watchNight } from "./night-watch.js";

/** The log's last lines a cron monitor's end ping carries. */
const PING_LINES = 20;
import { buildConfig, ENV, type BatchFlags } from "./batch-config.js";
import { BATCH_OPTIONS } from "./batch-options.js";
import type { BatchDeps } from "../pipeline/batch.js";
import type { BatchConfig } from "../pipeline/config.js";
import { parseTable } from "./options/engine.js";
import { shiftedClock } from "../pipeline/team-clock.js";
import { systemClock } from "../fetch/clock.js";
import { EXIT_CODE_HELP } from "../pipeline/exit-code.js";
import { declareOptions, runCli } from "./run-cli.js";

type TestHooks = { backoffBaseMs?: number; rateWindowMs?: number; leaseTtlMs?: number; pingTimeoutMs?: number; clockOffsetMs?: number };

/** The options a night's monitors need, parsed before the rest: a refusal of any other is still heard. */
const WATCH_OPTIONS = { pingUrl: BATCH_OPTIONS.pingUrl, metricsFile: BATCH_OPTIONS.metricsFile, db: BATCH_OPTIONS.db };

/** The yargs definitions, from the declarations, and two hidden test hooks. */
export function declareBatchOptions(y: Argv): Argv<BatchFlags & TestHooks> {
  y = declareOptions(y, BATCH_OPTIONS);
  // test hooks: shorten backoffs, the rate window, the lease's time to live and the ping's timeout
  // in child-process tests; put this process's clock off (the soak's machine with a wrong clock)
  return y
    .option("backoff-base-ms", { type: "number", hidden: true })
    .option("rate-window-ms", { type: "number", hidden: true })
    .option("lease-ttl-ms", { type: "number", hidden: true })
    .option("ping-timeout-ms", { type: "number", hidden: true })
    .option("clock-offset-ms", { type: "number", hidden: true }) as never;
}

runCli({
  name: "batch",
  usage:
    "$0 --in FILE [options]\n\nLooks up every postcode of FILE (CSV; - for standard input), stores the answers in SQLite (--db PATH) or PostgreSQL (--db postgres://…) and writes reports.",
  examples: [
    ["$0 --in postcodes.csv", "look up every postcode of postcodes.csv into output/coverage.sqlite and write the reports to output/"],
    ["$0 --in postcodes.csv --db postgres://ana@db.example.org/coverage --out reports", "the same, on a team's shared PostgreSQL database"],
  ],
  epilogue:
    `Keys come from ${ENV.key} (both lookups), ${ENV.broadbandKey} / ${ENV.mobileKey}, or --key-file; never from a flag.\n` + EXIT_CODE_HELP,
  options: declareBatchOptions,
  run: async (argv) => {
    const tail = tailKeeping(PING_LINES, (line) => process.stderr.write(line + "\n"));
    const logger = watchedLogger(
      createLogger({ format: argv.logFormat === "json" ? "json" : "text", quiet: argv.quiet === true, verbose: argv.verbose === true, write: tail.write }),
      tail,
    );
    routeProcessWarnings(logger);
    // the monitor's options first: every refusal after them, a bad option or a missing key file too, is heard
    const watched = parseTable(WATCH_OPTIONS, argv, process.env);
    const logFormat = argv.logFormat === "json" ? ("json" as const) : ("text" as const);
    const watch = { ...watched, logFormat, ...(argv.pingTimeoutMs !== undefined ? { pingTimeoutMs: argv.pingTimeoutMs } : {}) };
    return watchNight(watch, logger, async () => {
      const config = buildConfig(argv, process.env, (m) => logger.security(m));
      // loaded once the night runs: --help, --version and a refused option print without the pipeline
      const { runBatch } = await import("../pipeline/batch.js");
      return runBatch(config, await batchDeps(argv, config, logger));
    });
  },
});

/** What the batch runs with beside its config: the logger, signals, the hidden test hooks, --simulate's API. */
async function batchDeps(argv: TestHooks, config: BatchConfig, logger: BatchDeps["logger"]): Promise<BatchDeps> {
  const { simulatedApi } = config.simulate ? await import("./simulated-api.js") : { simulatedApi: null };
  return {
    logger,
    handleSignals: true,
    isTTY: process.stderr.isTTY === true,
    ...(argv.backoffBaseMs !== undefined ? { backoff: { baseMs: argv.backoffBaseMs, capMs: argv.backoffBaseMs * 60 } } : {}),
    ...(argv.rateWindowMs !== undefined ? { rateWindowMs: argv.rateWindowMs } : {}),
    ...(argv.leaseTtlMs !== undefined ? { leaseTtlMs: argv.leaseTtlMs } : {}),
    ...(argv.clockOffsetMs !== undefined ? { clock: shiftedClock(systemClock, argv.clockOffsetMs) } : {}),
    ...(simulatedApi ? { api: simulatedApi(config.providers, { release: config.simulateRelease }) } : {}),
  };
}
