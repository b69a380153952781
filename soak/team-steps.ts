// The team step's two further machines' trials, each on a database of its own on the step's server
// and a quota-limited simulator without faults (so that every request beyond one per pair is a 429
// or a repeat): a machine stopped past its lease (SIGSTOP) while another finishes, then resumed
// (SIGCONT); the same while it reads its input; and machines whose clocks are off (an hour ahead,
// 30 s behind) beside a right one.
import { spawnSync } from "node:child_process";
import { createWriteStream, existsSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { join } from "node:path";
import { startSimulator, type Simulator } from "../src/simulator/index.js";
import { runBatchProcess, type BatchExit } from "./batch-process.js";
import { RATE_WINDOW_MS, type SoakProfile } from "./profile.js";

/** The lease the paused machine holds: short, so that the step takes seconds. */
const LEASE_TTL_MS = 3_000;

export interface TeamTrialContext {
  root: string;
  work: string;
  /** the list every machine reads */
  inputPath: string;
  profile: SoakProfile;
  key: string;
  env: NodeJS.ProcessEnv;
  /** the batch's arguments for a database, an output folder and an API address, plus extra ones */
  args: (db: string, out: string, url: string, extra: string[]) => string[];
  /** a fresh database on the step's server: its URL */
  database: (name: string) => string;
  /** one value a query gives on a database of the step's server (psql) */
  sql: (name: string, query: string) => string;
  pairs: number;
  quota: number;
  rate: number;
  simSeed: string;
  say: (line: string) => void;
}

export interface TrialResult {
  problems: string[];
  figures: Record<string, unknown>;
}

const simulator = (c: TeamTrialContext): Promise<Simulator> =>
  startSimulator({ seed: c.simSeed, key: c.key, rateLimit: c.profile.serverLimit, rateWindowMs: RATE_WINDOW_MS, quota: c.quota });

/** The short lease of a machine the trial pauses past it (and of the one that takes over). */
const SHORT_LEASE = ["--lease-ttl-ms", String(LEASE_TTL_MS)];
/**
 * The clock trial's lease: shorter than the 30 s one machine's clock is behind, so a lease timed on
 * a machine's own clock would look expired to the others (a takeover the trial counts), yet long
 * enough that a renewal late behind a busy report stage (seconds, on a loaded machine) still holds.
 */
const SKEW_LEASE = ["--lease-ttl-ms", "20000"];

function machine(c: TeamTrialContext, url: string, name: string, simUrl: string, extra: string[], onStart?: (pgid: number) => void, input?: string): Promise<BatchExit> {
  const dir = join(c.work, name);
  const args = c.args(url, join(dir, "out"), simUrl, ["--rate", String(c.rate), ...extra]);
  return runBatchProcess(
    {
      root: c.root,
      // another input in place of the list's (the value after --in)
      args: input === undefined ? args : args.map((a, i) => (args[i - 1] === "--in" ? input : a)),
      env: c.env,
      logPath: `${dir}.log`,
      ...(onStart ? { onStart } : {}),
    },
    null,
    c.profile.runTimeoutMs * 2,
  );
}

const logLines = (path: string): Record<string, unknown>[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** Beyond one request per pair: 429s, and repeats. */
function repeats(sim: Simulator, pairs: number): number {
  const c = sim.counters;
  return c.requests.broadband + c.requests.mobile - pairs - c.throttled;
}

/** SIGSTOP a machine past its lease while another finishes the list, then SIGCONT it. */
export async function pauseTrial(c: TeamTrialContext): Promise<TrialResult> {
  const url = c.database("soak_pause");
  const sim = await simulator(c);
  const problems: string[] = [];
  try {
    let pgid = 0;
    const paused = machine(c, url, "pause-a", sim.url, SHORT_LEASE, (g) => (pgid = g));
    while (sim.counters.total < c.pairs / 5) await sleep(5);
    process.kill(-pgid, "SIGSTOP");
    const atStop = sim.counters.total;
    await sleep(LEASE_TTL_MS + 500);
    // what A had committed when B starts (A's run is the database's first)
    const aStored = Number(c.sql("soak_pause", "SELECT count(*) FROM lookups WHERE run_id = (SELECT MIN(id) FROM runs)"));
    const other = await machine(c, url, "pause-b", sim.url, SHORT_LEASE);
    const beforeResume = sim.counters.total;
    process.kill(-pgid, "SIGCONT");
    const resumed = await paused;
    const afterResume = sim.counters.total - beforeResume;
    const inFlight = c.profile.concurrency * 2;
    const a = logLines(join(c.work, "pause-a.log"));
    const lost = a.filter((l) => l.event === "stop" && l.stopReason === "lease_lost");
    const summary = a.find((l) => l.event === "summary");
    const falseClaim = readFileSync(join(c.work, "pause-b.log"), "utf8").includes("no longer running");
    const again = repeats(sim, c.pairs);
    // a pair is sent twice only when A sent it and had not committed its answer when B started: in
    // flight at the stop, or answered in a group still uncommitted (rolled back with A's session)
    const aUnstored = Number(summary?.requests) - aStored;
    // B's release probes (A never got to record tonight's check) fetch pairs A stored on purpose
    const bPlan = logLines(join(c.work, "pause-b.log")).find((l) => l.event === "plan");
    const probes = [...String(bPlan?.message ?? "").matchAll(/(\d+) probe/g)].reduce((n, m) => n + Number(m[1]), 0);
    c.say(
      `team pause: machine A stopped after ${atStop} requests for ${LEASE_TTL_MS + 500} ms; B ended with exit ${other.code}; A resumed and ended with exit ${resumed.code} ` +
        `(${afterResume} requests after SIGCONT, ${lost.length} lease-lost line, summary pending ${String(summary?.pending)}); ` +
        `${again} repeats (B's release probes ${probes}), A sent ${String(summary?.requests)} and had stored ${aStored} when B started; ${sim.counters.quotaExceeded} 403s`,
    );
    if (other.code !== 0) problems.push(`pause: the machine that took over ended with exit ${other.code ?? other.signal}`);
    if (resumed.code !== 4) problems.push(`pause: the resumed machine ended with exit ${resumed.code ?? resumed.signal}, not 4 (lease lost)`);
    if (lost.length !== 1) problems.push(`pause: the resumed machine logged ${lost.length} lease-lost lines, not 1`);
    if (summary?.pending !== 0) problems.push(`pause: the resumed machine's summary says pending ${String(summary?.pending)}, not 0`);
    if (falseClaim) problems.push("pause: the machine that took over said the paused one is no longer running");
    if (afterResume > inFlight) problems.push(`pause: the resumed machine sent ${afterResume} requests after SIGCONT (at most ${inFlight} were in flight)`);
    if (!(again <= aUnstored + probes))
      problems.push(`pause: ${again} requests repeated a pair, more than B's ${probes} probes and the ${aUnstored} A sent without storing the answer`);
    if (sim.counters.quotaExceeded > 0) problems.push(`pause: the simulator answered ${sim.counters.quotaExceeded} requests 403: the quota was passed`);
    return { problems, figures: { pauseRequestsAtStop: atStop, pauseAfterResume: afterResume, pauseRepeats: again, pauseUnstored: aUnstored, pauseProbes: probes, pauseExit: resumed.code, pause403: sim.counters.quotaExceeded } };
  } finally {
    await sim.close();
  }
}

/**
 * SIGSTOP a machine while it reads its input (a named pipe the trial writes half of), past its
 * lease, while another runs the list; then SIGCONT it and write the rest. A machine that lost its
 * lease while reading writes nothing: no input rows, no requests, no report set; its run's row
 * says so, with exit 4.
 */
export async function pauseReadingTrial(c: TeamTrialContext): Promise<TrialResult> {
  const url = c.database("soak_pause_reading");
  const sim = await simulator(c);
  const problems: string[] = [];
  const pipe = join(c.work, "pause-reading.fifo");
  const made = spawnSync("mkfifo", [pipe], { encoding: "utf8" });
  if (made.status !== 0) throw new Error(`mkfifo: ${made.stderr.trim()}`);
  try {
    const lines = readFileSync(c.inputPath, "utf8").split("\n");
    const half = Math.ceil(lines.length / 2);
    let pgid = 0;
    const paused = machine(c, url, "pause-reading-a", sim.url, SHORT_LEASE, (g) => (pgid = g), pipe);
    const writer = createWriteStream(pipe);
    writer.write(lines.slice(0, half).join("\n") + "\n");
    // its run's row is made before it reads: from then on it is reading
    while (Number(c.sql("soak_pause_reading", "SELECT count(*) FROM runs") || 0) < 1) await sleep(20);
    await sleep(200);
    process.kill(-pgid, "SIGSTOP");
    await sleep(LEASE_TTL_MS + 500);
    // B's reports are not this trial's: without them its 3 s lease is not at the mercy of a busy machine's report stage
    const other = await machine(c, url, "pause-reading-b", sim.url, [...SHORT_LEASE, "--no-reports"]);
    const beforeResume = sim.counters.total;
    process.kill(-pgid, "SIGCONT");
    writer.end(lines.slice(half).join("\n"));
    const resumed = await paused;
    const afterResume = sim.counters.total - beforeResume;
    const aRows = Number(c.sql("soak_pause_reading", "SELECT count(*) FROM run_rows WHERE run_id = (SELECT MIN(id) FROM runs)"));
    const aRun = c.sql("soak_pause_reading", "SELECT state || ' ' || exit_code || ' ' || input_rows FROM runs WHERE id = (SELECT MIN(id) FROM runs)");
    const aReports = existsSync(join(c.work, "pause-reading-a", "out", "enriched.csv"));
    c.say(
      `team pause while reading: machine A stopped while reading for ${LEASE_TTL_MS + 500} ms; B ended with exit ${other.code}; A resumed and ended with exit ${resumed.code} ` +
        `(${afterResume} requests after SIGCONT, ${aRows} input rows kept, run row "${aRun}", report set ${aReports ? "written" : "not written"})`,
    );
    if (other.code !== 0) problems.push(`pause while reading: the machine that took over ended with exit ${other.code ?? other.signal}`);
    if (resumed.code !== 4) problems.push(`pause while reading: the resumed machine ended with exit ${resumed.code ?? resumed.signal}, not 4 (lease lost)`);
    if (afterResume > 0) problems.push(`pause while reading: the resumed machine sent ${afterResume} requests`);
    if (aRows > 0) problems.push(`pause while reading: the resumed machine kept ${aRows} input rows`);
    if (aRun !== "stopped 4 0") problems.push(`pause while reading: the resumed machine's run row says "${aRun}", not "stopped 4 0"`);
    if (aReports) problems.push("pause while reading: the resumed machine wrote a report set");
    return { problems, figures: { pauseReadingExit: resumed.code, pauseReadingRows: aRows, pauseReadingRequests: afterResume } };
  } finally {
    await sim.close();
  }
}

/** Three machines at once, one an hour ahead and one 30 s behind: they share leases, pace and quota on the server's time. */
export async function skewTrial(c: TeamTrialContext): Promise<TrialResult> {
  const url = c.database("soak_skew");
  const sim = await simulator(c);
  const problems: string[] = [];
  try {
    const offsets = { "skew-ahead": 3_600_000, "skew-right": 0, "skew-behind": -30_000 };
    const exits = await Promise.all(Object.entries(offsets).map(([name, ms]) => machine(c, url, name, sim.url, [...SKEW_LEASE, ...(ms === 0 ? [] : ["--clock-offset-ms", String(ms)])])));
    const logs = Object.keys(offsets).map((name) => logLines(join(c.work, `${name}.log`)));
    const warned = logs.map((l) => l.filter((x) => x.event === "clock-skew").length);
    const tookOver = logs.flat().filter((x) => typeof x.message === "string" && x.message.startsWith("took over")).length;
    const cnt = sim.counters;
    const total = cnt.requests.broadband + cnt.requests.mobile;
    const share429 = total === 0 ? 0 : cnt.throttled / total;
    const again = repeats(sim, c.pairs);
    c.say(
      `team clocks: machines an hour ahead, right and 30 s behind ended with exits ${exits.map((e) => e.code ?? e.signal).join(", ")}; ` +
        `clock warnings ${warned.join(", ")}; ${tookOver} takeovers; ${total} requests for ${c.pairs} pairs, ${cnt.throttled} 429s, ${cnt.quotaExceeded} 403s, ${again} repeats`,
    );
    exits.forEach((e, i) => e.code !== 0 && problems.push(`clocks: machine ${Object.keys(offsets)[i]} ended with exit ${e.code ?? e.signal}`));
    if (warned[0] !== 1 || warned[1] !== 0 || warned[2] !== 1) problems.push(`clocks: clock warnings per machine ${warned.join(", ")} (expected 1, 0, 1)`);
    if (tookOver > 0) problems.push(`clocks: ${tookOver} leases taken over among live machines`);
    if (share429 > 0.005) problems.push(`clocks: ${cnt.throttled} of ${total} requests answered 429 (more than 0.5%)`);
    if (cnt.quotaExceeded > 0) problems.push(`clocks: the simulator answered ${cnt.quotaExceeded} requests 403: the quota was passed`);
    if (again > 0) problems.push(`clocks: ${again} requests repeated a pair`);
    return { problems, figures: { skewRequests: total, skew429: cnt.throttled, skew403: cnt.quotaExceeded, skewRepeats: again } };
  } finally {
    await sim.close();
  }
}
