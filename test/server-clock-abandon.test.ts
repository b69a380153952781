// After the PostgreSQL server stops, a run it left 'running' is judged on the server's clock, never
// on a machine's own: `status` shows it abandoned (and no live lease) on a machine whose clock says
// its lease still holds, and the next batch records it abandoned, stamped with the server's time.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, describe, expect, test } from "vitest";
import { systemClock } from "../src/fetch/clock.js";
import { generatePostcodes } from "../src/simulator/index.js";
import { openStore } from "../src/store/open-store.js";
import type { Store } from "../src/store/store.js";
import { shiftedClock } from "../src/pipeline/team-clock.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { spawnCli } from "./helpers/child-cli.js";
import { instantSleepClock } from "./helpers/fake-clock.js";
import { freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";

const { skip } = requiresPostgres();
const MINUTE = 60_000;
/** The machine's clock is this far behind the server's: to it, the lease below still holds. */
const BEHIND = -9.5 * MINUTE;
const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

/** A run left running under a lease of another machine that expired 9 minutes ago on the server's clock. */
async function leftRunning(): Promise<{ url: string; store: Store; runId: number }> {
  const url = await freshPostgresDatabase({ schema: true });
  const store = await openStore(url);
  stores.push(store);
  const server = (await store.leases.serverNow())!;
  const { lease } = await store.leases.take({ host: "machine-gone", pid: 4242, process: null }, server - 10 * MINUTE, MINUTE);
  const runId = await store.runs.create({
    startedAt: new Date(server - 10 * MINUTE).toISOString(),
    simulated: true,
    inputName: "in.csv",
    args: {},
    lookups: ["broadband"],
    providers: [],
    leaseId: lease.id,
  });
  return { url, store, runId };
}

describe.skipIf(skip)("PostgreSQL: a run left running is judged on the server's clock", () => {
  test("status on a machine whose clock is behind shows it abandoned, with no live lease", async () => {
    const { url, store, runId } = await leftRunning();
    const judged = await store.status.database(5, (await store.leases.serverNow())!);
    expect(judged.runs.find((run) => run.id === runId)).toMatchObject({ state: "abandoned" });
    const r = await spawnCli("status", ["--db", url, "--json", "--clock-offset-ms", String(BEHIND)]).done;
    expect(r.code, r.stderr).toBe(0);
    const status = JSON.parse(r.stdout) as { runs: { id: number; state: string }[]; leases: unknown[] };
    expect(status.runs.find((run) => run.id === runId)).toMatchObject({ state: "abandoned" });
    expect(status.leases).toEqual([]);
  }, 60_000);

  test("the next batch, on a machine whose clock is behind, records it abandoned at the server's time", async () => {
    const { url, store, runId } = await leftRunning();
    const dir = tempDir("pcc-server-clock-");
    const input = writeCsv(dir, "in.csv", ["postcode", ...generatePostcodes(9, 3)]);
    const r = await runIn(dir, { in: input, db: url, simulate: true, reports: false }, {}, { clock: shiftedClock(systemClock, BEHIND) });
    expect(r.exitCode, r.logs.join("\n")).toBe(0);
    const run = (await store.status.database(5, (await store.leases.serverNow())!)).runs.find((x) => x.id === runId)!;
    expect(run.state).toBe("abandoned");
    expect(Math.abs(Date.parse(run.ended_at!) - (await store.leases.serverNow())!)).toBeLessThan(MINUTE);
  }, 60_000);
});

describe.skipIf(skip)("PostgreSQL: report on a machine whose clock is off", () => {
  test("warns as the batch does, and judges what has expired by the server's time", async () => {
    const url = await freshPostgresDatabase({ schema: true });
    const dir = tempDir("pcc-server-clock-");
    const input = writeCsv(dir, "in.csv", ["postcode", ...generatePostcodes(9, 4)]);
    // the report runs as a child, on the wall clock: so does the batch
    const r = await runIn(dir, { in: input, db: url, simulate: true, reports: false }, {}, { clock: instantSleepClock });
    expect(r.exitCode, r.logs.join("\n")).toBe(0);
    const out = join(dir, "out");
    // 40 days fast: by its own clock, every answer is past the 30-day retention
    const report = await spawnCli("report", ["--db", url, "--out", out, "--clock-offset-ms", String(40 * 24 * 60 * MINUTE)]).done;
    expect(report.code, report.stderr).toBe(0);
    // on main: no warning, and every answer reported expired
    expect(report.stderr).toMatch(/^warning: this machine's clock is 3456000\.\d s ahead of the database server's \(postgres:\/\/[^)]*\); the report reads what has expired by the server's time, but set this machine's clock right \(NTP\)$/m);
    const rows = parse(readFileSync(join(out, "summary.csv")), { columns: true, bom: true }) as Record<string, string>[];
    expect(rows.filter((row) => row.Figure === "Postcodes whose answer expired, awaiting refresh").map((row) => row.Count)).toEqual(["0", "0"]);
    expect(rows.filter((row) => row.Figure === "Postcodes found").map((row) => Number(row.Count)).every((n) => n > 0)).toBe(true);
  }, 60_000);
});

