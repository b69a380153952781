// Team mode (issue 21): three batch processes ("machines") on one PostgreSQL database against one
// simulator limited to 100 requests a window per key and lookup, each paced at the full 100 and
// sharing a --monthly-quota; and the store's own throughput on both engines (answers written per
// second, claim latency).
//
// The limit is the real one (100 a minute per lookup) with time scaled 12×, as rate-limited scales
// its window: 100 per 5 s, so a 20 s run crosses four full windows. The PostgreSQL server is a
// throwaway one, as the tests start (test/helpers/postgres-server.ts); without the package the
// scenario says how to install it and measures nothing.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { classify } from "../../src/fetch/classify.js";
import { generatePostcode, generatePostcodes, okBodyText } from "../../src/simulator/index.js";
import { DEFAULT_PROVIDERS, LOOKUPS, type Lookup } from "../../src/contract/fields.js";
import { normalisePostcode } from "../../src/contract/postcode.js";
import type { FinalRecord } from "../../src/contract/records.js";
import { openStore } from "../../src/store/open-store.js";
import { quotaPeriod } from "../../src/plan/quota-plan.js";
import type { Store } from "../../src/store/store.js";
import { postgresBinDir, startPostgresServer, type PostgresServer } from "../../test/helpers/postgres-server.js";
import { runBatchProcess } from "../lib/batch-process.js";
import { BENCH_SEED, writePostcodeCsv } from "../lib/input-file.js";
import { scratchDir } from "../lib/paths.js";
import { atLeast, atMost, check, type BenchContext, type Check, type Scenario } from "../lib/scenario.js";
import { startSimulatorProcess } from "../lib/simulator-process.js";
import { median, percent, round } from "../lib/stats.js";

const PER_WINDOW = 100;
const WINDOW_MS = 5_000;
const MACHINES = 3;

export const team: Scenario = {
  name: "team",
  async run(ctx: BenchContext) {
    const bin = postgresBinDir();
    // like report without the sqlite3 shell: say how to get it and measure nothing, rather than fail the bench
    if (!bin) return { setup: "skipped", checks: [], figures: {}, notes: ["team: PostgreSQL is not installed (sudo apt-get install postgresql): nothing measured"] };
    const scratch = scratchDir("team");
    const server = startPostgresServer(bin);
    try {
      const throughput = await storeThroughput(ctx, server, scratch.dir);
      const machines = await threeMachines(ctx, server, scratch.dir);
      return {
        setup:
          `${MACHINES} batch processes on one PostgreSQL database, simulator --rate-limit ${PER_WINDOW} per ${WINDOW_MS / 1000} s window per lookup ` +
          `(100/min scaled 12×), each --rate ${PER_WINDOW}, one shared --monthly-quota ${machines.figures.quota}; store throughput on both engines`,
        checks: [...machines.checks],
        figures: { ...machines.figures, store: throughput },
        notes: machines.notes,
      };
    } finally {
      server.stop();
      scratch.remove();
    }
  },
};

function createDatabase(server: PostgresServer, bin: string, name: string): string {
  const r = spawnSync(join(bin, "createdb"), ["-h", server.socketDir, "-U", server.user, name], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`team: createdb ${name}: ${r.stderr.trim()}`);
  return `postgres://${server.user}@/${name}?host=${server.socketDir}`;
}

async function threeMachines(ctx: BenchContext, server: PostgresServer, dir: string): Promise<{ checks: Check[]; figures: Record<string, unknown>; notes: string[] }> {
  const seconds = ctx.quick ? 10 : 20;
  // what the limit allows in the run, per lookup; the quota stops the machines a little before the lists end
  const capacity = Math.round((PER_WINDOW * seconds * 1000) / WINDOW_MS);
  const quota = capacity;
  const unique = Math.round(capacity * 1.2);
  const url = createDatabase(server, postgresBinDir()!, "bench_team");
  const sim = await startSimulatorProcess({ seed: "bench", rateLimit: PER_WINDOW, rateWindowMs: WINDOW_MS });
  try {
    // overlapping lists: each machine two thirds of the postcodes, each postcode on two machines
    const all = writePostcodeCsv(dir, unique);
    const lines = readFileSync(all, "utf8").trim().split("\n");
    const [header, ...rows] = lines;
    const third = Math.ceil(rows.length / 3);
    const inputs = Array.from({ length: MACHINES }, (_, i) => {
      const part = [...rows.slice(i * third), ...rows.slice(0, i * third)].slice(0, 2 * third);
      const path = join(dir, `machine-${i}.csv`);
      writeFileSync(path, [header, ...part].join("\n") + "\n");
      return path;
    });
    ctx.log(`team: ${MACHINES} machines, ${unique} postcodes in all (each on two machines), limit ${PER_WINDOW} per ${WINDOW_MS / 1000} s per lookup, quota ${quota} per lookup`);
    const runs = await Promise.all(
      inputs.map((input, i) =>
        runBatchProcess({
          scratch: dir,
          args: [
            "--in", input, "--db", url, "--out", join(dir, `out-${i}`), "--base-url", sim.url, "--no-reports",
            "--rate", String(PER_WINDOW), "--rate-window-ms", String(WINDOW_MS), "--concurrency", "4",
            "--monthly-quota", String(quota), "--log-format", "json", "--no-progress",
          ],
          marks: { plan: /"event":"plan"/, summary: /"event":"summary"/ },
        }),
      ),
    );
    const summaries = runs.map((r, i) => {
      const line = r.tail.find((l) => l.includes('"event":"summary"'));
      if (!line || (r.exitCode !== 0 && r.exitCode !== 3)) throw new Error(`team: machine ${i} ended with exit ${r.exitCode}: ${r.tail.slice(-3).join(" | ")}`);
      return JSON.parse(line) as { message: string; requests: number; throttled: number };
    });
    // per lookup, the three machines together: requests sent and answered 429 (from each run's summary)
    const per = Object.fromEntries(LOOKUPS.map((l) => [l, { requests: 0, throttled: 0 }])) as Record<Lookup, { requests: number; throttled: number }>;
    for (const s of summaries)
      for (const m of s.message.matchAll(/(broadband|mobile) (\d+) requests \((\d+) retries, (\d+) 429s\)/g)) {
        per[m[1] as Lookup].requests += Number(m[2]);
        per[m[1] as Lookup].throttled += Number(m[4]);
      }
    // from the first machine's first request (its plan line) to the last machine's summary line
    // (its process then still closes its pool and gives its lease back, which is not fetching)
    const span = Math.max(...runs.map((r) => r.marks.summary ?? r.seconds)) - Math.min(...runs.map((r) => r.marks.plan ?? 0));
    const perWindow = LOOKUPS.map((l) => ({ lookup: l, ...per[l], perWindow: ((per[l].requests - per[l].throttled) / span) * (WINDOW_MS / 1000) }));
    const ratio = Math.min(...perWindow.map((p) => p.perWindow)) / PER_WINDOW;
    const requests = perWindow.reduce((n, p) => n + p.requests, 0);
    const throttled = perWindow.reduce((n, p) => n + p.throttled, 0);
    const share429 = requests === 0 ? 0 : throttled / requests;
    // the shared ledger: what the three recorded this period, per lookup, against the quota
    const store = await openStore(url, { readonly: true });
    let used: Record<Lookup, number>;
    try {
      const figures = await store.ledger.figures(quotaPeriod(Date.now()).key, Date.now());
      used = figures.used;
    } finally {
      await store.close();
    }
    const mostUsed = Math.max(...LOOKUPS.map((l) => Math.max(used[l], per[l].requests)));
    const notes: string[] = [];
    if (ratio < 0.97)
      notes.push(
        `team: the machines together drew ${round(ratio, 3)} of the limit; the span runs from the first machine's plan to the last one's ` +
          "summary, so it includes the later machines' start-up (they plan after the first) and the end of the run, when the quota stops them one by one.",
      );
    return {
      checks: [
        check("3 machines: achieved rate ÷ limit (slower lookup)", ratio, `${round(ratio, 3)} (${perWindow.map((p) => `${p.lookup} ${round(p.perWindow, 1)}/window`).join(", ")})`, atLeast(0.97)),
        check("3 machines: share of requests answered 429", share429, `${percent(share429)} (${throttled} of ${requests})`, atMost(0.005, "≤ 0.5%")),
        check("3 machines: most requests of a lookup ÷ the shared quota", mostUsed / quota, `${mostUsed} of ${quota}`, atMost(1, "≤ 1")),
      ],
      figures: {
        machines: MACHINES,
        postcodes: unique,
        limitPerWindow: PER_WINDOW,
        windowMs: WINDOW_MS,
        quota,
        spanSeconds: round(span),
        perLookup: perWindow.map((p) => ({ ...p, perWindow: round(p.perWindow, 1) })),
        ledgerUsed: used,
        exitCodes: runs.map((r) => r.exitCode),
        ratio: round(ratio, 4),
        share429: round(share429, 5),
      },
      notes,
    };
  } finally {
    await sim.stop();
  }
}

/** Answers written per second (one commit per answer, the batch's worst case) and claim latency, per engine. */
async function storeThroughput(ctx: BenchContext, server: PostgresServer, dir: string): Promise<Record<string, unknown>> {
  const n = ctx.quick ? 300 : 1_000;
  const providers = DEFAULT_PROVIDERS;
  const fetchedAt = new Date().toISOString();
  const records: FinalRecord[] = [];
  for (const display of generatePostcodes(BENCH_SEED, n)) {
    const data = generatePostcode(BENCH_SEED, display, providers);
    const normalised = normalisePostcode(display);
    if (!data || !normalised.ok) continue;
    for (const lookup of LOOKUPS) {
      const body = okBodyText(lookup, "live", data, providers);
      const outcome = classify({ lookup, requested: normalised.compact, providers, status: 200, headers: {}, body, now: Date.now() });
      if (outcome.kind !== "ok") throw new Error(`team: the simulator's body for ${display} did not validate`);
      records.push({ postcode: normalised.compact, lookup, status: "ok", httpStatus: 200, attempts: 1, lastError: null, fetchedAt, runId: 0, answer: outcome.answer });
    }
  }
  const engines: Record<string, unknown> = {};
  for (const [engine, location] of [
    ["sqlite", join(dir, "throughput.sqlite")],
    ["postgres", createDatabase(server, postgresBinDir()!, "bench_store")],
  ] as const) {
    const store = await openStore(location);
    try {
      const figures = await measureStore(store, records, providers);
      engines[engine] = figures;
      ctx.log(`team: ${engine}: ${figures.answersPerSecond} answers written/s (${records.length}, one commit each), claim of 100 pairs median ${figures.claimMs} ms`);
    } finally {
      await store.close();
    }
  }
  return engines;
}

async function measureStore(store: Store, records: FinalRecord[], providers: readonly string[]): Promise<{ answersPerSecond: number; claimMs: number; claims: number }> {
  await store.answers.prepareProviders(providers);
  const { lease } = await store.leases.take({ host: "bench", pid: process.pid, process: null }, Date.now(), 600_000);
  const runId = await store.runs.create({ startedAt: new Date().toISOString(), simulated: false, inputName: "bench", args: {}, lookups: [...LOOKUPS], providers, leaseId: lease.id });
  const writer = await store.answers.openWriter({ providers });
  const started = performance.now();
  for (const r of records) {
    writer.write({ ...r, runId });
    await writer.flush();
  }
  const answersPerSecond = Math.round(records.length / ((performance.now() - started) / 1000));
  // claims of 100 fresh pairs at a time, as the batch takes them, then given back
  const postcodes = generatePostcodes("bench-claims", 2_000);
  const times: number[] = [];
  for (let i = 0; i < postcodes.length; i += 100) {
    const chunk = postcodes.slice(i, i + 100);
    const t = performance.now();
    await store.claims.claim({ leaseId: lease.id, runId, lookup: "broadband", postcodes: chunk, plannedAt: new Date().toISOString(), nowMs: Date.now() });
    times.push(performance.now() - t);
    await store.claims.release(lease.id, "broadband", chunk);
  }
  await store.leases.release(lease.id);
  return { answersPerSecond, claimMs: round(median(times), 2), claims: times.length };
}
