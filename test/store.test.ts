import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { useTempDatabase } from "./helpers/temp-database.js";
import { answerWriter } from "../src/store/sqlite/answers.js";
import { ledgerUsed } from "../src/store/sqlite/ledger.js";
import type { FinalRecord } from "../src/contract/records.js";
import { okRecord } from "./helpers/records.js";
import { ensureProviderColumns, openDatabase } from "../src/store/sqlite/db.js";
import { releaseLease, takeLease } from "../src/store/sqlite/leases.js";
import { LockedError } from "../src/store/types.js";
import { processAlive, processIdentity } from "../src/store/process-identity.js";
import { spawn } from "node:child_process";
import { rowWriter } from "../src/store/sqlite/run-rows.js";
import { abandonOrphans, createRun, finishRun } from "../src/store/sqlite/runs.js";
import { zeroOutcomes } from "../src/contract/counts.js";
import { SCHEMA_VERSION } from "../src/store/sqlite/schema.js";
import { planFetches } from "../src/plan/plan.js";
import { finalCounts } from "../src/store/sqlite/runs.js";
import { mobileFields, DEFAULT_PROVIDERS } from "../src/contract/fields.js";

const t = useTempDatabase("pcc-store-");

const newRun = () =>
  createRun(t.db, { startedAt: "2026-01-01T00:00:00.000Z", simulated: false, inputName: "x", args: {}, lookups: ["broadband", "mobile"], providers: [...DEFAULT_PROVIDERS] });

const ok = okRecord;

const failed = (postcode: string, fetchedAt: string): FinalRecord => ({
  postcode,
  lookup: "broadband",
  status: "failed",
  httpStatus: 200,
  attempts: 1,
  lastError: null,
  fetchedAt,
  runId: 1,
});

describe("store", () => {
  it("migrates to the current schema version, WAL mode", () => {
    expect(t.db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    expect(t.db.pragma("journal_mode", { simple: true })).toBe("wal");
    // idempotent reopen
    t.db.close();
    t.db = openDatabase(join(t.dir, "t.sqlite"));
    expect(t.db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
  });

  it("adds rating columns for new providers", () => {
    ensureProviderColumns(t.db, ["EE"]);
    const cols = (t.db.prepare("SELECT name FROM pragma_table_info('mobile_addresses')").all() as { name: string }[]).map((r) => r.name);
    for (const f of [...mobileFields(DEFAULT_PROVIDERS), ...mobileFields(["EE"])]) expect(cols).toContain(f);
  });

  it("replaces a postcode's addresses with each answer and keeps 12-digit UPRNs exact", () => {
    const w = answerWriter(t.db, { providers: DEFAULT_PROVIDERS });
    w.write(ok("AB11AA", [100020416747, 999999999999, 5]));
    w.write(ok("AB11AA", [100020416747, 7]));
    w.flush();
    const rows = t.db.prepare("SELECT uprn FROM broadband_addresses WHERE postcode = 'AB11AA' ORDER BY uprn").pluck().all();
    expect(rows).toEqual([7, 100020416747]);
    const l = t.db.prepare("SELECT status, address_count FROM lookups").get();
    expect(l).toEqual({ status: "ok", address_count: 2 });
  });

  it("a later failure keeps the last good addresses and records the error", () => {
    const w = answerWriter(t.db, { providers: DEFAULT_PROVIDERS });
    w.write(ok("AB11AA", [1, 2]));
    w.write({ postcode: "AB11AA", lookup: "broadband", status: "failed", httpStatus: 500, attempts: 6, lastError: "HTTP 500: boom", fetchedAt: "2026-01-02T00:00:00.000Z", runId: 2 });
    w.flush();
    expect(t.db.prepare("SELECT COUNT(*) FROM broadband_addresses").pluck().get()).toBe(2);
    expect(t.db.prepare("SELECT status, attempts, last_error, address_count FROM lookups").get()).toEqual({
      status: "failed",
      attempts: 6,
      last_error: "HTTP 500: boom",
      address_count: 2,
    });
  });

  it("commits the answers of one event-loop turn together, before any I/O", async () => {
    const w = answerWriter(t.db, { providers: DEFAULT_PROVIDERS });
    const count = () => t.db.prepare("SELECT COUNT(*) FROM lookups").pluck().get();
    w.write(ok("AA11AA", [1]));
    w.write(ok("BB11BB", [2]));
    w.write(ok("CC11CC", [3]));
    expect(count()).toBe(0);
    await new Promise((r) => setImmediate(r));
    expect(count()).toBe(3);
  });

  it("with a grouping window, once a commit was busy, answers (with their ledger rows) wait for the window and commit together", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate", "clearImmediate", "performance"] });
    try {
      const runId = newRun();
      const w = answerWriter(t.db, { providers: DEFAULT_PROVIDERS, grouping: { windowMs: 100, maxWrites: 5, busyWrites: 2 } });
      const stored = () => [t.db.prepare("SELECT COUNT(*) FROM lookups").pluck().get(), ledgerUsed(t.db, "broadband", "2026-01-01")];
      w.write(ok("AA11AA", [1]));
      vi.advanceTimersByTime(0);
      expect(stored()).toEqual([1, 0]);
      // not busy yet: the next answer is committed on the next turn too
      w.write(ok("BB11BB", [1]));
      w.write(ok("CC11CC", [1]));
      vi.advanceTimersByTime(0);
      expect(stored()).toEqual([3, 0]);
      // that commit was busy: what comes in its window waits for the window's end
      vi.advanceTimersByTime(10);
      w.request({ lookup: "broadband", status: 200, at: "2026-01-01T00:00:01.000Z", period: "2026-01-01", runId, leaseId: null });
      w.write(ok("DD11DD", [2]));
      vi.advanceTimersByTime(89);
      expect(stored()).toEqual([3, 0]);
      vi.advanceTimersByTime(1);
      expect(stored()).toEqual([4, 1]);
      // a full group does not wait for the window
      for (const p of ["EE11EE", "FF11FF", "GG11GG", "HH11HH", "JJ11JJ"]) w.write(ok(p, [3]));
      vi.advanceTimersByTime(0);
      expect(stored()).toEqual([9, 1]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("writes a request's ledger row in the same transaction as the answers of its turn", async () => {
    const runId = newRun();
    const w = answerWriter(t.db, { providers: DEFAULT_PROVIDERS });
    const sent = (at: string) => ({ lookup: "broadband" as const, status: 200, at, period: "2026-01-01", runId, leaseId: null });
    const rows = () => [t.db.prepare("SELECT COUNT(*) FROM lookups").pluck().get(), ledgerUsed(t.db, "broadband", "2026-01-01")];
    w.request(sent("2026-01-01T00:00:01.000Z"));
    w.write(ok("AA11AA", [1]));
    w.request(sent("2026-01-01T00:00:02.000Z"));
    w.write(ok("BB11BB", [2]));
    expect(rows()).toEqual([0, 0]);
    expect(t.db.inTransaction).toBe(false);
    await new Promise((r) => setImmediate(r));
    expect(rows()).toEqual([2, 2]);
    // a group that fails leaves neither its answers nor its ledger rows
    t.db.exec("CREATE TEMP TRIGGER full BEFORE INSERT ON request_ledger WHEN NEW.sent_at > '2026-01-01T00:00:03' BEGIN SELECT RAISE(ABORT, 'disk full'); END");
    w.request(sent("2026-01-01T00:00:03.000Z"));
    w.request(sent("2026-01-01T00:00:04.000Z"));
    expect(() => w.flush()).toThrow("disk full");
    expect(rows()).toEqual([2, 2]);
  });

  it("reports a deferred commit that fails, and refuses more writes", async () => {
    const errors: Error[] = [];
    const w = answerWriter(t.db, { providers: DEFAULT_PROVIDERS, onError: (e) => errors.push(e) });
    t.db.exec("CREATE TEMP TRIGGER full BEFORE INSERT ON broadband_addresses BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END");
    w.write(ok("AA11AA", [1]));
    await new Promise((r) => setImmediate(r));
    expect(errors.map((e) => e.message)).toEqual(["database or disk is full"]);
    expect(() => w.flush()).toThrow(/disk is full/);
    expect(() => w.write(ok("BB11BB", [2]))).toThrow(/disk is full/);
    expect(t.db.prepare("SELECT COUNT(*) FROM lookups").pluck().get()).toBe(0);
  });

  it("adds rating columns for a new provider, and takes a provider in other letter case for the same columns", () => {
    ensureProviderColumns(t.db, ["provA", "EE"]);
    const columns = t.db.prepare("SELECT name FROM pragma_table_info('mobile_addresses')").pluck().all();
    expect(columns).toContain("EEVoiceOutdoor");
    expect(columns).not.toContain("provAVoiceOutdoor");
    expect(columns).toHaveLength(3 + 40);
  });

  it("an ok record carries its answer (checked by the compiler: tsc fails when this line type-checks)", () => {
    const { answer: _answer, ...base } = ok("AB11AA", [1]);
    // @ts-expect-error an ok record without its answer is not a FinalRecord
    const noAnswer: FinalRecord = { ...base, status: "ok" };
    expect(noAnswer.status).toBe("ok");
  });

  it("with --order input, plans what is missing or failed in input order, then what is stale; --refresh plans everything", async () => {
    const runId = newRun();
    const rows = rowWriter(t.db, runId);
    const input = ["CC11CC", "AA11AA", "BB11BB", "AA11AA", "DD11DD"];
    input.forEach((p, i) => rows.add({ line: i + 2, value: p, postcode: p, reason: null, cells: [p] }));
    rows.add({ line: 9, value: "junk", postcode: null, reason: "not a valid UK postcode", cells: ["junk"] });
    rows.flush();
    const w = answerWriter(t.db, { providers: DEFAULT_PROVIDERS });
    w.write(ok("AA11AA", [1], "2026-03-01T00:00:00.000Z")); // fresh
    w.write(ok("BB11BB", [2], "2025-01-01T00:00:00.000Z")); // stale
    w.write(failed("DD11DD", "2026-03-01T00:00:00.000Z"));
    w.flush();
    const plan = await planFetches(t.store, { probe: 0, runId, lookups: ["broadband", "mobile"], freshSince: "2026-02-01T00:00:00.000Z", refresh: false, providers: DEFAULT_PROVIDERS, simulated: false, order: "input" });
    expect(plan.postcodes).toBe(4);
    expect(plan.toFetch.get("broadband")).toEqual(["CC11CC", "DD11DD", "BB11BB"]);
    expect(plan.toFetch.get("mobile")).toEqual(["CC11CC", "AA11AA", "BB11BB", "DD11DD"]);
    expect(plan.reused.get("broadband")).toBe(1);
    const all = await planFetches(t.store, { probe: 0, runId, lookups: ["broadband"], freshSince: "2026-02-01T00:00:00.000Z", refresh: true, providers: DEFAULT_PROVIDERS, simulated: false });
    expect(all.toFetch.get("broadband")).toHaveLength(4);
    expect(finalCounts(t.db, runId, ["broadband", "mobile"])).toEqual({ ok: 2, notFound: 0, failed: 1, pending: 5 });
  });

  it("refetches a fresh mobile answer stored for another provider list, and nothing else", async () => {
    const runId = newRun();
    const rows = rowWriter(t.db, runId);
    ["AA11AA", "BB11BB"].forEach((p, i) => rows.add({ line: i + 2, value: p, postcode: p, reason: null, cells: [p] }));
    rows.flush();
    const at = "2026-03-01T00:00:00.000Z";
    const mobile = (postcode: string, providers: readonly string[]): FinalRecord => ({
      ...ok(postcode, [], at),
      lookup: "mobile",
      answer: { lookup: "mobile", dataset: null, addresses: [{ uprn: 7, address: "7", ratings: mobileFields(providers).map(() => 3) }] },
    });
    const two = answerWriter(t.db, { providers: ["ProvA", "ProvB"] });
    two.write(mobile("AA11AA", ["ProvA", "ProvB"]));
    two.flush();
    const four = answerWriter(t.db, { providers: DEFAULT_PROVIDERS });
    four.write(mobile("BB11BB", DEFAULT_PROVIDERS));
    four.flush();
    const plan = async (providers: readonly string[]) =>
      (await planFetches(t.store, { probe: 0, runId, lookups: ["mobile"], freshSince: "2026-02-01T00:00:00.000Z", refresh: false, providers, simulated: false }))
        .toFetch.get("mobile");
    expect(await plan(DEFAULT_PROVIDERS)).toEqual(["AA11AA"]);
    // fewer providers, or the same in another order: the stored ratings cover them
    expect(await plan(["ProvB", "ProvA"])).toEqual([]);
    expect(await plan(["ProvD"])).toEqual(["AA11AA"]);
    expect(await plan(["ProvA", "ProvE"])).toEqual(["AA11AA", "BB11BB"]);
  });

  it("never lets a real run reuse a simulated answer, nor a simulated run a real one", async () => {
    const runId = newRun();
    const rows = rowWriter(t.db, runId);
    ["AA11AA", "BB11BB", "CC11CC"].forEach((p, i) => rows.add({ line: i + 2, value: p, postcode: p, reason: null, cells: [p] }));
    rows.flush();
    const at = "2026-03-01T00:00:00.000Z";
    const sim = answerWriter(t.db, { providers: DEFAULT_PROVIDERS, simulated: true });
    sim.write(ok("AA11AA", [1], at));
    sim.write(ok("CC11CC", [3], at));
    sim.flush();
    const real = answerWriter(t.db, { providers: DEFAULT_PROVIDERS });
    real.write(ok("BB11BB", [2], at));
    // a real failure keeps the simulated addresses, and so their flag
    real.write(failed("AA11AA", at));
    real.flush();
    expect(t.db.prepare("SELECT postcode, simulated FROM lookups ORDER BY postcode").all()).toEqual([
      { postcode: "AA11AA", simulated: 1 },
      { postcode: "BB11BB", simulated: 0 },
      { postcode: "CC11CC", simulated: 1 },
    ]);
    const plan = async (simulated: boolean) =>
      (await planFetches(t.store, { probe: 0, runId, lookups: ["broadband"], freshSince: "2026-02-01T00:00:00.000Z", refresh: false, providers: DEFAULT_PROVIDERS, simulated }))
        .toFetch.get("broadband");
    expect(await plan(false)).toEqual(["AA11AA", "CC11CC"]);
    expect(await plan(true)).toEqual(["AA11AA", "BB11BB"]);
  });

  it("locks: a live holder is refused, a dead holder's lock is taken over", () => {
    // another process on this host (a made-up pid), within its lease's time
    const here = "this-host";
    takeLease(t.db, { host: here, pid: 999999, process: null }, 0, 60_000, here, () => true);
    expect(() => takeLease(t.db, { host: here, pid: process.pid, process: null }, 1, 60_000, here, () => true)).toThrow(LockedError);
    expect(() => takeLease(t.db, { host: here, pid: process.pid, process: null }, 1, 60_000, here, () => true)).toThrow(/another batch \(pid 999999/);
    const taken = takeLease(t.db, { host: here, pid: process.pid, process: null }, 2, 60_000, here, () => false);
    expect(taken.previous).toEqual({ pid: 999999, host: here, runId: null, why: "gone" });
    releaseLease(t.db, taken.lease.id);
    expect(t.db.prepare("SELECT COUNT(*) FROM leases").pluck().get()).toBe(0);
  });

  it("knows a lock holder is gone when its pid is dead, a zombie, or now another process", async () => {
    expect(processAlive(process.pid, processIdentity(process.pid))).toBe(true);
    expect(processAlive(process.pid, "another-boot:123")).toBe(process.platform !== "linux");
    // The shell's background child exits at once, and `sleep` (exec'd in its place) never reaps it.
    const parent = spawn("sh", ["-c", "true & echo $!; exec sleep 5"], { stdio: ["ignore", "pipe", "ignore"] });
    try {
      const zombie = Number(await new Promise<string>((resolve) => parent.stdout.once("data", (d: Buffer) => resolve(d.toString()))));
      let alive = true;
      for (let i = 0; i < 100 && alive; i++) {
        await new Promise((r) => setTimeout(r, 10));
        alive = processAlive(zombie);
      }
      expect(alive).toBe(false);
    } finally {
      parent.kill("SIGKILL");
    }
    expect(processAlive(2 ** 22 + 12345)).toBe(false);
  });

  it("marks runs left running by a killed process as abandoned", () => {
    const a = newRun();
    const b = newRun();
    finishRun(t.db, b, { endedAt: "t", state: "completed", exitCode: 0, message: null, counts: { ...zeroOutcomes(), inputRows: 0, postcodes: 0, rejects: 0, requests: 0, retries: 0, throttled: 0 } });
    const stale = t.db.prepare("SELECT id FROM runs WHERE state = 'running'").pluck().all();
    // neither run has a live lease
    expect(abandonOrphans(t.db, "later", new Set())).toBe(stale.length);
    expect(t.db.prepare("SELECT state FROM runs WHERE id = ?").pluck().get(a)).toBe("abandoned");
    expect(t.db.prepare("SELECT state FROM runs WHERE id = ?").pluck().get(b)).toBe("completed");
    expect(t.db.prepare("SELECT COUNT(*) FROM runs WHERE state = 'running'").pluck().get()).toBe(0);
  });
});
