// Team mode end to end (issue 21 points 2–4): several batches on one PostgreSQL database and one
// simulator over loopback. Batches run as real CLI processes where processes matter (several
// machines at once, a SIGKILL), in-process with stores of their own where only the database is
// shared (the pace and the ledger live there, so that is faithful).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { squeezePostcode } from "../src/contract/postcode.js";
import { systemClock } from "../src/fetch/clock.js";
import { generatePostcodes } from "../src/simulator/index.js";
import { openStore } from "../src/store/open-store.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { teamResources } from "./helpers/team-resources.js";
import { spawnCli, waitFor } from "./helpers/child-cli.js";
import { freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";

const { skip } = requiresPostgres();
const KEY = "team-key-7c2e-Rb4x";
const ENV = { COVERAGE_API_KEY: KEY };

describe.skipIf(skip)("team mode: batches on several machines share one PostgreSQL store", () => {
  const { closing, children, simulator } = teamResources(KEY);
  const reader = async (url: string) => {
    const store = await openStore(url, { readonly: true });
    closing.push(store);
    return store;
  };

  test("two batch processes on overlapping lists: no pair fetched twice, each its own exit code and report set, status on either shows both", async () => {
    const dir = tempDir();
    const list = generatePostcodes(41, 80);
    const url = await freshPostgresDatabase();
    // slow answers, so that both machines are at work together
    const sim = await simulator({ seed: 41, latencyMs: 120 });
    const machine = (name: string, postcodes: string[]) =>
      spawnCli(
        "batch",
        ["--in", writeCsv(dir, `${name}.csv`, ["postcode", ...postcodes]), "--out", join(dir, name), "--db", url, "--base-url", sim.url, "--rate", "60000", "--concurrency", "2", "--quiet"],
        { env: ENV },
      );
    const a = machine("a", list.slice(0, 60));
    const b = machine("b", list.slice(20));
    children.push(a, b);
    // a writable store creates the schema the machines are about to create: the reads need it
    const store = await openStore(url);
    closing.push(store);
    let leases = 0;
    await waitFor("both batches holding a lease", () => {
      void store.leases.live(Date.now()).then((l) => (leases = l.length));
      return leases === 2;
    }, 30_000);
    const status = spawnCli("status", ["--db", url, "--json"]);
    const [ra, rb, rs] = await Promise.all([a.done, b.done, status.done]);
    expect([ra.code, rb.code], ra.stderr + rb.stderr).toEqual([0, 0]);
    // every pair once: 80 postcodes, two lookups
    expect(sim.counters.requests).toEqual({ broadband: 80, mobile: 80 });
    expect(sim.counters.throttled).toBe(0);
    // status, run while both worked, shows both runs and both leases
    expect(rs.code).toBe(0);
    const shown = JSON.parse(rs.stdout) as { runs: { id: number; state: string }[]; leases: { holder: { pid: number } }[] };
    expect(shown.leases.map((l) => l.holder.pid).sort()).toEqual([a.pid, b.pid].sort());
    expect(shown.runs.filter((r) => r.state === "running").map((r) => r.id).sort()).toEqual([1, 2]);
    // each run its own report set, of its own list
    for (const [name, postcodes] of [["a", 60], ["b", 60]] as const) {
      expect(existsSync(join(dir, name, "report.html"))).toBe(true);
      expect(readFileSync(join(dir, name, "postcodes.csv"), "utf8").trim().split("\n")).toHaveLength(postcodes + 1);
    }
    const runs = (await store.status.database(10, Date.now())).runs;
    expect(runs.map((r) => [r.state, r.exit_code]).sort()).toEqual([["completed", 0], ["completed", 0]]);
  }, 60_000);

  test("three batches at once keep to the simulator's rate limit together and never pass a --monthly-quota they share", async () => {
    const dir = tempDir();
    const list = generatePostcodes(43, 80);
    const url = await freshPostgresDatabase();
    // 20 requests per 1 s window per key and lookup, and each batch paced at the same 20: alone each
    // would take the whole limit, so together they hold to it only by sharing the pace
    const sim = await simulator({ seed: 43, rateLimit: 20, rateWindowMs: 1_000 });
    const flags = { baseUrl: sim.url, db: url, lookups: "broadband", rate: 20, monthlyQuota: "60", reports: false };
    // three batches in this one process share its event loop with the simulator: a margin of 250 ms
    // keeps a stall of the loop from bunching their requests past the limit (the bench measures the rate itself)
    const deps = { clock: systemClock, rateWindowMs: 1_000, rateMarginMs: 250 };
    const runs = await Promise.all(
      [list.slice(0, 40), list.slice(20, 60), list.slice(40)].map((part, i) =>
        runIn(dir, { ...flags, in: writeCsv(dir, `m${i}.csv`, ["postcode", ...part]), out: join(dir, `m${i}`) }, ENV, deps),
      ),
    );
    const requests = runs.reduce((n, r) => n + (r.counts?.requests ?? 0), 0);
    // the quota stops them short of the 80 postcodes, never one request past it (a reservation a
    // machine gives back after another stopped for the quota stays unspent tonight)
    expect(requests).toBeGreaterThan(40);
    expect(requests).toBeLessThanOrEqual(60);
    expect(sim.counters.requests.broadband).toBe(requests);
    // ≤ 0.5% of 60 requests: none answered 429
    expect(sim.counters.throttled).toBe(0);
    // as many different postcodes stored as requests: none fetched twice
    const status = await (await reader(url)).status.database(10, Date.now());
    expect(status.lookups.reduce((n, l) => n + l.postcodes, 0)).toBe(requests);
    // those whose list the quota cut short exit 3, each with its own run
    expect(runs.map((r) => r.exitCode)).toContain(3);
    expect(runs.map((r) => r.exitCode).filter((c) => c !== 0 && c !== 3)).toEqual([]);
    expect(new Set(runs.map((r) => r.runId)).size).toBe(3);
  }, 60_000);

  test("a vanished machine's claims return to the pool when its lease expires, and another machine finishes them", async () => {
    const dir = tempDir();
    const list = generatePostcodes(47, 40);
    const input = writeCsv(dir, "in.csv", ["postcode", ...list]);
    const url = await freshPostgresDatabase();
    const sim = await simulator({ seed: 47, latencyMs: 100 });
    const store = await openStore(url);
    closing.push(store);
    const first = spawnCli(
      "batch",
      ["--in", input, "--out", join(dir, "first"), "--db", url, "--base-url", sim.url, "--lookups", "broadband", "--rate", "60000", "--concurrency", "2", "--lease-ttl-ms", "3000", "--quiet"],
      { env: ENV },
    );
    children.push(first);
    // the first machine has stored some answers (what a lapsed lease must keep), and is still at work
    const storedBy = async (runId: (id: number) => boolean) =>
      (await Promise.all(list.map((pc) => store.answers.get(squeezePostcode(pc), "broadband")))).filter((a) => a !== null && runId(a.runId)).length;
    await waitFor("the first machine's first answers stored", async () => (await storedBy(() => true)) >= 4, 30_000);
    // a machine cut off (SIGSTOP: its process still exists, so only the lease's expiry frees its claims)
    first.child.kill("SIGSTOP");
    const sentBefore = sim.counters.requests.broadband;
    const [lease] = (await store.leases.live(Date.now())).filter((l) => l.holder.pid === first.pid);
    expect(lease).toBeDefined();
    // the first machine claimed the whole list; the other, started within its lease (3 s), waits for it to lapse
    const other = runIn(dir, { in: input, db: url, baseUrl: sim.url, lookups: "broadband", probe: 0, reports: false }, ENV, { clock: systemClock, leaseTtlMs: 3000 });
    await waitFor("the first machine's lease to expire", () => Date.now() > Date.parse(lease!.expiresAt) + 100, 30_000);
    // then it dies for good: a transaction it had open is rolled back
    first.child.kill("SIGKILL");
    await first.done;
    const done = await other;
    expect(done.exitCode, done.logs.join("\n")).toBe(0);
    expect(done.counts).toMatchObject({ postcodes: 40, pending: 0 });
    expect(done.logs.filter((l) => /held by another run; \d+ of them fetched here after its lease lapsed/.test(l)), done.logs.join("\n")).toHaveLength(1);
    // what the first machine stored is kept, and the other fetched exactly the rest: a pair is sent
    // twice only when the first machine had sent it but not committed its answer (in flight at the
    // stop, or answered and queued for a commit that a loaded machine had not yet made)
    const keptFromFirst = await storedBy((id) => id !== done.runId);
    expect(keptFromFirst).toBeGreaterThanOrEqual(4);
    expect(keptFromFirst).toBeLessThanOrEqual(sentBefore);
    expect(sim.counters.requests.broadband).toBe(sentBefore + done.counts!.requests);
    expect(done.counts!.requests).toBe(40 - keptFromFirst);
    expect(await storedBy((id) => id === done.runId)).toBe(40 - keptFromFirst);
    expect((await store.status.database(10, Date.now())).lookups.reduce((n, l) => n + l.postcodes, 0)).toBe(40);
  }, 60_000);
});
