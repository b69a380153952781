// The batch on PostgreSQL, end to end against the simulator over loopback (the reports' equality
// with SQLite is report-engines.test.ts's): the same answers as on SQLite, a second night with nothing
// to fetch, and two batches at once on one database sharing --monthly-quota without passing it.
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { quotaPeriod } from "../src/plan/quota-plan.js";
import { generatePostcodes, startSimulator } from "../src/simulator/index.js";
import { openStore } from "../src/store/open-store.js";
import type { Store } from "../src/store/store.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { instantSleepClock } from "./helpers/fake-clock.js";
import { spawnCli } from "./helpers/child-cli.js";
import { freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";

const { skip } = requiresPostgres();
const KEY = "team-key-5f1d-Qa8";
const POSTCODES = ["SW1A 2AA", "EC1A 1BB", "W1A 0AX", "M1 1AE", "B33 8TH", "CR2 6XH", "DN55 1PT", "LS1 4AP", "G1 1XQ", "CF10 1EP"];

describe.skipIf(skip)("the batch on PostgreSQL", () => {
  const opened: Store[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });
  const open = async (db: string) => {
    const store = await openStore(db, { readonly: true });
    opened.push(store);
    return store;
  };
  /** What the store holds, without times: per lookup and status, postcodes and addresses. */
  const holdings = async (store: Store, now: number) => {
    const s = await store.status.database(10, now);
    return { lookups: s.lookups.map((l) => [l.lookup, l.status, l.postcodes]), addresses: s.addresses, postcodes: s.postcodes, datasets: s.datasets };
  };

  test("stores what SQLite stores, and a second run has nothing to fetch", async () => {
    const dir = tempDir();
    const input = writeCsv(dir, "in.csv", ["postcode", ...POSTCODES, "not a postcode"]);
    const url = await freshPostgresDatabase({ schema: true });
    const onPostgres = await runIn(dir, { in: input, simulate: true, db: url, reports: false }, {});
    const onSqlite = await runIn(dir, { in: input, simulate: true, db: join(dir, "c.sqlite"), reports: false }, {});
    expect(onPostgres.exitCode).toBe(0);
    expect(onPostgres.counts).toEqual(onSqlite.counts);
    expect(onPostgres.counts).toMatchObject({ inputRows: 11, postcodes: 10, rejects: 1, pending: 0 });
    expect(await holdings(await open(url), onPostgres.clock.now())).toEqual(await holdings(await open(join(dir, "c.sqlite")), onSqlite.clock.now()));
    const again = await runIn(dir, { in: input, simulate: true, db: url, reports: false }, {});
    expect(again.exitCode).toBe(0);
    expect(again.counts?.requests).toBe(0);
    expect((await (await open(url)).status.database(10, again.clock.now())).runs.map((r) => [r.id, r.state, r.requests])).toEqual([
      [2, "completed", 0],
      [1, "completed", 20],
    ]);
  });

  test("the CLIs take a URL: status shows the runs; report writes the set; a password in argv is refused", async () => {
    const dir = tempDir();
    const input = writeCsv(dir, "in.csv", ["postcode", ...POSTCODES.slice(0, 3)]);
    const url = await freshPostgresDatabase({ schema: true });
    // status and report run as children, on the wall clock: so does the batch
    expect((await runIn(dir, { in: input, simulate: true, db: url, reports: false }, {}, { clock: instantSleepClock })).exitCode).toBe(0);
    const status = await spawnCli("status", ["--db", url]).done;
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`database ${url} (schema up to date)`);
    expect(status.stdout).toMatch(/#1 .* completed, exit 0/);
    const report = await spawnCli("report", ["--db", url, "--out", join(dir, "out")]).done;
    expect(report.stderr).toBe("");
    expect(report.code).toBe(0);
    expect(report.stdout).toContain(`reports written to ${join(dir, "out")}: `);
    expect(report.stdout).toContain("broadband: ");
    const withPassword = url.replace("postgres://postgres@", "postgres://postgres:s3cret@");
    const refused = await spawnCli("status", ["--db", withPassword]).done;
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("a password in the URL is refused");
    expect(refused.stderr).not.toContain("s3cret");
  });

  test("two batches at once on one database share --monthly-quota: together they never pass it, and the simulator saw no more", async () => {
    const dir = tempDir();
    const list = generatePostcodes(29, 60);
    const a = writeCsv(dir, "a.csv", ["postcode", ...list.slice(0, 40)]);
    const b = writeCsv(dir, "b.csv", ["postcode", ...list.slice(20)]);
    const url = await freshPostgresDatabase({ schema: true });
    const sim = await startSimulator({ port: 0, seed: 29, key: KEY });
    try {
      const flags = { baseUrl: sim.url, db: url, reports: false, monthlyQuota: "25", lookups: "broadband" };
      const [ra, rb] = await Promise.all([
        runIn(dir, { ...flags, in: a, out: join(dir, "a") }, { COVERAGE_API_KEY: KEY }),
        runIn(dir, { ...flags, in: b, out: join(dir, "b") }, { COVERAGE_API_KEY: KEY }),
      ]);
      const sent = (ra.counts?.requests ?? 0) + (rb.counts?.requests ?? 0);
      expect(sent).toBe(25);
      expect(sim.counters.requests.broadband).toBe(25);
      const store = await open(url);
      const now = ra.clock.now();
      expect((await store.ledger.figures(quotaPeriod(now).key, now)).used.broadband).toBe(25);
      // neither finished its list: both stopped for the quota, each with its own run
      expect([ra.exitCode, rb.exitCode]).toEqual([3, 3]);
      expect(new Set([ra.runId, rb.runId]).size).toBe(2);
    } finally {
      await sim.close();
    }
  });
});
