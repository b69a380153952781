// A run without its lease writes nothing, on both engines: a machine paused while it reads its input
// (another takes its lease over meanwhile) keeps none of the input and writes no report set, only
// its run's row saying so; a run that loses its lease while writing its reports keeps the previous
// set, the database refusing the renewal made just before the swap.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, test } from "vitest";
import { createLogger } from "../src/log/logger.js";
import { generatePostcodes } from "../src/simulator/index.js";
import { openStore } from "../src/store/open-store.js";
import type { Store } from "../src/store/store.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { instantSleepClock } from "./helpers/fake-clock.js";
import { freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";

const { skip: noPostgres } = requiresPostgres();
const TTL = 60_000;
/** The lease is never renewed by a timer: the test says when time passes. */
const noTimer = () => () => {};

const dirs: string[] = [];
const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const ENGINES = [
  { engine: "SQLite", skip: false, database: (dir: string) => Promise.resolve(join(dir, "coverage.sqlite")) },
  { engine: "PostgreSQL", skip: noPostgres, database: () => freshPostgresDatabase({ schema: true }) },
];

interface Line {
  event?: string;
  stopReason?: string;
  exitCode?: number;
  runId?: number;
  message: string;
}

function capture(onLine: (line: Line) => void = () => {}) {
  const lines: Line[] = [];
  const logger = createLogger({
    format: "json",
    quiet: false,
    verbose: true,
    write: (l) => {
      const line = JSON.parse(l) as Line;
      lines.push(line);
      onLine(line);
    },
  });
  return { lines, logger };
}

/** Real time that the test moves on at will (a machine paused), whole milliseconds as PostgreSQL stores them; used as is on both engines. */
class JumpingClock {
  readonly replayed = true;
  jumped = 0;
  now(): number {
    return Date.now() + this.jumped;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return instantSleepClock.sleep(ms, signal);
  }
}

async function until(what: string, condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function opened(db: string): Promise<Store> {
  const store = await openStore(db);
  stores.push(store);
  return store;
}

describe.each(ENGINES)("$engine: a run without its lease writes nothing", ({ skip, database }) => {
  test.skipIf(skip)("a machine paused while reading its input, its lease taken over, keeps no input rows and writes no reports", async () => {
    const dir = tempDir("pcc-lease-read-");
    dirs.push(dir);
    const db = await database(dir);
    const other = await opened(db);
    const clock = new JumpingClock();
    const stdin = new PassThrough();
    const list = generatePostcodes(41, 30);
    const { lines, logger } = capture();
    const out = join(dir, "out");
    const running = runIn(dir, { in: "-", db, simulate: true, out }, {}, { clock, stdin, logger, leaseTimer: noTimer, leaseTtlMs: TTL });
    stdin.write(["postcode", ...list.slice(0, 15)].join("\n") + "\n");
    await until("the run's row", async () => (await other.status.database(1, clock.now())).runs.length > 0);
    // paused past its lease: another machine takes it over, then the rest of the input arrives
    clock.jumped += 2 * TTL;
    const taken = await other.leases.take({ host: "machine-b", pid: 4242, process: null }, clock.now(), TTL);
    expect(taken.previous).not.toBeNull();
    stdin.end(list.slice(15).join("\n") + "\n");
    const result = await running;

    expect(result.exitCode, JSON.stringify(lines.slice(-5))).toBe(4);
    const summary = lines.find((l) => l.event === "summary")!;
    expect(summary).toMatchObject({ stopReason: "lease_lost", exitCode: 4 });
    expect(lines.filter((l) => l.event === "plan")).toEqual([]);
    const runId = result.runId!;
    expect(await other.inputRows.counts(runId)).toEqual({ input: 0, invalid: 0 });
    const run = (await other.status.database(5, clock.now())).runs.find((r) => r.id === runId);
    expect(run).toMatchObject({ state: "stopped", exit_code: 4, input_rows: 0 });
    expect(existsSync(join(out, "enriched.csv"))).toBe(false);
    await other.leases.release(taken.lease.id);
  }, 60_000);

  test.skipIf(skip)("a run whose lease lapses while it writes its reports keeps the previous set in place", async () => {
    const dir = tempDir("pcc-lease-report-");
    dirs.push(dir);
    const db = await database(dir);
    const out = join(dir, "out");
    const clock = new JumpingClock();
    const first = await runIn(dir, { in: writeCsv(dir, "first.csv", ["postcode", ...generatePostcodes(42, 5)]), db, simulate: true, out }, {}, { clock, leaseTimer: noTimer, leaseTtlMs: TTL });
    expect(first.exitCode, first.logs.slice(-3).join("\n")).toBe(0);
    const before = readFileSync(join(out, "enriched.csv"), "utf8");

    // the run's clock jumps past its lease as the report stage begins (a machine paused there)
    const { lines, logger } = capture((line) => {
      if (line.event === "reports-start") clock.jumped += 2 * TTL;
    });
    const second = await runIn(dir, { in: writeCsv(dir, "second.csv", ["postcode", ...generatePostcodes(43, 9)]), db, simulate: true, out }, {}, { clock, logger, leaseTimer: noTimer, leaseTtlMs: TTL });
    expect(lines.some((l) => l.event === "reports-start")).toBe(true);
    expect(second.exitCode, JSON.stringify(lines.slice(-5))).toBe(4);
    expect(lines.at(-1)).toMatchObject({ event: "summary", stopReason: "lease_lost", exitCode: 4 });
    expect(readFileSync(join(out, "enriched.csv"), "utf8")).toBe(before);
    const store = await opened(db);
    const run = (await store.status.database(5, clock.now())).runs.find((r) => r.id === second.runId);
    expect(run).toMatchObject({ exit_code: 4 });
  }, 60_000);
});
