// Unattended runs, with the batch as a real child process: kill -9 and resume, the lock, SIGTERM
// and SIGINT, and what a cron job sees (exit codes, JSON log lines, no key anywhere).
import { readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { generatePostcodes, startSimulator, type Simulator, type SimulatorOptions } from "../src/simulator/index.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { query, spawnCli, storedAnswers, waitFor, type ChildResult, type ChildRun } from "./helpers/child-cli.js";
import { snapshot } from "./helpers/db-snapshot.js";

const KEY = "unattended-key-Qw7-never-shown";
const env = { COVERAGE_API_KEY: KEY };
const SEED = 11;
const POSTCODES = generatePostcodes(SEED, 80);
const LOOKUPS = POSTCODES.length * 2;

const dirs: string[] = [];
const sims: Simulator[] = [];
const children: ChildRun[] = [];
async function sim(options: Partial<SimulatorOptions> = {}): Promise<Simulator> {
  const s = await startSimulator({ port: 0, seed: SEED, key: KEY, latencyMs: 5, ...options });
  sims.push(s);
  return s;
}
function dir(): string {
  const d = tempDir("pcc-unattended-");
  dirs.push(d);
  return d;
}
function batch(args: string[], options: Parameters<typeof spawnCli>[2] = { env }): ChildRun {
  const run = spawnCli("batch", args, options);
  children.push(run);
  return run;
}
afterEach(async () => {
  for (const c of children.splice(0)) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill("SIGKILL");
  await Promise.all(sims.splice(0).map((s) => s.close()));
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A child batch paced to 30 requests a second per lookup (by default), so that it fetches for about three seconds. */
function slowBatchArgs(d: string, input: string, url: string, rate = 30): string[] {
  return [
    "--in", input, "--db", join(d, "coverage.sqlite"), "--out", join(d, "out"), "--base-url", url,
    "--concurrency", "2", "--rate", String(rate), "--rate-window-ms", "1000", "--backoff-base-ms", "1",
    "--log-format", "json", "--no-progress", "--probe", "0",
  ];
}

function input(d: string): string {
  return writeCsv(d, "in.csv", ["postcode", ...POSTCODES, "not a postcode"]);
}

/** Every JSON line of a child's stderr, parsed: also proves each line is one JSON object. */
function jsonLines(r: ChildResult): { level: string; message: string }[] {
  return r.stderr
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as { level: string; message: string });
}

function expectNoKeyIn(d: string, texts: string[]): void {
  for (const t of texts) expect(t).not.toContain(KEY);
  const files = [
    ...readdirSync(d).filter((f) => f.startsWith("coverage.sqlite")).map((f) => join(d, f)),
    ...readdirSync(join(d, "out")).map((f) => join(d, "out", f)),
  ];
  // the database and the reports were searched, not an empty list
  expect(files).toEqual(expect.arrayContaining([join(d, "coverage.sqlite"), join(d, "out", "summary.json"), join(d, "out", "failures.csv")]));
  for (const f of files) expect(readFileSync(f, "latin1")).not.toContain(KEY);
}

describe("unattended runs (child processes)", () => {
  it("kill -9 mid-run loses only requests in flight; the same command again finishes and the database equals a clean run's", async () => {
    const s = await sim();
    const d = dir();
    const file = input(d);
    const db = join(d, "coverage.sqlite");
    const first = batch(slowBatchArgs(d, file, s.url));
    // the run's row shows its requests while it runs (written every second)
    const checkpoint = () => query<{ requests: number }>(db, "SELECT requests FROM runs")[0]?.requests ?? 0;
    await waitFor("the first checkpoint", () => storedAnswers(db) > 0 && checkpoint() > 0);
    // the key travels in the environment only: not in argv, not in what other users see in ps
    expect(first.argv.join(" ")).not.toContain(KEY);
    expect(readFileSync(`/proc/${first.pid}/cmdline`, "utf8")).not.toContain(KEY);
    first.child.kill("SIGKILL");
    const killed = await first.done;
    expect(killed.signal).toBe("SIGKILL");

    const stored = storedAnswers(db);
    expect(stored).toBeLessThan(LOOKUPS);
    // what the server answered but the batch had not stored yet: at most the requests in flight
    const sent = s.counters.total;
    expect(sent - stored).toBeLessThanOrEqual(2 * 2);
    expect(query(db, "SELECT state FROM runs")).toEqual([{ state: "running" }]);
    expect(query(db, "SELECT pid FROM leases")).toEqual([{ pid: first.pid }]);

    const resumed = await runIn(d, { in: file, baseUrl: s.url, probe: 0 }, env);
    expect(resumed.exitCode).toBe(0);
    expect(resumed.counts!.requests).toBe(LOOKUPS - stored);
    expect(resumed.logs.join("\n")).toMatch(new RegExp(`took over the lease of pid ${first.pid} on \\S+ \\(run \\d+\\), which is no longer running`));
    const runs = query<{ state: string; exit_code: number | null; ok: number; not_found: number; rejects: number; requests: number }>(
      db,
      "SELECT state, exit_code, ok, not_found, rejects, requests FROM runs ORDER BY id",
    );
    expect(runs[0]).toMatchObject({ state: "abandoned", exit_code: null, rejects: 1 });
    expect(runs[0]!.ok + runs[0]!.not_found).toBe(stored);
    expect(runs[0]!.requests).toBeGreaterThan(0);
    expect(runs[0]!.requests).toBeLessThanOrEqual(sent);
    expect(runs[1]).toMatchObject({ state: "completed", exit_code: 0 });
    expect(runs[1]!.ok + runs[1]!.not_found).toBe(LOOKUPS);

    const clean = dir();
    expect((await runIn(clean, { in: file, baseUrl: s.url }, env)).exitCode).toBe(0);
    const after = await snapshot(db);
    expect(after).toEqual(await snapshot(join(clean, "coverage.sqlite")));
    expect(after.lookups).toHaveLength(LOOKUPS);
    const key = (r: unknown) => JSON.stringify([(r as { postcode: string }).postcode, (r as { UPRN: number }).UPRN]);
    expect(new Set(after.broadband.map(key)).size).toBe(after.broadband.length);
    expect(new Set(after.mobile.map(key)).size).toBe(after.mobile.length);
    expectNoKeyIn(d, [killed.stderr, killed.stdout, ...resumed.logs]);
  });

  it("a second batch on the same database exits 1 at once; SIGTERM finishes what is in flight, exits 143, and a re-run resumes", async () => {
    const s = await sim();
    const d = dir();
    const file = input(d);
    const db = join(d, "coverage.sqlite");
    // 10 a second: the holder must still be fetching when the second batch (a process start away) and SIGTERM come
    const holder = batch(slowBatchArgs(d, file, s.url, 10));
    await waitFor("some answers", () => storedAnswers(db) >= 10);

    const second = await batch(slowBatchArgs(d, file, s.url)).done;
    expect(second.code).toBe(1);
    const refusal = jsonLines(second);
    expect(refusal).toHaveLength(1);
    // the line that ends the refused run says so in the fields every run's last line has
    expect(refusal[0]).toMatchObject({ level: "error", event: "refused", exitCode: 1, stopReason: "locked" });
    expect(refusal[0]!.message).toMatch(new RegExp(`another batch \\(pid ${holder.pid} .*is using this database; wait for it to finish or use another --db`));
    expect(query(db, "SELECT COUNT(*) AS n FROM runs")).toEqual([{ n: 1 }]);

    holder.child.kill("SIGTERM");
    const stopped = await holder.done;
    expect(stopped.code).toBe(143);
    expect(stopped.signal).toBeNull();
    const stored = storedAnswers(db);
    expect(stored).toBeLessThan(LOOKUPS);
    // requests in flight were allowed to finish: every request the server saw has its answer stored
    expect(s.counters.total).toBe(stored);
    const [run] = query<Record<string, number | string>>(db, "SELECT * FROM runs");
    expect(run).toMatchObject({ state: "interrupted", exit_code: 143, requests: stored, rejects: 1, postcodes: POSTCODES.length });
    expect(Number(run!.ok) + Number(run!.not_found)).toBe(stored);
    expect(run!.pending).toBe(LOOKUPS - stored);
    expect(run!.message).toMatch(/interrupted by SIGTERM; re-run resumes/);
    const lines = jsonLines(stopped);
    expect(lines.some((l) => l.level === "warn" && /SIGTERM: finishing requests in flight/.test(l.message))).toBe(true);
    expect(lines.at(-1)).toMatchObject({ level: "result", exitCode: 143 });
    expect(query(db, "SELECT COUNT(*) AS n FROM leases")).toEqual([{ n: 0 }]);

    const resumed = await runIn(d, { in: file, baseUrl: s.url, probe: 0 }, env);
    expect(resumed.exitCode).toBe(0);
    expect(resumed.counts!.requests).toBe(LOOKUPS - stored);
    expect(s.counters.total).toBe(LOOKUPS);
    expectNoKeyIn(d, [second.stderr, stopped.stderr, stopped.stdout, ...resumed.logs]);
  });

  it("SIGINT stops the same way with exit 130", async () => {
    const s = await sim();
    const d = dir();
    const db = join(d, "coverage.sqlite");
    const run = batch(slowBatchArgs(d, input(d), s.url));
    await waitFor("some answers", () => storedAnswers(db) >= 6);
    run.child.kill("SIGINT");
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(query(db, "SELECT state, exit_code FROM runs")).toEqual([{ state: "interrupted", exit_code: 130 }]);
    expect(s.counters.total).toBe(storedAnswers(db));
  });

  it("Ctrl-C while standard input is still open does not wait for its end: exit 130, the rows read so far are kept", async () => {
    const d = dir();
    const db = join(d, "coverage.sqlite");
    const run = batch(["--in", "-", "--simulate", "--db", db, "--out", join(d, "out")], {
      env,
      // more than the 64 bytes the reader sniffs before it parses the header
      stdin: ["postcode", ...POSTCODES.slice(0, 10)].join("\n") + "\n",
      keepStdinOpen: true,
    });
    // The header is recorded once the first chunk is parsed; the ten rows came in that chunk.
    await waitFor("the input's header to be read", () => {
      try {
        return query<{ input_columns: string }>(db, "SELECT input_columns FROM runs")[0]?.input_columns === '["postcode"]';
      } catch {
        return false;
      }
    });
    const signalled = Date.now();
    run.child.kill("SIGINT");
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(Date.now() - signalled).toBeLessThan(5_000);
    const [row] = query<{ state: string; exit_code: number; pending: number; input_rows: number }>(
      db,
      "SELECT state, exit_code, pending, input_rows FROM runs",
    );
    expect(row).toMatchObject({ state: "interrupted", exit_code: 130 });
    const kept = query<{ n: number }>(db, "SELECT COUNT(*) AS n FROM run_rows")[0]!.n;
    // csv-parse may hold the last line back until it sees what follows it
    expect([9, 10]).toContain(kept);
    expect(row!.input_rows).toBe(kept);
    expect(row!.pending).toBe(2 * kept);
  });

  it("cron mode: --in - reads standard input, --quiet and --log-format json print only JSON errors, the plan and the summary", async () => {
    const d = dir();
    const r = await batch(
      ["--in", "-", "--simulate", "--db", join(d, "coverage.sqlite"), "--out", join(d, "out"), "--quiet", "--log-format", "json",
        "--rate-window-ms", "1000"],
      { env, stdin: ["Postcode;Name", ...POSTCODES.slice(0, 6).map((p, i) => `${p.toLowerCase()};n${i}`), "XX;bad"].join("\r\n") },
    ).done;
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    const lines = jsonLines(r);
    // the plan as it is made; that the reports were written; the report's headline (run, broadband, mobile, the mobile scale and why, the simulated-data note), the file to open first, then the run's summary
    expect(lines.map((l) => l.level)).toEqual(["info", "info", "result", "result", "result", "result", "result", "result", "result"]);
    expect(lines[1]!.message).toMatch(/^reports written to /);
    expect(lines[5]!.message).toMatch(/^mobile scale: no rating 1 or 2 among [\d,]+ ratings of MobileAvailability-\d+: Ofcom's current 0\/3\/4 scale$/);
    expect(lines[0]).toMatchObject({ event: "plan", runId: 1, inputRows: 7, postcodes: 6, rejects: 1 });
    // (the key-piece redaction masks the temp dir's name, which shares a word with the test's key)
    expect(lines.at(-2)!.message).toMatch(/^open \/.*\/out\/coverage\.xlsx first: the summary, figures per group and your rows with their figures; \/.*\/out\/report\.html shows them as charts in a browser$/);
    expect(lines.at(-1)).toMatchObject({ exitCode: 0, postcodes: 6, rejects: 1, failed: 0, pending: 0, requests: 12 });
    expect(query(join(d, "coverage.sqlite"), "SELECT simulated, input_name FROM runs")).toEqual([{ simulated: 1, input_name: "-" }]);
    expect(readdirSync(join(d, "out"))).toEqual(
      expect.arrayContaining(["broadband.csv", "mobile.csv", "coverage.csv", "postcodes.csv", "enriched.csv", "rejects.csv", "failures.csv", "groups.csv", "summary.csv", "summary.json", "coverage.xlsx"]),
    );
    expectNoKeyIn(d, [r.stderr]);
  });

  it("configuration errors exit 1 with one clear line and no stack trace", async () => {
    const d = dir();
    const base = ["--in", input(d), "--db", join(d, "coverage.sqlite"), "--out", join(d, "out")];
    const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [[...base, "--base-url", "http://api.example.com"], env, /refusing plain http to api\.example\.com: the key would travel in clear/],
      [[...base, "--base-url", "https://api.example.com"], {}, /no key for the broadband and mobile lookups: set COVERAGE_API_KEY/],
      [[...base, "--base-url", "https://api.example.com", "--key", KEY], env, /unknown option --key\b/],
      [["--in", join(d, "missing.csv"), "--db", join(d, "coverage.sqlite"), "--simulate", "--log-format", "json"], env, /cannot read .*missing\.csv: no such file/],
    ];
    const results = await Promise.all(cases.map(([args, e]) => batch(args, { env: e }).done));
    results.forEach((r, i) => {
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(cases[i]![2]);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });
    // with --log-format json even the error is a JSON object, ending the run as every run's last line does
    expect(jsonLines(results[3]!).at(-1)).toMatchObject({ level: "error", event: "refused", exitCode: 1, stopReason: "input" });
    expect(jsonLines(results[3]!).at(-1)?.message).toMatch(/no such file/);
    // refused before reading its input: no run number taken, no database file left behind
    expect(readdirSync(d)).toEqual(["in.csv"]);
  });
});
