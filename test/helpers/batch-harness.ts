// Runs the batch in-process against a simulator over real HTTP, capturing log lines.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildConfig, type BatchFlags } from "../../src/cli/batch-config.js";
import { runBatch, type BatchDeps, type BatchResult } from "../../src/pipeline/batch.js";
import { createLogger } from "../../src/log/logger.js";
import { simulatedApi } from "../../src/cli/simulated-api.js";
import type { SimulatorOptions } from "../../src/simulator/index.js";
import { instantSleepClock } from "./fake-clock.js";

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
}

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
  const api = batchDeps.api ?? (config.simulate ? simulatedApi(config.providers, simulator) : undefined);
  const result = await runBatch(config, { logger, clock: instantSleepClock, ...batchDeps, ...(api ? { api } : {}) });
  return { ...result, logs };
}
