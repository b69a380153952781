// The soak's team step: three batch processes ("machines") on one PostgreSQL database (a throwaway
// server, as the tests start) and one rate-limited, quota-limited simulator with every fault on,
// each SIGKILLed at random moments and restarted, then run to the end. Afterwards each machine's
// report set must equal a fault-free run's (on SQLite), the simulator must have answered no more
// than 0.5% 429s and no 403 (the machines' shared --monthly-quota is the simulator's quota), and no
// pair may have been fetched twice beyond requests in flight at a kill. Its database must also hold
// what the clean run's does, table for table, as the store's declaration classes the columns
// (src/store/compared-columns.ts). Then three trials (team-steps.ts): a machine paused past its
// lease and resumed, the same while it reads its input, and machines whose clocks are off.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startSimulator } from "../src/simulator/index.js";
import { rngFor } from "../src/simulator/hash.js";
import { postgresBinDir, startPostgresServer } from "../test/helpers/postgres-server.js";
import { runBatchProcess, type BatchExit } from "./batch-process.js";
import { compareDeclared, compareReports, type Mismatch, type TableData } from "./compare.js";
import { readDb } from "./db-read.js";
import { inLowerCase, readPostgresCompared } from "./pg-read.js";
import { readReports } from "./files.js";
import { buildSoakInput } from "./input.js";
import { pauseReadingTrial, pauseTrial, skewTrial } from "./team-steps.js";
import { RATE_WINDOW_MS, SOAK_FAULTS, type SoakProfile } from "./profile.js";

const MACHINES = 3;
/** SIGKILLs per machine before it is let run to the end */
const KILLS = 2;

export interface TeamResult {
  problems: string[];
  mismatches: Mismatch[];
  figures: Record<string, unknown>;
}

export async function teamStep(o: { root: string; work: string; profile: SoakProfile; seed: number; key: string; say: (line: string) => void }): Promise<TeamResult> {
  const { root, work, profile, say } = o;
  const bin = postgresBinDir();
  if (!bin) return { problems: ["PostgreSQL is not installed (sudo apt-get install postgresql)"], mismatches: [], figures: {} };
  const input = buildSoakInput(String(o.seed), profile);
  const inputPath = join(work, "postcodes.csv");
  writeFileSync(inputPath, input.csv);
  const simSeed = `soak-${o.seed}`;
  const pairs = input.unique.length * 2;
  // per lookup: every postcode twice over covers the faults' retries and the kills' repeats
  const quota = input.unique.length * 2;
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("COVERAGE_")));
  env.COVERAGE_API_KEY = o.key;
  // Every run's settings, the fault-free one's included: only the database, the folder, the API's
  // address and the pace (--rate, in extra) differ between them. A setting the reports show (the
  // quota) given to the machines alone would make their report sets differ from the clean one's.
  const args = (db: string, out: string, url: string, extra: string[]) => [
    "--in", inputPath, "--db", db, "--out", out, "--base-url", url,
    "--log-format", "json", "--no-progress",
    "--concurrency", String(profile.concurrency), "--retries", String(profile.retries),
    "--timeout", String(profile.timeoutSeconds), "--backoff-base-ms", String(profile.backoffBaseMs),
    "--rate-window-ms", String(RATE_WINDOW_MS), "--monthly-quota", String(quota), ...extra,
  ]; // prettier-ignore

  // The machines are told the limit less 8%: the window is compressed 60× (1 s for the API's
  // minute) but three processes' timer and scheduling delays on a busy machine are not, and the
  // pacer's 1% margin (20 ms here, 600 ms on a real minute) would not cover them.
  const rate = Math.floor(profile.serverLimit * 0.92);
  const server = startPostgresServer(bin);
  const problems: string[] = [];
  try {
    const database = (name: string) => {
      const created = spawnSync(join(bin, "createdb"), ["-h", server.socketDir, "-U", server.user, name], { encoding: "utf8" });
      if (created.status !== 0) throw new Error(`createdb: ${created.stderr.trim()}`);
      return `postgres://${server.user}@/${name}?host=${server.socketDir}`;
    };
    const url = database("soak");
    const sql = (name: string, query: string) =>
      spawnSync(join(bin, "psql"), ["-h", server.socketDir, "-U", server.user, "-d", name, "-tAc", query], { encoding: "utf8" }).stdout.trim();
    const sim = await startSimulator({ seed: simSeed, key: o.key, rateLimit: profile.serverLimit, rateWindowMs: RATE_WINDOW_MS, quota, ...SOAK_FAULTS });
    say(
      `team: ${MACHINES} machines on one PostgreSQL database, ${input.unique.length} postcodes each (the same list), simulator limit ${profile.serverLimit} per ` +
        `${RATE_WINDOW_MS} ms and quota ${quota} per lookup, every fault on, ${KILLS} SIGKILLs per machine, each told --rate ${rate}`,
    );
    const rng = rngFor(String(o.seed), "soak-team-kills");
    const finals: { dir: string; exit: BatchExit | null }[] = [];
    let runs = 0;
    try {
      await Promise.all(
        Array.from({ length: MACHINES }, async (_, m) => {
          const dir = join(work, `machine-${m}`);
          mkdirSync(dir);
          const run = (kill: number | null) => {
            const started = Date.now();
            runs++;
            return runBatchProcess(
              {
                root,
                args: args(url, join(dir, "out"), sim.url, ["--rate", String(rate)]),
                env,
                logPath: join(dir, `batch.log`),
              },
              kill === null ? null : { due: () => Date.now() - started >= kill, delayMs: 0 },
              profile.runTimeoutMs,
            );
          };
          for (let k = 0; k < KILLS; k++) {
            // somewhere in the first seconds of a run: start-up, plan, claims, fetching
            const exit = await run(1_500 + rng.int(0, 3_000));
            if (exit.timedOut) problems.push(`machine ${m} hung: killed after ${profile.runTimeoutMs} ms`);
          }
          let exit: BatchExit | null = null;
          for (let i = 0; i < profile.maxFinishRuns; i++) {
            exit = await run(null);
            if (exit.code !== 2) break; // 2: failures remain, a re-run retries them
          }
          say(`team: machine ${m} ended with exit ${exit?.code ?? exit?.signal} after ${KILLS} kills`);
          if (exit?.code !== 0) problems.push(`machine ${m} ended with exit ${exit?.code ?? exit?.signal}`);
          finals.push({ dir, exit });
        }),
      );
    } finally {
      await sim.close();
    }
    const c = sim.counters;
    const total = c.requests.broadband + c.requests.mobile;
    // every request beyond one per pair is a fault's retry, a 429's, or a repeat after a kill
    const faults = c.failures + c.unavailable + c.stalls + c.resets + c.malformed;
    const repeats = total - pairs - faults - c.throttled;
    const share429 = total === 0 ? 0 : c.throttled / total;
    say(
      `team: ${runs} runs, ${total} requests for ${pairs} pairs: ${faults} faults retried, ${c.throttled} 429s (${(share429 * 100).toFixed(2)}%), ` +
        `${c.quotaExceeded} 403s, ${repeats} other repeats (kills: ${MACHINES * KILLS})`,
    );
    if (share429 > 0.005) problems.push(`${c.throttled} of ${total} requests were answered 429 (more than 0.5%)`);
    if (c.quotaExceeded > 0) problems.push(`the simulator answered ${c.quotaExceeded} requests 403: the machines passed its quota`);
    // a kill loses at most the requests in flight (concurrency × lookups) and answers not yet committed
    const allowed = MACHINES * KILLS * profile.concurrency * 2 * 2;
    if (repeats > allowed) problems.push(`${repeats} requests repeated a pair beyond faults and 429s (at most ${allowed} expected from ${MACHINES * KILLS} kills)`);

    // the same input, fault-free, into SQLite
    const cleanDir = join(work, "team-clean");
    mkdirSync(cleanDir);
    const clean = await startSimulator({ seed: simSeed, key: o.key });
    try {
      const exit = await runBatchProcess(
        { root, args: args(join(cleanDir, "coverage.sqlite"), join(cleanDir, "out"), clean.url, ["--rate", "100000"]), env, logPath: join(cleanDir, "batch.log") },
        null,
        profile.runTimeoutMs,
      );
      if (exit.code !== 0) problems.push(`team: the clean run ended with exit ${exit.code ?? exit.signal}`);
    } finally {
      await clean.close();
    }
    const want = readReports(join(cleanDir, "out"));
    const mismatches = finals.flatMap((f, m) => compareReports(readReports(join(f.dir, "out")), want).map((x) => ({ ...x, check: `machine ${m}: ${x.check}` })));
    say(`team: ${mismatches.length} mismatches between the machines' report sets and the fault-free run's`);
    // the shared database against the clean one, engine against engine, by the store's classes of its columns
    const shared = await readPostgresCompared(url);
    const lower = (m: ReadonlyMap<string, TableData>) => new Map([...m].map(([k, t]) => [k, inLowerCase(t)]));
    const stored = compareDeclared(lower(shared.compared), lower(readDb(join(cleanDir, "coverage.sqlite")).compared), shared.tableNames);
    say(`team: ${stored.length} mismatches between the PostgreSQL database and the fault-free run's SQLite one (${shared.compared.size} tables compared)`);
    mismatches.push(...stored.map((x) => ({ ...x, check: `database: ${x.check}` })));
    const trials = { root, work, inputPath, profile, key: o.key, env, args, database, sql, pairs, quota, rate, simSeed, say };
    const results = profile.teamTrials ? [await pauseTrial(trials), await pauseReadingTrial(trials), await skewTrial(trials)] : [];
    if (!profile.teamTrials) say("team: the paused-machine and clock trials run in the full profile only");
    for (const r of results) problems.push(...r.problems);
    return {
      problems,
      mismatches,
      figures: { ...Object.assign({}, ...results.map((r) => r.figures)), machines: MACHINES, killsPerMachine: KILLS, runs, pairs, quota, requests: total, faults, throttled: c.throttled, share429, quotaExceeded: c.quotaExceeded, repeats, mismatches: mismatches.length },
    };
  } finally {
    server.stop();
  }
}
