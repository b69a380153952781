// The SQLite answer writer on its own thread (src/store/sqlite/writer-thread.ts), chosen when a
// writer expects many answers: it must store exactly what the writer on the batch's thread stores,
// commit by flush and close, and fail the same ways (a lost lease, a database error naming the file).
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_PROVIDERS, mobileFields, type Lookup } from "../src/contract/fields.js";
import type { FinalRecord } from "../src/contract/records.js";
import { openStore } from "../src/store/open-store.js";
import { WRITER_THREAD_FROM } from "../src/store/sqlite/sqlite-store.js";
import type { Store } from "../src/store/store.js";
import { DatabaseError, LeaseLostError } from "../src/store/types.js";
import { mobileRecord, okRecord } from "./helpers/records.js";
import { runIn, writeCsv } from "./helpers/batch-harness.js";
import { generatePostcodes } from "../src/simulator/postcode-gen.js";

const T0 = Date.parse("2026-03-01T00:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
const PERIOD = "2026-03-01";
const THREADED = { expected: WRITER_THREAD_FROM };

function mobile(postcode: string, dataset: string, ratings: number[][], at: string, runId: number): FinalRecord {
  return mobileRecord(postcode, dataset, ratings, at, runId);
}

/** Two nights of answers: new ones, the same again, a changed one, a not-found and a failure. */
function nights(runId: number): FinalRecord[][] {
  const fields = mobileFields(DEFAULT_PROVIDERS).length;
  const ratings = (v: number) => [Array.from({ length: fields }, () => v), Array.from({ length: fields }, () => (v + 1) % 5)];
  const first = Array.from({ length: 30 }, (_, i) => [okRecord(`AB${i}1XY`, [i, i + 1000], iso(T0), runId), mobile(`AB${i}1XY`, "2026-01", ratings(i % 5), iso(T0), runId)]).flat();
  const later = iso(T0 + 86_400_000);
  const second: FinalRecord[] = [
    okRecord("AB01XY", [0, 1000], later, runId),
    okRecord("AB11XY", [1, 7], later, runId),
    mobile("AB21XY", "2026-02", ratings(4), later, runId),
    { postcode: "AB31XY", lookup: "broadband", status: "not_found", httpStatus: 404, attempts: 1, lastError: null, fetchedAt: later, runId },
    { postcode: "AB41XY", lookup: "mobile", status: "failed", httpStatus: 500, attempts: 3, lastError: "HTTP 500", fetchedAt: later, runId },
  ];
  return [first, second];
}

describe("the SQLite answer writer on its own thread", () => {
  let dir: string;
  const opened: Store[] = [];
  const open = async (name: string) => {
    const store = await openStore(join(dir, name));
    opened.push(store);
    await store.answers.prepareProviders(DEFAULT_PROVIDERS);
    return store;
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pcc-writer-thread-"));
  });
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const newRun = (store: Store, leaseId: number | null = null) =>
    store.runs.create({ startedAt: iso(T0), simulated: false, inputName: "in.csv", args: { probe: 0 }, lookups: ["broadband", "mobile"], providers: [...DEFAULT_PROVIDERS], leaseId });

  /** Everything the store says about each pair the records name. */
  async function stored(store: Store, records: FinalRecord[]) {
    const pairs = [...new Set(records.map((r) => `${r.postcode}|${r.lookup}`))].sort();
    return Promise.all(
      pairs.map(async (pair) => {
        const [postcode, lookup] = pair.split("|") as [string, Lookup];
        return { pair, answer: await store.answers.get(postcode, lookup), versions: await store.answers.versions(postcode, lookup) };
      }),
    );
  }

  it("stores what the writer on the batch's thread stores, night after night, with the ledger's rows", async () => {
    const here = await open("here.sqlite");
    const threaded = await open("threaded.sqlite");
    for (const [store, options] of [[here, {}], [threaded, THREADED]] as const) {
      const run = await newRun(store);
      for (const night of nights(run)) {
        const w = await store.answers.openWriter({ providers: DEFAULT_PROVIDERS, ...options });
        for (const r of night) {
          w.write(r);
          w.request({ lookup: r.lookup, status: r.httpStatus, at: r.fetchedAt, period: PERIOD, runId: run, leaseId: null });
        }
        await w.flush();
      }
    }
    const all = nights(1).flat();
    const want = await stored(here, all);
    expect(want.filter((p) => p.versions.length === 2).length).toBe(3);
    expect(await stored(threaded, all)).toEqual(want);
    for (const lookup of ["broadband", "mobile"] as const) expect(await threaded.ledger.used(lookup, PERIOD, T0)).toBe(await here.ledger.used(lookup, PERIOD, T0));
    expect(await threaded.ledger.used("mobile", PERIOD, T0)).toBe(32);
  });

  it("gives claims back in the commit that stores their answers, on either thread; a lease's other claims stay", async () => {
    for (const [name, options] of [["here-claims.sqlite", {}], ["threaded-claims.sqlite", THREADED]] as const) {
      const store = await open(name);
      const { lease } = await store.leases.take({ host: "elsewhere", pid: 1, process: null }, T0, 60_000);
      const run = await newRun(store, lease.id);
      await store.claims.claim({ leaseId: lease.id, runId: run, lookup: "broadband", postcodes: ["AA11AA", "BB11BB", "CC11CC"], plannedAt: iso(T0), nowMs: T0 });
      const claims = () => {
        const db = new Database(join(dir, name), { readonly: true });
        try {
          return db.prepare("SELECT postcode FROM claims ORDER BY postcode").pluck().all();
        } finally {
          db.close();
        }
      };
      const w = await store.answers.openWriter({ providers: DEFAULT_PROVIDERS, ...options, lease: { id: lease.id, now: () => T0 } });
      w.write(okRecord("AA11AA", [1], iso(T0), run));
      w.write(okRecord("BB11BB", [2], iso(T0), run));
      w.releaseClaims(lease.id, "broadband", ["AA11AA", "BB11BB"]);
      // a claim of another lookup, or of another lease, is not given back
      w.releaseClaims(lease.id, "mobile", ["CC11CC"]);
      w.releaseClaims(lease.id + 1, "broadband", ["CC11CC"]);
      await w.flush();
      expect(claims(), name).toEqual(["CC11CC"]);
      expect((await store.answers.get("BB11BB", "broadband"))?.status, name).toBe("ok");
      await w.close();
    }
  });

  it("close commits what is queued and ends the thread; a write after it is refused", async () => {
    const store = await open("closed.sqlite");
    const run = await newRun(store);
    const w = await store.answers.openWriter({ providers: DEFAULT_PROVIDERS, ...THREADED });
    w.write(okRecord("AA11AA", [1], iso(T0), run));
    await w.close();
    expect((await store.answers.get("AA11AA", "broadband"))?.status).toBe("ok");
    expect(() => w.write(okRecord("BB11BB", [2], iso(T0), run))).toThrow(/closed/);
    await w.flush();
  });

  it("commits what is queued when the store closes, without a flush", async () => {
    const path = join(dir, "close.sqlite");
    const store = await openStore(path);
    await store.answers.prepareProviders(DEFAULT_PROVIDERS);
    const run = await newRun(store);
    const w = await store.answers.openWriter({ providers: DEFAULT_PROVIDERS, ...THREADED });
    for (const r of nights(run)[0]!) w.write(r);
    await store.close();
    const again = await open("close.sqlite");
    expect((await again.answers.get("AB291XY", "mobile"))?.status).toBe("ok");
    expect((await again.answers.get("AB291XY", "broadband"))?.status).toBe("ok");
  });

  it("refuses a group whose lease was taken over: the flush and onError get LeaseLostError, nothing of it is stored", async () => {
    const store = await open("lease.sqlite");
    const { lease } = await store.leases.take({ host: "elsewhere", pid: 1, process: null }, T0, 60_000);
    const run = await newRun(store, lease.id);
    let now = T0;
    const heard: Error[] = [];
    const w = await store.answers.openWriter({ providers: DEFAULT_PROVIDERS, ...THREADED, lease: { id: lease.id, now: () => now }, onError: (e) => heard.push(e) });
    w.write(okRecord("AA11AA", [1], iso(T0), run));
    await w.flush();
    now = T0 + 60_000;
    await store.leases.take({ host: "elsewhere", pid: 2, process: null }, now, 60_000);
    w.write(okRecord("BB11BB", [2], iso(now), run));
    await expect(w.flush()).rejects.toBeInstanceOf(LeaseLostError);
    expect(heard.map((e) => e.constructor)).toEqual([LeaseLostError]);
    expect(() => w.write(okRecord("CC11CC", [3], iso(now), run))).toThrow(LeaseLostError);
    expect(await store.answers.get("BB11BB", "broadband")).toBeNull();
    expect((await store.answers.get("AA11AA", "broadband"))?.status).toBe("ok");
  });

  it("names the database in a commit that fails, and stops there", async () => {
    const path = join(dir, "broken.sqlite");
    const store = await open("broken.sqlite");
    const run = await newRun(store);
    const heard: Error[] = [];
    const w = await store.answers.openWriter({ providers: DEFAULT_PROVIDERS, ...THREADED, onError: (e) => heard.push(e) });
    // another connection takes the table away under the writer's prepared statements
    const other = new Database(path);
    other.exec("DROP TABLE broadband_addresses");
    other.close();
    w.write(okRecord("AA11AA", [1], iso(T0), run));
    const err = await w.flush().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DatabaseError);
    expect((err as Error).message).toContain(path);
    expect((err as Error).message).toMatch(/no such table: broadband_addresses/);
    expect(heard).toHaveLength(1);
    await expect(w.flush()).rejects.toBe(err);
  });

  it("cannot start on a database it cannot write: openWriter rejects with the file named", async () => {
    const store = await open("gone.sqlite");
    const other = new Database(join(dir, "gone.sqlite"));
    other.exec("DROP TABLE mobile_addresses");
    other.close();
    const heard: Error[] = [];
    await expect(store.answers.openWriter({ providers: DEFAULT_PROVIDERS, ...THREADED, onError: (e) => heard.push(e) })).rejects.toThrow(/gone\.sqlite.*no such table: mobile_addresses/);
    // not a deferred commit's failure: the caller has no writer to stop
    expect(heard).toEqual([]);
  });

  it("a batch stores on the thread from WRITER_THREAD_FROM pairs (here lowered to 100): every answer is there; below it, and at the default, on the batch's thread", async () => {
    expect(WRITER_THREAD_FROM).toBe(100_000);
    for (const [n, from, threaded] of [[60, 100, true], [40, 100, false], [60, undefined, false]] as const) {
      const run = join(dir, `batch-${n}-${from ?? "default"}`);
      const input = writeCsv(dir, `in-${n}.csv`, ["postcode", ...generatePostcodes("writer-thread", n)]);
      const r = await runIn(run, { in: input, simulate: true, concurrency: 8 }, {}, from === undefined ? {} : { writerThreadFrom: from });
      expect(r.exitCode).toBe(0);
      expect(r.logs.some((l) => l.includes('"event":"writer-thread"'))).toBe(threaded);
      const store = await openStore(join(run, "coverage.sqlite"));
      opened.push(store);
      const answers = await Promise.all(generatePostcodes("writer-thread", n).map((p) => store.answers.get(p.replace(/ /g, ""), "mobile")));
      expect(answers.filter((a) => a?.status === "ok" || a?.status === "not_found")).toHaveLength(n);
    }
  }, 60_000);
});
