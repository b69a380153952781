// npm run soak -- [--quick] [--seed N] [--keep] [--json PATH]
// Chaos run of the batch against a simulator with every fault on, SIGKILLed three times and
// restarted, taken down for a while mid-run and brought back, pointed once at an API that never
// answers, then the same input against a fault-free simulator; the two results must be identical.
// Exits 0 only when nothing was lost, duplicated or changed.
//
// The simulator runs inside this process, not as a child: it outlives every batch it serves all
// the same (the batch is the child), its fault sequence and rate-limit state carry across the
// kills as a real upstream's would, and its live request counters decide the kill moments and
// give the totals without a side channel.
import { randomBytes, randomInt } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { generatePostcode, startSimulator, type SimulatorCounters } from "../src/simulator/index.js";
import { rngFor } from "../src/simulator/hash.js";
import { killAllBatches, runBatchProcess, type BatchExit } from "./batch-process.js";
import { batchHasOption, lookupsWrittenBy, lastRunId, refusedFailuresOf } from "./run-facts.js";
import { startOutageProxy, startSilentServer } from "./outage.js";
import {
  checkAddressCounts,
  checkAgainstInput,
  checkNoDuplicates,
  compareFinalRuns,
  compareDeclared,
  compareSchemas,
  compareReports,
  countByCheck,
  differingColumns,
  type Mismatch,
} from "./compare.js";
import { ANSWER_TABLES, readDb } from "./db-read.js";
import { findSecret, readReports } from "./files.js";
import { buildSoakInput } from "./input.js";
import { planKills, type KillPoint } from "./kill-plan.js";
import { PROFILES, RATE_WINDOW_MS, SOAK_FAULTS } from "./profile.js";
import { crashPointSteps } from "./crash-points.js";
import { teamStep } from "./team.js";
import { toolVersion } from "../src/contract/version.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const LOOKUPS = ["broadband", "mobile"] as const;
/** The files issue 4 says every batch writes. */
const EXPECTED_REPORTS = [
  "broadband.csv",
  "mobile.csv",
  "coverage.csv",
  "postcodes.csv",
  "enriched.csv",
  "summary.csv",
  "summary.json",
  "rejects.csv",
  "failures.csv",
];
const EXAMPLES_KEPT = 50;

interface RunRecord {
  phase: "chaos" | "clean";
  n: number;
  /** a chaos run against an API down for a while ("outage") or never answering ("silent") */
  step?: "outage" | "silent";
  kill: KillPoint | null;
  exit: BatchExit;
  /** simulator requests received while this process ran */
  requests: number;
}

const say = (line: string) => process.stdout.write(`soak: ${line}\n`);
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main(): Promise<number> {
  const argv = await yargs(hideBin(process.argv))
    .scriptName("npm run soak --")
    .version(toolVersion())
    .usage("$0 [--quick] [--seed N]\n\nChaos-tests the batch: faults, SIGKILLs and restarts must end with exactly a clean run's data.")
    .option("quick", { type: "boolean", default: false, describe: "300 input rows instead of 2,000, and the team step without its trials: about a minute each (what CI runs)" })
    .option("seed", { type: "number", describe: "replay a soak: the input, dataset, faults and kill moments follow from it" })
    .option("keep", { type: "boolean", default: false, describe: "keep the temporary directory (databases, reports, batch logs)" })
    .option("json", { type: "string", default: "output/soak.json", describe: "where to write the results" })
    .option("crash-points", { type: "boolean", default: false, describe: "only the crash-point and disk-full steps of the report writer and the export (docs/soak.md)" })
    .option("team", { type: "boolean", default: false, describe: "only the team step: three batches on one PostgreSQL database, killed and restarted (docs/soak.md)" })
    .strict()
    .parse();
  if (argv.crashPoints) {
    const work = mkdtempSync(join(tmpdir(), "pcc-soak-"));
    say(`crash points and disk full, working in ${work}`);
    const problems = crashPointSteps(ROOT, work, say);
    for (const p of problems) say(`PROBLEM: ${p}`);
    if (problems.length === 0 && !argv.keep) rmSync(work, { recursive: true, force: true });
    say(problems.length === 0 ? "passed" : `FAILED: ${problems.length} problem(s); kept ${work}`);
    return problems.length === 0 ? 0 : 1;
  }
  const profile = PROFILES[argv.quick ? "quick" : "full"];
  const seed = argv.seed ?? randomInt(1, 2 ** 31);
  if (!Number.isSafeInteger(seed)) throw new Error(`--seed: expected a whole number, got ${argv.seed}`);
  if (argv.team) {
    const work = mkdtempSync(join(tmpdir(), "pcc-soak-"));
    const key = `soak-${randomBytes(12).toString("hex")}`;
    say(`team step, seed ${seed} (replay with --seed ${seed}), ${profile.name} profile, working in ${work}`);
    const r = await teamStep({ root: ROOT, work, profile, seed, key, say });
    const leaks = findSecret(work, key);
    r.problems.push(...leaks.map((file) => `the API key appears in ${file}`));
    for (const m of r.mismatches.slice(0, EXAMPLES_KEPT)) say(`MISMATCH ${m.check}: ${m.detail}`);
    for (const p of r.problems) say(`PROBLEM: ${p}`);
    mkdirSync(dirname(argv.json), { recursive: true });
    writeFileSync(argv.json, JSON.stringify({ step: "team", seed, profile: profile.name, ...r.figures, problems: r.problems, mismatches: r.mismatches.slice(0, EXAMPLES_KEPT) }, null, 2) + "\n");
    const ok = r.problems.length === 0 && r.mismatches.length === 0;
    if (ok && !argv.keep) rmSync(work, { recursive: true, force: true });
    say(ok ? "passed" : `FAILED: ${r.problems.length} problem(s), ${r.mismatches.length} mismatch(es); kept ${work}`);
    return ok ? 0 : 1;
  }
  const started = Date.now();
  const work = mkdtempSync(join(tmpdir(), "pcc-soak-"));
  // A key of our own for this soak only, so that a leak anywhere can be searched for.
  const key = `soak-${randomBytes(12).toString("hex")}`;
  const simSeed = `soak-${seed}`;
  say(`seed ${seed} (replay with --seed ${seed}), ${profile.name} profile, working in ${work}`);

  // 1. input
  const input = buildSoakInput(String(seed), profile);
  const inputPath = join(work, "postcodes.csv");
  writeFileSync(inputPath, input.csv);
  const unknown = new Set(input.unique.filter((p) => generatePostcode(simSeed, p) === null));
  const minRequests = input.unique.length * LOOKUPS.length;
  say(
    `input: ${input.rows} rows: ${input.unique.length} distinct valid postcodes (${unknown.size} unknown to the API), ` +
      `${input.duplicates} repeats in other spellings, ${input.invalid} invalid`,
  );

  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("COVERAGE_")));
  env.COVERAGE_API_KEY = key;
  const batchArgs = (dir: string, url: string, rate: number) => [
    "--in", inputPath,
    "--db", join(dir, "coverage.sqlite"),
    "--out", join(dir, "out"),
    "--base-url", url,
    "--log-format", "json",
    "--no-progress",
    "--concurrency", String(profile.concurrency),
    "--retries", String(profile.retries),
    "--timeout", String(profile.timeoutSeconds),
    "--rate", String(rate),
    "--rate-window-ms", String(RATE_WINDOW_MS),
    "--backoff-base-ms", String(profile.backoffBaseMs),
  ]; // prettier-ignore

  const runs: RunRecord[] = [];
  const problems: string[] = [];
  const chaosDir = join(work, "chaos");
  const cleanDir = join(work, "clean");
  mkdirSync(chaosDir);
  mkdirSync(cleanDir);

  // 2. chaos: every fault, an undisclosed rate limit, kills and restarts
  const chaosStarted = Date.now();
  const chaos = await startSimulator({
    seed: simSeed,
    key,
    rateLimit: profile.serverLimit,
    rateWindowMs: RATE_WINDOW_MS,
    ...SOAK_FAULTS,
  });
  const killPlan = planKills(rngFor(String(seed), "soak-kills"), profile.kills, minRequests);
  say(
    `chaos simulator at ${chaos.url}: 500s ${pct(SOAK_FAULTS.failRate)}, 503s ${pct(SOAK_FAULTS.unavailableRate)}, ` +
      `resets ${pct(SOAK_FAULTS.resetRate)}, stalls ${pct(SOAK_FAULTS.stallRate)}, malformed ${pct(SOAK_FAULTS.malformedRate)}, ` +
      `latency ${SOAK_FAULTS.latencyMs}+0..${SOAK_FAULTS.jitterMs} ms, limit ${profile.serverLimit} per ${RATE_WINDOW_MS} ms ` +
      `per lookup (batch told --rate ${profile.clientRate})`,
  );
  say(`kills planned after ${killPlan.map((k) => `${k.afterRequests} requests (+${k.delayMs} ms)`).join(", ")}`);
  // The outage handling of issue 10.3 (pause and probe, --outage-limit): where the batch has it, the
  // outage steps hold it to it; where it does not yet, they only require that a re-run recovers.
  const outageHandling = await batchHasOption(ROOT, env, "--outage-limit");
  const chaosDb = join(chaosDir, "coverage.sqlite");
  let chaosCounters: SimulatorCounters;
  try {
    const run = async (kill: KillPoint | null, step?: { name: "outage" | "silent"; url: string; args: string[] }): Promise<RunRecord> => {
      const before = chaos.counters.total;
      const exit = await runBatchProcess(
        {
          root: ROOT,
          args: [...batchArgs(chaosDir, step?.url ?? chaos.url, profile.clientRate), ...(step?.args ?? [])],
          env,
          logPath: join(chaosDir, `batch-${runs.length + 1}.log`),
        },
        kill && { due: () => chaos.counters.total >= kill.afterRequests, delayMs: kill.delayMs },
        profile.runTimeoutMs,
      );
      const record: RunRecord = { phase: "chaos", n: runs.length + 1, ...(step ? { step: step.name } : {}), kill, exit, requests: chaos.counters.total - before };
      runs.push(record);
      if (exit.timedOut) problems.push(`chaos run ${record.n} hung: killed after ${secs(profile.runTimeoutMs)}`);
      return record;
    };
    for (const [i, point] of killPlan.entries()) {
      const r = await run(point);
      if (r.exit.killed && !r.exit.timedOut)
        say(`kill ${i + 1}: SIGKILL at ${chaos.counters.total} requests received, after ${secs(r.exit.ms)} (${r.requests} requests this run)`);
      else if (!r.exit.timedOut) problems.push(`chaos run ${r.n} ended with exit ${r.exit.code} before kill ${i + 1} was due`);
    }

    // The simulator down for a while mid-run, then back: the run rides it out (or, without the
    // outage handling, fails the postcodes it met and leaves them to the re-runs below).
    const proxy = await startOutageProxy(chaos.url);
    try {
      const before = chaos.counters.total;
      let outageAt: number | null = null;
      const watch = setInterval(() => {
        if (outageAt !== null || chaos.counters.total - before < profile.outageAfterRequests) return;
        outageAt = Date.now();
        void proxy.down().then(() => setTimeout(() => void proxy.up(), profile.outageMs));
      }, 2);
      const r = await run(null, { name: "outage", url: proxy.url, args: [] });
      clearInterval(watch);
      const id = lastRunId(chaosDb);
      const refused = id === null ? 0 : refusedFailuresOf(chaosDb, id);
      say(
        `outage run ${r.n}: ${outageAt === null ? "no outage (the run ended first)" : `down for ${secs(profile.outageMs)} after ${profile.outageAfterRequests} requests`}; ` +
          `exit ${r.exit.code ?? r.exit.signal} after ${secs(r.exit.ms)}; ${refused} lookups failed on refused connections`,
      );
      if (outageAt === null) problems.push(`outage run ${r.n} ended before the outage was due`);
      if (r.exit.code !== 0 && r.exit.code !== 2) problems.push(`outage run ${r.n} ended with exit ${r.exit.code ?? r.exit.signal} (expected 0, or 2 then a re-run)`);
      // Issue 10.3: postcodes waiting out an outage stay pending and spend none of their retries.
      if (outageHandling && refused > 0) problems.push(`outage run ${r.n}: ${refused} lookups spent their retries on refused connections`);
    } finally {
      await proxy.close();
    }

    // An API that accepts connections and never answers: the run stops with a reason, in bounded
    // time, storing nothing; the runs below resume. Without the outage handling, --max-requests
    // bounds it instead (each request waits out its --timeout). --refresh gives it every postcode to
    // fetch: by now the answers are fresh and the release was checked today, so without it the run
    // would have only the few failed postcodes, too few to tell an outage from bad postcodes.
    const silent = await startSilentServer();
    try {
      const args = outageHandling
        ? ["--outage-limit", `${profile.outageLimitSeconds}s`, "--refresh"]
        : ["--max-requests", String(profile.silentMaxRequests)];
      const r = await run(null, { name: "silent", url: silent.url, args });
      const id = lastRunId(chaosDb);
      const written = id === null ? 0 : lookupsWrittenBy(chaosDb, id);
      say(`never-answering API run ${r.n} (${args.join(" ")}): exit ${r.exit.code ?? r.exit.signal} after ${secs(r.exit.ms)}, ${silent.connections} connections, ${written} lookups written`);
      const stopped = outageHandling ? [1, 3] : [3];
      if (!stopped.includes(r.exit.code ?? -1)) problems.push(`never-answering API run ${r.n} ended with exit ${r.exit.code ?? r.exit.signal} (expected ${stopped.join(" or ")})`);
      if (outageHandling && written > 0) problems.push(`never-answering API run ${r.n} wrote ${written} lookups (expected none: they stay pending)`);
    } finally {
      await silent.close();
    }
    for (let i = 0; i < profile.maxFinishRuns; i++) {
      const r = await run(null);
      say(`run ${r.n}: exit ${r.exit.code ?? r.exit.signal} after ${secs(r.exit.ms)} (${r.requests} requests)`);
      if (r.exit.code === 2) continue; // failures remain: a re-run retries them
      if (r.exit.code !== 0) problems.push(`chaos run ${r.n} ended with exit ${r.exit.code ?? r.exit.signal} (expected 0, or 2 then a re-run)`);
      break;
    }
    if (runs.at(-1)?.exit.code === 2) problems.push(`failures still remained after ${profile.maxFinishRuns} runs past the last kill`);
  } finally {
    chaosCounters = structuredClone(chaos.counters);
    await chaos.close();
  }
  const chaosMs = Date.now() - chaosStarted;

  // 3. the same input, fault-free, into a fresh database
  const cleanStarted = Date.now();
  const clean = await startSimulator({ seed: simSeed, key });
  let cleanRequests = 0;
  try {
    const exit = await runBatchProcess(
      { root: ROOT, args: batchArgs(cleanDir, clean.url, 100_000), env, logPath: join(cleanDir, "batch.log") },
      null,
      profile.runTimeoutMs,
    );
    cleanRequests = clean.counters.total;
    runs.push({ phase: "clean", n: 1, kill: null, exit, requests: cleanRequests });
    say(`clean run: exit ${exit.code ?? exit.signal} after ${secs(exit.ms)} (${cleanRequests} requests)`);
    if (exit.code !== 0) problems.push(`clean run ended with exit ${exit.code ?? exit.signal}`);
  } finally {
    await clean.close();
  }
  const cleanMs = Date.now() - cleanStarted;

  // 4. compare
  const got = readDb(join(chaosDir, "coverage.sqlite"));
  const want = readDb(join(cleanDir, "coverage.sqlite"));
  const gotReports = readReports(join(chaosDir, "out"));
  const wantReports = readReports(join(cleanDir, "out"));
  for (const name of EXPECTED_REPORTS) if (!wantReports.has(name)) problems.push(`the clean run did not write ${name}`);
  const expectation = {
    postcodes: input.unique,
    unknown,
    lookups: LOOKUPS,
    inputRows: input.rows,
    invalidRows: input.invalid,
  };
  const mismatches: Mismatch[] = [
    ...compareSchemas(got, want),
    // every table and column as src/store/compared-columns.ts classes them
    ...compareDeclared(got.compared, want.compared, got.tableNames),
    ...compareFinalRuns(got.runs.at(-1), want.runs.at(-1)),
    ...ANSWER_TABLES.flatMap((t) => [...checkNoDuplicates(got.tables[t], "soak"), ...checkNoDuplicates(want.tables[t], "clean")]),
    ...checkAddressCounts("soak", got.countDisagreements),
    ...checkAddressCounts("clean", want.countDisagreements),
    ...checkAgainstInput("soak", got.tables.lookups.rows, got.lastRunRows, expectation),
    ...checkAgainstInput("clean", want.tables.lookups.rows, want.lastRunRows, expectation),
    ...(got.lockRows > 0 ? [{ check: "lock", detail: `soak database still holds a batch lock` }] : []),
    ...compareReports(gotReports, wantReports),
  ];
  const leaks = findSecret(work, key);
  for (const file of leaks) problems.push(`the API key appears in ${file}`);

  // 5. totals
  // Killed runs' rows hold their counts as of their last checkpoint, so the table undercounts a little.
  const sum = (f: string) => got.runs.reduce((n, r) => n + Number(r[f] ?? 0), 0);
  const kills = runs.filter((r) => r.phase === "chaos" && r.exit.killed && !r.exit.timedOut).length;
  const lastChaos = runs.filter((r) => r.phase === "chaos").at(-1);
  const survived = lastChaos?.exit.code === 0 && mismatches.length === 0 ? kills : 0;
  const totals = {
    requestsSent: chaosCounters.total,
    minimumRequests: minRequests,
    extraRequests: chaosCounters.total - minRequests,
    retriesRecorded: sum("retries"),
    throttledBySimulator: chaosCounters.throttled,
    throttledRecorded: sum("throttled"),
    requestsRecorded: sum("requests"),
    earlyRetries: chaosCounters.earlyRetries,
    faultsInjected: {
      "500": chaosCounters.failures,
      "503": chaosCounters.unavailable,
      resets: chaosCounters.resets,
      stalls: chaosCounters.stalls,
      malformed: chaosCounters.malformed,
    },
    kills,
    killsSurvived: survived,
    outageHandling,
    chaosRuns: runs.filter((r) => r.phase === "chaos").length,
    cleanRequests,
    mismatches: mismatches.length,
  };
  const wallMs = Date.now() - started;
  if (kills !== profile.kills) problems.push(`${kills} of ${profile.kills} planned kills happened`);
  const pass = mismatches.length === 0 && problems.length === 0;

  say("runs recorded in the soak database:");
  for (const r of got.runs)
    say(
      `  run ${r.id}: ${String(r.state)}, exit ${r.exit_code === null ? "-" : String(r.exit_code)}, ` +
        `${String(r.requests)} requests, ${String(r.retries)} retries, ${String(r.throttled)} 429s` +
        (r.ended_at === null ? "" : `; ok ${String(r.ok)}, not found ${String(r.not_found)}, failed ${String(r.failed)}`),
    );
  say(
    `requests sent: ${totals.requestsSent} to the chaos simulator (at least ${minRequests} needed; ${totals.extraRequests} more: ` +
      `retries, 429 repeats and requests lost to kills); the runs table records ${totals.requestsRecorded} ` +
      `(a killed run's row stops at its last checkpoint); clean run ${cleanRequests}`,
  );
  say(
    `faults injected: ${chaosCounters.failures} 500s, ${chaosCounters.unavailable} 503s, ${chaosCounters.resets} resets, ` +
      `${chaosCounters.stalls} stalls, ${chaosCounters.malformed} malformed bodies`,
  );
  say(`retries: ${totals.retriesRecorded} in the runs table`);
  say(
    `429s: ${totals.throttledBySimulator} sent by the simulator, ${totals.throttledRecorded} in the runs table; ` +
      `${totals.earlyRetries} requests arrived before a Retry-After given to their lookup had elapsed`,
  );
  say(`kills survived: ${survived} of ${kills} (${profile.kills} planned)`);
  say(`mismatches: ${mismatches.length}`);
  for (const [check, n] of Object.entries(countByCheck(mismatches))) say(`  ${check}: ${n}`);
  for (const m of mismatches.slice(0, 20)) say(`  ${m.check}: ${m.detail}`);
  for (const p of problems) say(`problem: ${p}`);
  say(
    `wall time ${secs(wallMs)} (chaos ${secs(chaosMs)}, clean ${secs(cleanMs)}, compare ${secs(wallMs - chaosMs - cleanMs)}); ` +
      (pass ? "PASS" : "FAIL"),
  );

  const jsonPath = argv.json;
  mkdirSync(dirname(jsonPath), { recursive: true });
  writeFileSync(
    jsonPath,
    JSON.stringify(
      {
        pass,
        seed,
        profile,
        faults: SOAK_FAULTS,
        rateWindowMs: RATE_WINDOW_MS,
        startedAt: new Date(started).toISOString(),
        wallSeconds: wallMs / 1000,
        phaseSeconds: { chaos: chaosMs / 1000, clean: cleanMs / 1000, compare: (wallMs - chaosMs - cleanMs) / 1000 },
        input: { rows: input.rows, uniqueValid: input.unique.length, unknown: unknown.size, duplicates: input.duplicates, invalid: input.invalid },
        killPlan,
        runs: runs.map((r) => ({ phase: r.phase, n: r.n, kill: r.kill, ...r.exit, requests: r.requests })),
        runsTable: got.runs.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : v]))),
        simulator: chaosCounters,
        totals,
        comparedIgnoring: {
          ...differingColumns(),
          "summary.json": ["generatedAt", "runId", "fetchedFrom", "fetchedTo"],
          "summary.csv": ["About,Report generated (UTC)", "About,Run", "Releases: fetched dates"],
        },
        mismatchesByCheck: countByCheck(mismatches),
        mismatchExamples: mismatches.slice(0, EXAMPLES_KEPT),
        problems,
        workDir: argv.keep || !pass ? work : null,
      },
      null,
      2,
    ) + "\n",
  );
  say(`results written to ${jsonPath}`);
  if (argv.keep || !pass) say(`kept ${work} (databases, reports, batch logs)`);
  else rmSync(work, { recursive: true, force: true });
  return pass ? 0 : 1;
}

function pct(share: number): string {
  return `${(share * 100).toFixed(0)}%`;
}

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    killAllBatches();
    process.stderr.write(`soak: ${signal}, batch processes killed\n`);
    process.exit(signal === "SIGINT" ? 130 : 143);
  });

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    killAllBatches();
    process.stderr.write(`soak: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
