// The PostgreSQL report snapshot's own edges on a real server (the report set itself is held equal
// to SQLite's in report-engines.test.ts): one consistent read while other machines write, nothing
// written but its temporary tables, which go with it (also after a failure), row streams in
// batches through cursors; and `status` showing every machine's batches.
import pg from "pg";
import { afterEach, describe, expect, test } from "vitest";
import { SNAPSHOT_BATCH_ROWS } from "../src/store/snapshot.js";
import { openStore } from "../src/store/open-store.js";
import type { Store } from "../src/store/store.js";
import { formatStatus } from "../src/cli/status-text.js";
import { DatabaseError } from "../src/store/types.js";
import { freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";

const { skip } = requiresPostgres();
const AT = "2026-11-23T02:17:00.000Z";
const T0 = Date.parse(AT);

describe.skipIf(skip)("reports on a PostgreSQL store", () => {
  const opened: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });
  async function open(url: string, readonly = false): Promise<Store> {
    const store = await openStore(url, { readonly, isAlive: () => true });
    opened.push(store);
    return store;
  }

  /** A run of `postcodes` broadband answers with `perPostcode` addresses each, written through the store's writers. */
  async function fill(store: Store, postcodes: string[], perPostcode: number, at = AT): Promise<number> {
    const runId = await store.runs.create({ startedAt: at, simulated: false, inputName: "in.csv", args: {}, lookups: ["broadband"], providers: [] });
    await store.runs.setInput(runId, ["postcode"], "postcode");
    const rows = await store.inputRows.openWriter(runId);
    for (const [i, p] of postcodes.entries()) await rows.add({ line: i + 2, value: p, postcode: p, reason: null, cells: [p] });
    await rows.flush();
    const answers = await store.answers.openWriter({ providers: [] });
    for (const p of postcodes) {
      const addresses = Array.from({ length: perPostcode }, (_, i) => ({ uprn: 1000 + i, address: `${i} High St`, speeds: [40 + i, 10, 40, 10, -1, -1, 40, 10] }));
      answers.write({ postcode: p, lookup: "broadband", status: "ok", httpStatus: 200, attempts: 1, lastError: null, fetchedAt: at, runId, answer: { lookup: "broadband", dataset: null, addresses } });
    }
    await answers.flush();
    await store.runs.finish(runId, { state: "completed", exitCode: 0, endedAt: at, message: null, counts: { inputRows: postcodes.length, postcodes: postcodes.length, rejects: 0, ok: postcodes.length, notFound: 0, failed: 0, pending: 0, requests: 0, retries: 0, throttled: 0 } });
    return runId;
  }

  /** Temporary tables named report_* on the server, in any session. */
  async function reportTables(url: string): Promise<string[]> {
    const sql = new pg.Client({ connectionString: url });
    await sql.connect();
    try {
      return (await sql.query("SELECT relname FROM pg_class WHERE relpersistence = 't' AND relname LIKE 'report%' ORDER BY relname")).rows.map((r) => r.relname as string);
    } finally {
      await sql.end();
    }
  }

  test("a snapshot reads the store as it was when it began, while another machine writes a new run and answers", async () => {
    const url = await freshPostgresDatabase();
    const writer = await open(url);
    const first = await fill(writer, ["AB11AA", "AB11AB"], 3);
    const reader = await open(url, true);
    const seen = await reader.snapshot({ nowMs: Date.now() }, async (snapshot) => {
      await snapshot.preparePostcodes(3);
      const before = { run: snapshot.scope.runId, version: await snapshot.answersVersion() };
      // another machine, meanwhile: a second run with answers of its own
      const second = await fill(writer, ["AB11AC"], 2, "2026-11-24T02:17:00.000Z");
      const totals = await snapshot.postcodeTotals(["Superfast"]);
      return { before, second, exists: await snapshot.runExists(second), version: await snapshot.answersVersion(), totals };
    });
    expect(seen.before.run).toBe(first);
    expect(seen.second).toBe(first + 1);
    expect(seen.exists).toBe(false);
    expect(seen.version).toBe(seen.before.version);
    expect(seen.totals).toMatchObject({ postcodes: 2, sums: { Superfast: 6 } });
    // a new snapshot sees the second run, the last one
    expect(await reader.snapshot({ nowMs: Date.now() }, async (s) => s.scope.runId)).toBe(first + 1);
  });

  test("the snapshot's temporary tables end with it, also when the work fails, and its connection serves the next one", async () => {
    const url = await freshPostgresDatabase();
    const writer = await open(url);
    await fill(writer, ["AB11AA"], 2);
    const reader = await open(url, true);
    // (tables created in an uncommitted transaction are invisible to other sessions: they are looked for after each snapshot)
    expect(await reader.snapshot({ nowMs: Date.now() }, async (snapshot) => (await snapshot.preparePostcodes(3), snapshot.countLocated(false)))).toBe(1);
    expect(await reportTables(url)).toEqual([]);
    await expect(
      reader.snapshot({ nowMs: Date.now() }, async (snapshot) => {
        await snapshot.preparePostcodes(null);
        throw new Error("the disk is full");
      }),
    ).rejects.toThrow("the disk is full");
    expect(await reportTables(url)).toEqual([]);
    // and the store's connections still serve the next snapshot
    expect(await reader.snapshot({ nowMs: Date.now() }, async (s) => s.scope.kind)).toBe("run");
    await expect(reader.snapshot({ runId: 9, nowMs: Date.now() }, async () => 1)).rejects.toThrow(/there is no run 9 in the database \(runs 1 to 1 are stored\)/);
  });

  test("a connection the server ends mid-snapshot is one line naming the database, and the next snapshot takes a new one", async () => {
    const url = await freshPostgresDatabase();
    await fill(await open(url), ["AB11AA"], 2);
    const reader = await open(url, true);
    const failed = reader.snapshot({ nowMs: Date.now() }, async (snapshot) => {
      await snapshot.preparePostcodes(null);
      // an administrator (or a restart) ends every session of this database in a transaction (only this test's)
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'");
      await admin.end();
      return snapshot.countLocated(false);
    });
    await expect(failed).rejects.toThrow(DatabaseError);
    // pg says either what the server sent or that the connection is gone, as one line after the URL
    await expect(failed).rejects.toThrow(/^database postgres:\/\/postgres@\/t_\S+: (terminating connection due to administrator command|Client has encountered a connection error|Connection terminated)[^\n]*$/);
    // and says who ended it, so that a report failure tells the cause, not only pg's words
    await expect(failed).rejects.toThrow(/; the server ended the connection \(restarted, shut down, or an administrator ended the session\)/);
    expect(await reader.snapshot({ nowMs: Date.now() }, async (snapshot) => (await snapshot.preparePostcodes(null), snapshot.countLocated(false)))).toBe(1);
  });

  test("row streams come in batches of at most SNAPSHOT_BATCH_ROWS through a cursor, in postcode then UPRN order; one broken off leaves the others working", async () => {
    const url = await freshPostgresDatabase();
    const store = await open(url);
    const postcodes = Array.from({ length: 25 }, (_, i) => `AB${i + 10}1AA`);
    await fill(store, postcodes, 100);
    const result = await store.snapshot({ nowMs: Date.now() }, async (snapshot) => {
      await snapshot.preparePostcodes(null);
      const sizes: number[] = [];
      const keys: string[] = [];
      for await (const batch of snapshot.broadbandAddresses()) {
        sizes.push(batch.length);
        for (const row of batch) keys.push(`${row[0]}|${String(row[1]).padStart(6, "0")}`);
      }
      // break off one stream after its first batch, then read another to the end
      for await (const batch of snapshot.exportRows("broadband", [])) {
        expect(batch.length).toBe(SNAPSHOT_BATCH_ROWS);
        break;
      }
      let exported = 0;
      for await (const batch of snapshot.exportRows("broadband", [])) exported += batch.length;
      return { sizes, keys, exported };
    });
    const full = Math.floor(2500 / SNAPSHOT_BATCH_ROWS);
    expect(result.sizes).toEqual([...Array<number>(full).fill(SNAPSHOT_BATCH_ROWS), 2500 - full * SNAPSHOT_BATCH_ROWS].filter((n) => n > 0));
    expect(result.keys).toEqual([...result.keys].sort());
    expect(result.keys[0]).toBe("AB10 1AA|001000");
    expect(result.exported).toBe(2500);
  });

  test("status shows every machine's running batch with its lease, from any machine", async () => {
    const url = await freshPostgresDatabase();
    const machines = [await open(url), await open(url)];
    const runs: number[] = [];
    for (const [i, m] of machines.entries()) {
      const { lease } = await m.leases.take({ host: `machine-${i}`, pid: 4100 + i, process: null }, T0, 60_000);
      runs.push(await m.runs.create({ startedAt: AT, simulated: false, inputName: `list-${i}.csv`, args: {}, lookups: ["broadband"], providers: [], leaseId: lease.id }));
    }
    const status = await (await open(url, true)).status.database(5, T0 + 1000);
    expect(status.runs.map((r) => [r.id, r.state])).toEqual([
      [runs[1], "running"],
      [runs[0], "running"],
    ]);
    expect(status.leases.map((l) => [l.holder.host, l.holder.pid, l.runId])).toEqual([
      ["machine-0", 4100, runs[0]],
      ["machine-1", 4101, runs[1]],
    ]);
    const text = formatStatus(status, url);
    expect(text).toContain("2 batches running (live leases):");
    expect(text).toContain(`  pid 4100 on machine-0, run ${runs[0]}, since ${AT}, lease until 2026-11-23T02:18:00.000Z`);
    expect(text).toContain(`  pid 4101 on machine-1, run ${runs[1]}, since ${AT}`);
  });
});
