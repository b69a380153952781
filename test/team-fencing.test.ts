// A team that can be paused and skewed (PostgreSQL): a machine stopped past its lease writes nothing
// when it resumes and says so; machines whose clocks are off share leases and pace on the server's time.
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { systemClock, type Clock } from "../src/fetch/clock.js";
import { quotaPeriod } from "../src/plan/quota-plan.js";
import { generatePostcodes } from "../src/simulator/index.js";
import { openStore } from "../src/store/open-store.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { teamResources } from "./helpers/team-resources.js";
import { onTimelineOf } from "./helpers/fake-clock.js";
import { spawnCli, waitFor } from "./helpers/child-cli.js";
import pg from "pg";
import { freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";

const { skip } = requiresPostgres();
const KEY = "team-key-9d1f-Qe2v";
const ENV = { COVERAGE_API_KEY: KEY };
const HOUR = 3_600_000;

interface LogLine {
  level: string;
  message: string;
  event?: string;
  [k: string]: unknown;
}
const parse = (text: string): LogLine[] =>
  text
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as LogLine);

/** Real time shifted by `offsetMs`; sleeps are cut short and recorded (a stall shows as a long one). */
function skewedClock(offsetMs: number, slept: number[] = []): Clock {
  const clock: Clock = {
    now: () => Date.now() + offsetMs,
    sleep: async (ms) => {
      slept.push(ms);
      await new Promise((r) => setTimeout(r, Math.min(ms, 5)));
    },
  };
  // a machine whose clock is off tells the wall clock's time, shifted: the scenario's time line
  return onTimelineOf(clock, systemClock);
}

describe.skipIf(skip)("team mode: a paused machine and machines with clocks off", () => {
  const { closing, children, simulator } = teamResources(KEY);

  test("a machine stopped past its lease and resumed sends, claims and commits nothing more, exits 4 saying so, and its summary counts the other's answers", async () => {
    const dir = tempDir();
    const list = generatePostcodes(53, 40);
    const input = writeCsv(dir, "in.csv", ["postcode", ...list]);
    const url = await freshPostgresDatabase();
    const sim = await simulator({ seed: 53, latencyMs: 100 });
    const store = await openStore(url);
    closing.push(store);
    const quota = ["--monthly-quota", "200"];
    const first = spawnCli(
      "batch",
      ["--in", input, "--out", join(dir, "first"), "--db", url, "--base-url", sim.url, "--lookups", "broadband", "--probe", "0", "--no-reports", "--rate", "60000", "--concurrency", "2", "--lease-ttl-ms", "3000", "--log-format", "json", ...quota],
      { env: ENV },
    );
    children.push(first);
    await waitFor("the first machine at work", () => sim.counters.requests.broadband >= 8, 30_000);
    first.child.kill("SIGSTOP");
    const [lease] = (await store.leases.live(Date.now())).filter((l) => l.holder.pid === first.pid);
    expect(lease).toBeDefined();
    await waitFor("the first machine's lease to expire", () => Date.now() > Date.parse(lease!.expiresAt) + 200, 30_000);
    const other = await runIn(dir, { in: input, db: url, baseUrl: sim.url, lookups: "broadband", probe: 0, reports: false, monthlyQuota: "200" }, ENV, {
      clock: systemClock,
      leaseTtlMs: 3000,
    });
    expect(other.exitCode, other.logs.join("\n")).toBe(0);
    // a lease that expired is said to have expired: its holder's process may well still be running
    // (when the paused machine stopped inside a transaction, its locked row is left for later)
    const otherLines = other.logs.join("\n");
    const tookOver = other.logs.filter((l) => l.includes("took over the lease"));
    expect(tookOver.length).toBeLessThanOrEqual(1);
    for (const line of tookOver) expect(line).toMatch(new RegExp(`took over the lease of pid ${first.pid} on \\S+ \\(run \\d+\\): it expired without renewal`));
    expect(otherLines).not.toMatch(/no longer running/);
    const sentBeforeResume = sim.counters.requests.broadband;

    first.child.kill("SIGCONT");
    const result = await first.done;
    const lines = parse(result.stderr + result.stdout);
    expect(result.code, result.stderr).toBe(4);
    // nothing sent after it resumed beyond what its 2 workers had in flight (a request waiting for
    // its pace slot at the stop): not a pair of its claimed chunk, not a retry
    expect(sim.counters.requests.broadband - sentBeforeResume, result.stderr.slice(-2000)).toBeLessThanOrEqual(2);
    const lost = lines.filter((l) => l.stopReason === "lease_lost" && l.event === "stop");
    expect(lost, result.stderr).toHaveLength(1);
    expect(lost[0]!.message).toMatch(/^lost the lease: /);
    const summary = lines.find((l) => l.event === "summary")!;
    expect(summary, result.stderr.slice(-2000)).toMatchObject({ exitCode: 4, stopReason: "lease_lost", postcodes: 40, pending: 0, failed: 0 });
    expect((summary.ok as number) + (summary.notFound as number)).toBe(40);
    const runs = await store.status.database(10, Date.now());
    const firstRun = runs.runs.find((r) => r.id === summary.runId);
    expect(firstRun).toMatchObject({ state: "stopped", exit_code: 4, pending: 0 });
    // every pair stored once; a pair sent twice only when the paused machine sent it and did not
    // commit it: in flight at the stop, or answered and waiting for its group's commit (how many
    // that is depends on the commit's round trip when the stop came, not on the workers alone)
    expect(runs.lookups.reduce((n, l) => n + l.postcodes, 0)).toBe(40);
    const committedByFirst = await pairsStoredBy(url, summary.runId as number);
    expect(sim.counters.requests.broadband - 40, result.stderr.slice(-2000)).toBeLessThanOrEqual((summary.requests as number) - committedByFirst);
    // the ledger never undercounts: what the paused machine reserved and did not record still counts
    const used = (await store.ledger.figures(quotaPeriod(Date.now()).key, Date.now())).used.broadband;
    expect(used).toBeGreaterThanOrEqual(sim.counters.requests.broadband);
    expect(used).toBeLessThanOrEqual(200);
  }, 90_000);

  test("a machine an hour ahead does not take over a live machine's lease, and is told its clock is off", async () => {
    const dir = tempDir();
    const url = await freshPostgresDatabase();
    const sim = await simulator({ seed: 54 });
    const store = await openStore(url);
    closing.push(store);
    const live = await store.leases.take({ host: "machine-b", pid: 4242, process: null }, Date.now(), 120_000);
    const input = writeCsv(dir, "in.csv", ["postcode", ...generatePostcodes(54, 10)]);
    const ahead = await runIn(dir, { in: input, db: url, baseUrl: sim.url, lookups: "broadband", probe: 0, reports: false }, ENV, { clock: skewedClock(HOUR) });
    expect(ahead.exitCode, ahead.logs.join("\n")).toBe(0);
    expect((await store.leases.live(Date.now())).map((l) => l.id)).toEqual([live.lease.id]);
    expect(ahead.logs.join("\n")).not.toMatch(/took over/);
    const skew = ahead.logs.map((l) => JSON.parse(l) as LogLine).filter((l) => l.event === "clock-skew");
    expect(skew).toHaveLength(1);
    expect(skew[0]!.message).toMatch(/^this machine's clock is 3600\.\d s ahead of the database server's/);
    // what it stored carries the server's time, not its own
    const run = (await store.status.database(1, Date.now())).runs[0]!;
    expect(Math.abs(Date.parse(run.started_at) - Date.now())).toBeLessThan(60_000);
  }, 60_000);

  test("a machine 30 s ahead does not stall the others' pace, and one an hour behind still sends without waiting", async () => {
    const dir = tempDir();
    const url = await freshPostgresDatabase();
    const sim = await simulator({ seed: 55 });
    // 600 a minute: one start every 100 ms for everyone using the key
    const flags = (name: string) => ({ in: writeCsv(dir, `${name}.csv`, ["postcode", ...generatePostcodes(55 + name.length, 10)]), db: url, baseUrl: sim.url, lookups: "broadband", probe: 0, reports: false, rate: 600 });
    const ahead = await runIn(dir, flags("a"), ENV, { clock: skewedClock(30_000) });
    expect(ahead.exitCode, ahead.logs.join("\n")).toBe(0);
    const sleptOnTime: number[] = [];
    const onTime = await runIn(dir, flags("bb"), ENV, { clock: skewedClock(0, sleptOnTime) });
    expect(onTime.exitCode, onTime.logs.join("\n")).toBe(0);
    expect(Math.max(0, ...sleptOnTime)).toBeLessThan(2_000);
    const sleptBehind: number[] = [];
    const behind = await runIn(dir, flags("ccc"), ENV, { clock: skewedClock(-HOUR, sleptBehind) });
    expect(behind.exitCode, behind.logs.join("\n")).toBe(0);
    expect(behind.counts).toMatchObject({ pending: 0, failed: 0 });
    expect(Math.max(0, ...sleptBehind)).toBeLessThan(2_000);
    expect(sim.counters.requests.broadband).toBe(30);
  }, 60_000);
});

/** The pairs whose stored answer a run wrote (lookups.run_id): what it committed and no other run fetched again. */
async function pairsStoredBy(url: string, runId: number): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>("SELECT COUNT(*) AS n FROM lookups WHERE run_id = $1", [runId])).rows[0]!.n);
  } finally {
    await client.end();
  }
}
