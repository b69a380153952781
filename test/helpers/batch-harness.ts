// Runs the batch in-process against a simulator over real HTTP, capturing log lines.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildConfig, type BatchFlags } from "../../src/cli/batch-config.js";
import { runBatch, type BatchDeps, type BatchResult } from "../../src/pipeline/batch.js";
import { createLogger } from "../../src/log/logger.js";
import { simulatedApi } from "../../src/cli/simulated-api.js";
import type { SimulatorOptions } from "../../src/simulator/index.js";
import type { Clock } from "../../src/fetch/clock.js";
import { scenarioClock } from "./scenario-clock.js";

export function tempDir(prefix = "pcc-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function writeCsv(dir: string, name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.join("\n") + "\n");
  return path;
}

export interface HarnessRun extends BatchResult {
  logs: string[];
  /** the clock the run took its time from: read "now" from it, not from Date.now() */
  clock: Clock;
}

/** A lease longer than any wait a replayed night jumps over, shorter than the time between nights. */
const REPLAYED_LEASE_TTL_MS = 6 * 3600_000;

/**
 * Runs a batch in `dir` (its database there unless flags.db names one). Its clock is the
 * scenario's (scenario-clock.ts): a deps.clock on another time line than the database's earlier
 * runs is refused, and without one the run continues on the scenario's clock (a new scenario
 * starts at noon UTC of the suite's first day, never on the wall clock).
 */
export async function runIn(
  dir: string,
  flags: Partial<BatchFlags> & { in: string },
  env: NodeJS.ProcessEnv,
  deps: Partial<BatchDeps> & { simulator?: Partial<SimulatorOptions> } = {},
): Promise<HarnessRun> {
  const logs: string[] = [];
  const logger = createLogger({ format: "json", quiet: false, verbose: true, write: (l) => logs.push(l) });
  const config = buildConfig(
    {
      db: join(dir, "coverage.sqlite"),
      out: join(dir, "out"),
      lookups: "broadband,mobile",
      providers: "ProvA,ProvB,ProvC,ProvD",
      concurrency: 4,
      rate: 100_000,
      timeout: 5,
      logFormat: "json",
      progress: false,
      ...flags,
    },
    env,
  );
  // --simulate as the CLI wires it: a simulator of the run's providers (with the test's options).
  const { simulator, ...batchDeps } = deps;
  const clock = scenarioClock(config.db, batchDeps.clock, "runIn");
  // the bundled simulator keeps its quota on the run's clock too
  const api = batchDeps.api ?? (config.simulate ? simulatedApi(config.providers, { now: () => clock.now(), ...simulator }) : undefined);
  // A replayed clock passes a wait (an outage's probing, a backoff) in an instant, where a real run's
  // keeper renews its lease on a timer meanwhile: such a run gets a lease longer than any wait of one
  // night, unless the test sets its own (the lease tests do).
  const leaseTtlMs = batchDeps.leaseTtlMs ?? (clock.replayed ? REPLAYED_LEASE_TTL_MS : undefined);
  const result = await runBatch(config, { logger, ...batchDeps, clock, ...(leaseTtlMs !== undefined ? { leaseTtlMs } : {}), ...(api ? { api } : {}) });
  return { ...result, logs, clock };
}
