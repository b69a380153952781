// A batch alive and working keeps its lease through stages longer than the lease: an open-data
// import (its one transaction holds SQLite's write lock for the whole import) and a plan (SQLite's
// work runs on the event loop's one thread, so the keeper's timer cannot fire meanwhile). Time is
// the test's clock, moved on by hooks in the store (each row, each plan step "takes" seconds); the
// databases are real files. A machine paused past its lease still loses it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, test } from "vitest";
import { buildConfig } from "../src/cli/batch-config.js";
import { createLogger } from "../src/log/logger.js";
import { importOpenData } from "../src/pipeline/open-data-stage.js";
import { openRun } from "../src/pipeline/open-stage.js";
import { planStage } from "../src/pipeline/plan-stage.js";
import { RunSoFar, startRun } from "../src/pipeline/run-record.js";
import type { OpenedRun } from "../src/pipeline/run.js";
import { generatePostcodes, simulatedOpenDataArchive } from "../src/simulator/index.js";
import { keepLease, type Every } from "../src/store/lease-keeper.js";
import { openStore } from "../src/store/open-store.js";
import type { OpenDataWriter, Store } from "../src/store/store.js";
import { FakeClock } from "./helpers/fake-clock.js";
import { freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";

const TTL = 60_000;
const dirs: string[] = [];
const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "pcc-lease-long-"));
  dirs.push(dir);
  return dir;
}

async function opened(db: string): Promise<Store> {
  const store = await openStore(db);
  stores.push(store);
  return store;
}

const quietLog = () => createLogger({ format: "json", quiet: true, write: () => {} });

/**
 * A timer as a real one behaves, on the test's clock: it fires on a turn of the event loop once its
 * period has passed, never in the middle of work that holds the thread.
 */
function turnTimer(clock: FakeClock): Every {
  return (ms, tick) => {
    let next = clock.now() + ms;
    let stopped = false;
    const poll = () => {
      if (stopped) return;
      if (clock.now() >= next) {
        next = clock.now() + ms;
        tick();
      }
      setImmediate(poll);
    };
    setImmediate(poll);
    return () => void (stopped = true);
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** The store, its open-data import taking `msPerRow` of the clock for each row (and `onRow` told). */
function slowImport(store: Store, clock: FakeClock, msPerRow: number, onRow: () => void = () => {}): Store {
  const openData: Store["openData"] = {
    ...store.openData,
    startImport: async (): Promise<OpenDataWriter> => {
      const writer = await store.openData.startImport();
      return {
        ...writer,
        row: (premises, postcode, values) => {
          clock.t += msPerRow;
          writer.row(premises, postcode, values);
          onRow();
        },
      };
    },
  };
  return new Proxy(store, { get: (target, key) => (key === "openData" ? openData : Reflect.get(target, key)) });
}

/** An archive of Ofcom's layout for 40 postcodes: some 80 small files, read over many turns of the event loop. */
function archive(dir: string): string {
  const { name, bytes } = simulatedOpenDataArchive(7, generatePostcodes(7, 40));
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

describe("SQLite: an open-data import longer than the lease", () => {
  async function importing(o: { stopAfterRows?: number }) {
    const dir = tempDir();
    const db = join(dir, "coverage.sqlite");
    const store = await opened(db);
    const clock = new FakeClock();
    const { lease } = await store.leases.take({ host: "machine-a", pid: 1, process: null }, clock.now(), TTL);
    const errors: string[] = [];
    let lost = 0;
    const stop = new AbortController();
    const keeper = keepLease(store, lease.id, {
      ttlMs: TTL,
      now: () => clock.now(),
      every: turnTimer(clock),
      onLost: () => lost++,
      // a renewal that fails stops the import at once: no waiting out every busy timeout
      onError: (err) => {
        errors.push((err as Error).message);
        stop.abort();
      },
    });
    const started = clock.now();
    let rows = 0;
    const slow = slowImport(store, clock, 3_000, () => {
      if (++rows === o.stopAfterRows) stop.abort();
    });
    const result = await importOpenData(slow, archive(dir), { runId: null, now: () => new Date(clock.now()).toISOString() }, quietLog(), stop.signal);
    await turn();
    return { db, store, clock, lease, keeper, errors, lost: () => lost, result, took: clock.now() - started };
  }

  it("keeps the lease: its renewals join the import's transaction and land with it; paused past it afterwards, it is lost", async () => {
    const { db, store, clock, lease, keeper, errors, lost, result, took } = await importing({});
    expect(errors).toEqual([]);
    expect(result).toEqual({ ok: true });
    expect(took).toBeGreaterThan(3 * TTL);
    expect(lost()).toBe(0);
    // another connection (another batch) finds the lease live now, and the release imported
    const other = await opened(db);
    expect((await other.leases.live(clock.now())).map((l) => l.id)).toEqual([lease.id]);
    expect(await other.openData.current()).toMatchObject({ month: "2026-01" });

    // the machine paused past its lease: its first renewal after is refused
    clock.t += 2 * TTL;
    for (let i = 0; i < 50 && lost() === 0; i++) await turn();
    expect(lost()).toBe(1);
    expect(await store.leases.live(clock.now())).toEqual([]);
    keeper.stop();
  }, 30_000);

  it("keeps the lease when the import is stopped and rolled back: the renewals made inside it are made again", async () => {
    const { db, clock, lease, keeper, errors, lost, result, took } = await importing({ stopAfterRows: 40 });
    expect(errors).toEqual([]);
    expect(result).toEqual({ ok: true });
    expect(took).toBeGreaterThan(TTL);
    expect(lost()).toBe(0);
    const other = await opened(db);
    expect((await other.leases.live(clock.now())).map((l) => l.id)).toEqual([lease.id]);
    // nothing of the stopped import is kept
    expect(await other.openData.current()).toBeNull();
    keeper.stop();
  }, 30_000);
});

/** The lease is never renewed by its timer: while the plan works, the timer cannot fire. */
const noTimer: Every = () => () => {};

/** The store, each of its plan's steps (a lookup's candidates, its needs) taking `ms` of the clock. */
function slowPlan(store: Store, clock: FakeClock, ms: number): Store {
  const plan: Store["plan"] = {
    ...store.plan,
    candidates: (c) => {
      clock.t += ms;
      return store.plan.candidates(c);
    },
    recordNeeds: (runId, lookup, needs) => {
      clock.t += ms;
      return store.plan.recordNeeds(runId, lookup, needs);
    },
  };
  return new Proxy(store, { get: (target, key) => (key === "plan" ? plan : Reflect.get(target, key)) });
}

const { skip: noPostgres } = requiresPostgres();
const ENGINES = [
  { engine: "SQLite", skip: false, database: (dir: string) => Promise.resolve(join(dir, "coverage.sqlite")) },
  { engine: "PostgreSQL", skip: noPostgres, database: () => freshPostgresDatabase({ schema: true }) },
];

describe.each(ENGINES)("$engine: a plan longer than the lease", ({ skip, database }) => {
  test.skipIf(skip)("keeps the lease: the plan renews it between its steps", async () => {
    const dir = tempDir();
    const input = join(dir, "list.csv");
    writeFileSync(input, ["postcode", ...generatePostcodes(44, 20)].join("\n") + "\n");
    const config = buildConfig({ in: input, db: await database(dir), out: join(dir, "out"), simulate: true, lookups: "broadband,mobile", logFormat: "json", progress: false }, {});
    const clock = new FakeClock();
    const opening = await openRun(config, { logger: quietLog(), clock, leaseTimer: noTimer, leaseTtlMs: TTL });
    if (!("run" in opening)) throw new Error(`the run did not open: exit ${opening.exitCode}`);
    const { run, resources } = opening;
    try {
      const runId = await startRun(run, config, new RunSoFar());
      const slow: OpenedRun = { ...run, store: slowPlan(run.store, clock, 25_000) };
      const started = clock.now();
      await planStage(slow, config, runId, { inputRows: 0, rejects: 0 });
      expect(clock.now() - started).toBeGreaterThan(1.5 * TTL);
      expect(run.fence.knownLost).toBe(false);
      // the database holds it: a renewal now is accepted
      expect(await run.store.leases.renew(run.lease.id, clock.now(), TTL)).toBe(true);
    } finally {
      await resources.closeAll(() => {});
    }
  }, 30_000);
});
