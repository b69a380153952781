// Runs the batch in this process, exactly as the CLI would (buildConfig, then runBatch), against a
// simulator at `baseUrl`, and times it: the whole run, and its fetch phase (from the plan log line,
// written just before the first request, to the end).
import { performance } from "node:perf_hooks";
import { join } from "node:path";
import { createLogger } from "../../src/log/logger.js";
import { runBatch, type BatchDeps, type BatchResult } from "../../src/pipeline/batch.js";
import { buildConfig, type BatchFlags } from "../../src/cli/batch-config.js";
import { BENCH_KEY } from "./simulator-process.js";

export interface TimedBatch {
  result: BatchResult;
  /** the whole runBatch call: input, plan, fetch and store, finishing the run (and reports, if on) */
  wallSeconds: number;
  /** from the plan log line to the end of runBatch */
  fetchSeconds: number;
  /** the report stage alone (0 with reports off) */
  reportSeconds: number;
  /** this process's user + system CPU over the run */
  cpuSeconds: number;
  /** share of the run the event loop was busy: near 1, answers queue behind work (or behind other processes for a CPU) */
  eventLoopUtilization: number;
  /** error and warning lines the batch logged */
  problems: string[];
}

export interface BatchRunOptions {
  dir: string;
  input: string;
  baseUrl: string;
  flags?: Partial<BatchFlags>;
  deps?: Partial<BatchDeps>;
}

export async function runBatchTimed(o: BatchRunOptions): Promise<TimedBatch> {
  const marks: { planAt: number | null; reportsAt: number | null } = { planAt: null, reportsAt: null };
  const problems: string[] = [];
  const logger = createLogger({
    format: "json",
    quiet: false,
    // for the report stage's start (a debug line)
    verbose: true,
    write: (line) => {
      const entry = JSON.parse(line) as { level?: string; event?: string; message?: string };
      if (entry.event === "plan") marks.planAt = performance.now();
      if (entry.event === "reports-start") marks.reportsAt = performance.now();
      if (entry.level === "error" || entry.level === "warn") problems.push(entry.message ?? line);
    },
  });
  const config = buildConfig(
    {
      in: o.input,
      db: join(o.dir, "coverage.sqlite"),
      out: join(o.dir, "out"),
      lookups: "broadband,mobile",
      baseUrl: o.baseUrl,
      providers: "ProvA,ProvB,ProvC,ProvD",
      concurrency: 16,
      // Far above anything reachable: no client-side pacing.
      rate: 1e9,
      retries: 5,
      timeout: 30,
      maxAge: "30d",
      refresh: false,
      simulate: false,
      progress: false,
      logFormat: "json",
      quiet: false,
      reports: false,
      ...o.flags,
    },
    { COVERAGE_API_KEY: BENCH_KEY },
  );
  const cpu = process.cpuUsage();
  const elu = performance.eventLoopUtilization();
  const started = performance.now();
  const result = await runBatch(config, { logger, ...o.deps });
  const ended = performance.now();
  const used = process.cpuUsage(cpu);
  const busy = performance.eventLoopUtilization(elu).utilization;
  if (marks.planAt === null) throw new Error(`the batch never reached its plan (exit ${result.exitCode}): ${problems.join("; ")}`);
  return {
    result,
    wallSeconds: (ended - started) / 1000,
    fetchSeconds: (ended - marks.planAt) / 1000,
    reportSeconds: marks.reportsAt === null ? 0 : (ended - marks.reportsAt) / 1000,
    cpuSeconds: (used.user + used.system) / 1e6,
    eventLoopUtilization: busy,
    problems,
  };
}
