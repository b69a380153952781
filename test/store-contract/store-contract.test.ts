// The store contract: the same cases against every engine in engines.ts, through the Store
// interface only. Real databases; every time is passed in (no clock is read, nothing sleeps).
import { formatReleaseStatus } from "../../src/cli/status-text.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_PROVIDERS, mobileFields, type Lookup } from "../../src/contract/fields.js";
import { OPEN_DATA_COLUMNS } from "../../src/contract/open-data.js";
import type { FinalRecord, OkRecord } from "../../src/contract/records.js";
import { mobileRecord, okRecord } from "../helpers/records.js";
import type { Store } from "../../src/store/store.js";
import { keyId } from "../../src/store/key-id.js";
import { LeaseLostError, LockedError, type LeaseHolder, type RunCounts } from "../../src/store/types.js";
import { ENGINES, type OpenedEngine } from "./engines.js";

const T0 = Date.parse("2026-03-01T00:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
const TTL = 60_000;
const PERIOD = "2026-03-01";

const holder = (pid: number, host = "contract-host"): LeaseHolder => ({ host, pid, process: null });

const zeroCounts: RunCounts = { inputRows: 0, postcodes: 0, rejects: 0, ok: 0, notFound: 0, failed: 0, pending: 0, requests: 0, retries: 0, throttled: 0 };

function ok(postcode: string, uprns: number[], fetchedAt: string, runId: number): OkRecord {
  return okRecord(postcode, uprns, fetchedAt, runId);
}

function failed(postcode: string, fetchedAt: string, runId: number): FinalRecord {
  return { postcode, lookup: "broadband", status: "failed", httpStatus: 500, attempts: 3, lastError: "HTTP 500: boom", fetchedAt, runId };
}

async function newRun(store: Store, leaseId: number | null = null, lookups: Lookup[] = ["broadband"]): Promise<number> {
  return store.runs.create({ startedAt: iso(T0), simulated: false, inputName: "in.csv", args: { probe: 0 }, lookups, providers: [...DEFAULT_PROVIDERS], leaseId });
}

async function addRows(store: Store, runId: number, postcodes: (string | null)[]): Promise<void> {
  await store.runs.setInput(runId, ["postcode"], "postcode");
  const w = await store.inputRows.openWriter(runId);
  for (const [i, p] of postcodes.entries())
    await w.add({ line: i + 2, value: p ?? "junk", postcode: p, reason: p === null ? "not a valid UK postcode" : null, cells: [p ?? "junk"] });
  await w.flush();
}

/** A mobile answer of `dataset` whose addresses carry these ratings, fetched at `at`. */
function mobileAnswer(runId: number, postcode: string, dataset: string, ratings: number[][], at: number): FinalRecord {
  return mobileRecord(postcode, dataset, ratings, iso(at), runId);
}

async function write(store: Store, records: FinalRecord[]): Promise<void> {
  const w = await store.answers.openWriter({ providers: DEFAULT_PROVIDERS });
  for (const r of records) w.write(r);
  await w.flush();
}

describe.each(ENGINES)("store contract: $name", (engine) => {
  let e: OpenedEngine;
  let store: Store;
  beforeEach(async () => {
    e = await engine.open();
    store = e.store;
    await store.answers.prepareProviders(DEFAULT_PROVIDERS);
  });
  afterEach(async () => {
    await e.cleanup();
  });

  it("names its engine and location", () => {
    expect(store.engine).toBe(engine.name);
    expect(store.location.length).toBeGreaterThan(0);
  });

  describe("runs", () => {
    it("creates, checkpoints, finishes and reads a run; a forgotten run gives its number back", async () => {
      const id = await newRun(store);
      await addRows(store, id, ["AB11AA", null]);
      expect(await store.runs.read(id)).toEqual({
        id,
        state: "running",
        simulated: false,
        inputColumns: ["postcode"],
        postcodeColumn: "postcode",
        lookups: ["broadband"],
        providers: [...DEFAULT_PROVIDERS],
      });
      await store.runs.checkpoint(id, { requests: 7, retries: 2, throttled: 1 });
      expect(await store.runs.facts(id)).toMatchObject({ id, state: "running", requests: 7, retries: 2, throttled: 1, endedAt: null });
      await store.runs.finish(id, { endedAt: iso(T0 + 1000), state: "completed", exitCode: 2, message: "m", counts: { ...zeroCounts, requests: 9 } });
      // a checkpoint after the end changes nothing
      await store.runs.checkpoint(id, { requests: 99, retries: 0, throttled: 0 });
      expect(await store.runs.facts(id)).toMatchObject({ state: "completed", endedAt: iso(T0 + 1000), requests: 9, message: "m" });
      await store.runs.setExit(id, 1, "reports not written");
      expect(await store.runs.facts(id)).toMatchObject({ message: "reports not written" });
      expect((await store.runs.read("last"))?.id).toBe(id);
      expect(await store.runs.lastSettings()).toMatchObject({ runId: id, startedAt: iso(T0), simulated: false, args: { probe: 0 } });

      const refused = await newRun(store);
      await addRows(store, refused, ["AB11AA"]);
      await store.runs.forget(refused);
      expect(await store.runs.read(refused)).toBeNull();
      expect(await newRun(store)).toBe(refused);
    });
  });

  describe("input rows", () => {
    it("keeps every row, rejects included, and counts them", async () => {
      const id = await newRun(store);
      await addRows(store, id, ["AB11AA", null, "AB11AA", "CD22CD"]);
      expect(await store.inputRows.counts(id)).toEqual({ input: 4, invalid: 1 });
      expect(await store.inputRows.counts(id + 1)).toEqual({ input: 0, invalid: 0 });
    });
  });

  describe("the sample's seed and strata", () => {
    it("keeps the first seed it is given, and gives each postcode's first row's cells", async () => {
      expect(await store.sample.seed("first")).toBe("first");
      expect(await store.sample.seed("second")).toBe("first");
      const id = await newRun(store);
      await store.runs.setInput(id, ["postcode", "ward"], "postcode");
      const w = await store.inputRows.openWriter(id);
      const rows = [["AB11AA", " North "], ["CD22CD", "South"], ["AB11AA", "West"], ["junk"]] as const;
      for (const [i, cells] of rows.entries()) await w.add({ line: i + 2, value: cells[0], postcode: i === 3 ? null : cells[0], reason: i === 3 ? "not a valid UK postcode" : null, cells });
      await w.flush();
      expect(Object.fromEntries(await store.sample.inputCells(id, [1, 5]))).toEqual({ AB11AA: ["North", ""], CD22CD: ["South", ""] });
      expect((await store.sample.inputCells(id, [])).size).toBe(0);
    });
  });

  describe("answers and versions", () => {
    it("an identical re-fetch moves only last seen; a changed answer is a new version; a failure keeps the last good answer", async () => {
      const id = await newRun(store);
      await write(store, [ok("AB11AA", [1, 2], iso(T0), id)]);
      const first = await store.answers.get("AB11AA", "broadband");
      expect(first).toMatchObject({ status: "ok", addressCount: 2, runId: id, simulated: false, fetchedAt: iso(T0) });
      expect(await store.answers.versions("AB11AA", "broadband")).toMatchObject([{ status: "ok", firstSeen: iso(T0), lastSeen: iso(T0), addressCount: 2 }]);

      await write(store, [ok("AB11AA", [2, 1], iso(T0 + 1000), id)]);
      const again = await store.answers.versions("AB11AA", "broadband");
      expect(again).toHaveLength(1);
      expect(again[0]).toMatchObject({ firstSeen: iso(T0), lastSeen: iso(T0 + 1000) });

      await write(store, [ok("AB11AA", [1, 2, 3], iso(T0 + 2000), id)]);
      const changed = await store.answers.versions("AB11AA", "broadband");
      expect(changed.map((v) => v.addressCount)).toEqual([2, 3]);
      const latest = await store.answers.get("AB11AA", "broadband");
      expect(latest?.versionId).toBe(changed[1]!.id);

      await write(store, [failed("AB11AA", iso(T0 + 3000), id)]);
      expect(await store.answers.get("AB11AA", "broadband")).toMatchObject({ status: "failed", addressCount: 3, versionId: changed[1]!.id, lastError: "HTTP 500: boom" });
      expect(await store.answers.versions("AB11AA", "broadband")).toHaveLength(2);
      expect(await store.answers.get("ZZ99ZZ", "broadband")).toBeNull();
    });

    it("writes the answers and ledger rows of one turn together; tells simulated from real", async () => {
      const id = await newRun(store);
      const w = await store.answers.openWriter({ providers: DEFAULT_PROVIDERS, simulated: true });
      w.request({ lookup: "broadband", status: 200, at: iso(T0), period: PERIOD, runId: id, leaseId: null });
      w.write(ok("AB11AA", [1], iso(T0), id));
      w.block({ lookup: "mobile", until: iso(T0 + 3_600_000), message: "quota replenished in 1 hour", runId: id });
      await w.flush();
      expect(await store.ledger.used("broadband", PERIOD, T0)).toBe(1);
      expect(await store.ledger.blocked("mobile", iso(T0))).toEqual({ until: iso(T0 + 3_600_000), message: "quota replenished in 1 hour" });
      expect(await store.ledger.blocked("mobile", iso(T0 + 3_600_000))).toBeNull();
      expect(await store.answers.holdsOtherKind(false)).toBe(true);
      expect(await store.answers.holdsOtherKind(true)).toBe(false);
    });
  });

  describe("release scales", () => {
    it("records each mobile release's scale with its evidence: any rating 1 or 2 is legacy, otherwise current", async () => {
      const id = await newRun(store, null, ["mobile"]);
      const fields = mobileFields(DEFAULT_PROVIDERS).length;
      const mobile = (postcode: string, dataset: string, ratings: number[][], at: number) => mobileAnswer(id, postcode, dataset, ratings, at);
      await write(store, [
        mobile("AB11AA", "MobileAvailability-202301010000", [Array<number>(fields).fill(3), [2, ...Array<number>(fields - 1).fill(0)]], T0),
        mobile("AB11AB", "MobileAvailability-202406041254", [Array<number>(fields).fill(4), Array<number>(fields).fill(0), Array<number>(fields).fill(3)], T0 + 1000),
      ]);
      expect(await store.releases.recordScales(DEFAULT_PROVIDERS)).toEqual([
        { release: "MobileAvailability-202301010000", ratings: 2 * fields, legacyRatings: 1, scale: "legacy" },
        { release: "MobileAvailability-202406041254", ratings: 3 * fields, legacyRatings: 0, scale: "current" },
      ]);
      // status shows each mobile release's stored scale, one line each
      const mobileReleases = (await store.status.releases(T0)).find((l) => l.lookup === "mobile")!.releases;
      expect(mobileReleases.map((r) => [r.name, r.scale, Number(r.scale_ratings), Number(r.scale_legacy_ratings)])).toEqual([
        ["MobileAvailability-202301010000", "legacy", 2 * fields, 1],
        ["MobileAvailability-202406041254", "current", 3 * fields, 0],
      ]);
      const text = formatReleaseStatus(await store.status.releases(T0));
      expect(text).toMatch(/ {2}mobile MobileAvailability-202301010000: .*\n {4}scale: legacy, /);
      expect(text).toContain(`    scale: legacy, Ofcom's earlier 0-4 scale (1 ratings of 1 or 2 among ${2 * fields} ratings)`);
      expect(text).toContain(`    scale: current, Ofcom's current 0/3/4 scale (no rating 1 or 2 among ${3 * fields} ratings)`);
    });

    it("keeps a release's recorded scale: evidence only adds, so answers moved to a newer release or deleted never turn a legacy release current", async () => {
      const DAY = 24 * 3600 * 1000;
      const id = await store.runs.create({ startedAt: iso(T0), simulated: false, inputName: "in.csv", args: { retention: 30 * DAY }, lookups: ["mobile"], providers: [...DEFAULT_PROVIDERS], leaseId: null });
      const fields = mobileFields(DEFAULT_PROVIDERS).length;
      const [OLD, NEW] = ["MobileAvailability-202301010000", "MobileAvailability-202406041254"];
      const mobile = (postcode: string, dataset: string, ratings: number[][], at: number) => mobileAnswer(id, postcode, dataset, ratings, at);
      const recorded = async () => (await store.releases.recordScales(DEFAULT_PROVIDERS)).map((r) => [r.release, r.scale, r.ratings, r.legacyRatings]);
      const statusScales = async (nowMs: number) => (await store.status.releases(nowMs)).find((l) => l.lookup === "mobile")!.releases.map((r) => [r.name, r.scale]);
      // AB11AA rated only 0/3/4; AB11AB holds a 1: the release is legacy
      await write(store, [mobile("AB11AA", OLD, [Array<number>(fields).fill(3)], T0), mobile("AB11AB", OLD, [[1, ...Array<number>(fields - 1).fill(4)]], T0 + 20 * DAY)]);
      expect(await recorded()).toEqual([[OLD, "legacy", 2 * fields, 1]]);
      // a refresh moves AB11AB onto the new release: OLD's answers hold no 1 or 2 any more
      await write(store, [mobile("AB11AB", NEW, [Array<number>(fields).fill(4)], T0 + 21 * DAY)]);
      // on main: OLD was recorded again from what is left, as current
      expect(await recorded()).toEqual([
        [OLD, "legacy", 2 * fields, 1],
        [NEW, "current", fields, 0],
      ]);
      expect(await statusScales(T0 + 22 * DAY)).toEqual([[OLD, "legacy"], [NEW, "current"]]);
      // a report of AB11AA alone reads it on its release's recorded scale
      const scales = await store.snapshot({ all: true, nowMs: T0 + 22 * DAY }, async (snapshot) => {
        await snapshot.preparePostcodes(3);
        return snapshot.scaleEvidence();
      });
      expect(scales.map((e) => [e.release, e.legacyRatings])).toEqual([[OLD, 1], [NEW, 0]]);
      // the retention deletes nothing that holds the record: still legacy
      await store.answers.expire(iso(T0 + 5 * DAY), iso(T0 + 35 * DAY));
      await write(store, [mobile("AB11AC", NEW, [Array<number>(fields).fill(0)], T0 + 36 * DAY)]);
      expect((await recorded())[0]).toEqual([NEW, "current", 2 * fields, 0]);
      expect(await statusScales(T0 + 36 * DAY)).toEqual([[OLD, "legacy"], [NEW, "current"]]);
    });

    it("status counts each release's ratings over the answers it shows: an expired one is not counted", async () => {
      const DAY = 24 * 3600 * 1000;
      const id = await store.runs.create({ startedAt: iso(T0), simulated: false, inputName: "in.csv", args: { retention: 30 * DAY }, lookups: ["mobile"], providers: [...DEFAULT_PROVIDERS], leaseId: null });
      const fields = mobileFields(DEFAULT_PROVIDERS).length;
      const mobile = (postcode: string, dataset: string, ratings: number[][], at: number) => mobileAnswer(id, postcode, dataset, ratings, at);
      await write(store, [
        mobile("AB11AA", "MobileAvailability-202301010000", [Array<number>(fields).fill(3), [2, ...Array<number>(fields - 1).fill(0)]], T0),
        mobile("AB11AB", "MobileAvailability-202301010000", [Array<number>(fields).fill(4)], T0 + 20 * DAY),
      ]);
      await store.releases.recordScales(DEFAULT_PROVIDERS);
      const counts = async (nowMs: number) =>
        (await store.status.releases(nowMs)).find((l) => l.lookup === "mobile")!.releases.map((r) => [r.scale, Number(r.scale_ratings), Number(r.scale_legacy_ratings)]);
      expect(await counts(T0 + 25 * DAY)).toEqual([["legacy", 3 * fields, 1]]);
      // day 31: AB11AA's answer is past the retention and hidden; its ratings are not counted
      expect(await counts(T0 + 31 * DAY)).toEqual([["legacy", fields, 0]]);
    });
  });

  describe("retention", () => {
    it("expire deletes answers last returned before the cutoff with their versions; readers hide them at their clock before", async () => {
      const DAY = 24 * 3600 * 1000;
      const id = await store.runs.create({ startedAt: iso(T0), simulated: false, inputName: "in.csv", args: { retention: 30 * DAY }, lookups: ["broadband"], providers: [...DEFAULT_PROVIDERS], leaseId: null });
      await addRows(store, id, ["AB11AA", "CD22BB"]);
      await write(store, [ok("AB11AA", [1, 2], iso(T0), id)]);
      await write(store, [ok("AB11AA", [1, 2, 3], iso(T0 + 1000), id), ok("CD22BB", [4], iso(T0 + 10 * DAY), id)]);
      const statusesAt = (nowMs: number) =>
        store.snapshot({ runId: id, nowMs }, async (snapshot) => {
          await snapshot.preparePostcodes(3);
          return (await snapshot.postcodeTotals(["BroadbandAddresses"])).statuses.broadband;
        });
      expect(await statusesAt(T0 + 29 * DAY)).toMatchObject({ ok: 2, pending: 0 });
      // day 31: AB11AA is past the 30 days at the reader's clock, though nothing was deleted
      expect(await statusesAt(T0 + 31 * DAY)).toMatchObject({ ok: 1, pending: 0, expired: 1 });
      // status hides it at the same clock, on both engines
      const stored = async (nowMs: number) => (await store.status.database(5, nowMs)).lookups.map((l) => [l.lookup, l.postcodes]);
      expect(await stored(T0 + 29 * DAY)).toEqual([["broadband", 2]]);
      expect(await stored(T0 + 31 * DAY)).toEqual([["broadband", 1]]);
      expect(await store.answers.versions("AB11AA", "broadband")).toHaveLength(2);

      expect(await store.answers.expire(iso(T0 + 5 * DAY), iso(T0 + 35 * DAY))).toEqual({ answers: 1, versions: 2, erased: true });
      expect(await store.answers.get("AB11AA", "broadband")).toBeNull();
      expect(await store.answers.versions("AB11AA", "broadband")).toEqual([]);
      expect(await store.answers.get("CD22BB", "broadband")).toMatchObject({ status: "ok", addressCount: 1 });
      // deleted: its tombstone keeps it expired, awaiting refresh, without its content
      expect(await statusesAt(T0 + 31 * DAY)).toMatchObject({ ok: 1, pending: 0, expired: 1 });
      expect(await store.answers.expire(iso(T0 + 5 * DAY), iso(T0 + 35 * DAY))).toEqual({ answers: 0, versions: 0, erased: true });
    });

    it("a failure never makes an answer younger: it expires, with its versions, by when the API last returned it", async () => {
      const DAY = 24 * 3600 * 1000;
      const id = await store.runs.create({ startedAt: iso(T0), simulated: false, inputName: "in.csv", args: { retention: 30 * DAY }, lookups: ["broadband"], providers: [...DEFAULT_PROVIDERS], leaseId: null });
      await addRows(store, id, ["AB11AA", "CD22BB"]);
      await write(store, [ok("AB11AA", [1], iso(T0), id), ok("CD22BB", [4], iso(T0), id)]);
      // CD22BB changes on day 20: its day-0 version is an old one; AB11AA's refresh fails
      await write(store, [failed("AB11AA", iso(T0 + 20 * DAY), id), ok("CD22BB", [5], iso(T0 + 20 * DAY), id)]);
      expect(await store.answers.get("AB11AA", "broadband")).toMatchObject({ status: "failed", fetchedAt: iso(T0 + 20 * DAY), returnedAt: iso(T0), addressCount: 1 });
      expect(await store.answers.get("CD22BB", "broadband")).toMatchObject({ status: "ok", returnedAt: iso(T0 + 20 * DAY) });
      // the planner sees the failed pair's answer as old as it is
      const planned = await store.plan.candidates({ runId: id, lookup: "broadband", freshSince: iso(T0), refreshSince: null, providers: DEFAULT_PROVIDERS, simulated: false });
      expect(planned.map((c) => [c.postcode, c.state, c.fetchedAt])).toEqual([
        ["AB11AA", "failed", iso(T0)],
        ["CD22BB", "fresh", iso(T0 + 20 * DAY)],
      ]);
      const statusesAt = (nowMs: number) =>
        store.snapshot({ runId: id, nowMs }, async (snapshot) => {
          await snapshot.preparePostcodes(3);
          return (await snapshot.postcodeTotals(["BroadbandAddresses"])).statuses.broadband;
        });
      // the reports date the answers by when the API returned them
      const spans = await store.snapshot({ runId: id, nowMs: T0 + 25 * DAY }, async (snapshot) => {
        await snapshot.preparePostcodes(3);
        return (await snapshot.releases("broadband")).map((r) => [r.fetchedFrom, r.fetchedTo]);
      });
      expect(spans).toEqual([[iso(T0), iso(T0 + 20 * DAY)]]);
      // day 31 at a reader's clock: the failed refresh's answer is expired, not failed
      expect(await statusesAt(T0 + 31 * DAY)).toMatchObject({ ok: 1, failed: 0, expired: 1 });
      expect(await store.answers.expire(iso(T0 + DAY), iso(T0 + 31 * DAY))).toEqual({ answers: 1, versions: 2, erased: true });
      expect(await store.answers.get("AB11AA", "broadband")).toBeNull();
      expect((await store.answers.versions("CD22BB", "broadband")).map((v) => v.firstSeen)).toEqual([iso(T0 + 20 * DAY)]);
      // failing again: still expired, awaiting refresh (its failure holds no answer)
      await write(store, [failed("AB11AA", iso(T0 + 31 * DAY), id)]);
      expect(await store.answers.get("AB11AA", "broadband")).toMatchObject({ status: "failed", returnedAt: null, versionId: null, addressCount: 0 });
      expect(await statusesAt(T0 + 31 * DAY)).toMatchObject({ ok: 1, failed: 0, expired: 1 });
      expect(await store.answers.expire(iso(T0 + DAY), iso(T0 + 31 * DAY))).toEqual({ answers: 0, versions: 0, erased: true });
    });
  });

  describe("the planner's queries", () => {
    it("states each input postcode's need in input order; needs not fetched count as pending; a refresh mark continues until closed", async () => {
      const old = await newRun(store);
      await write(store, [ok("BB11BB", [1], iso(T0 - 40 * 86_400_000), old), ok("CC11CC", [2], iso(T0), old), failed("DD11DD", iso(T0), old)]);
      const id = await newRun(store);
      await addRows(store, id, ["AA11AA", "BB11BB", null, "CC11CC", "DD11DD", "AA11AA"]);
      const candidates = await store.plan.candidates({
        runId: id,
        lookup: "broadband",
        freshSince: iso(T0 - 30 * 86_400_000),
        refreshSince: null,
        providers: DEFAULT_PROVIDERS,
        simulated: false,
      });
      expect(candidates.map((c) => [c.postcode, c.line, c.state])).toEqual([
        ["AA11AA", 2, "new"],
        ["BB11BB", 3, "age"],
        ["CC11CC", 5, "fresh"],
        ["DD11DD", 6, "failed"],
      ]);
      await store.plan.recordNeeds(id, "broadband", [
        { postcode: "AA11AA", reason: "new" },
        { postcode: "BB11BB", reason: "age" },
      ]);
      expect(await store.runs.finalCounts(id, ["broadband"])).toEqual({ ok: 1, notFound: 0, failed: 1, pending: 2 });
      // team mode: a pair another run stored meanwhile is reused, no longer this run's to fetch
      await store.plan.dropNeeds(id, "broadband", ["BB11BB"]);
      expect(await store.runs.finalCounts(id, ["broadband"])).toEqual({ ok: 2, notFound: 0, failed: 1, pending: 1 });
      await write(store, [ok("AA11AA", [3], iso(T0), id), ok("BB11BB", [1], iso(T0), id)]);
      expect(await store.runs.finalCounts(id, ["broadband"])).toEqual({ ok: 3, notFound: 0, failed: 1, pending: 0 });

      expect(await store.plan.refreshMark("broadband", iso(T0), id)).toBe(iso(T0));
      expect(await store.plan.refreshMark("broadband", iso(T0 + 1000), id)).toBe(iso(T0));
      await store.plan.closeRefreshMarks(id, ["broadband"]);
      expect(await store.plan.refreshMark("broadband", iso(T0 + 2000), id)).toBe(iso(T0 + 2000));
    });

    it("says a lookup's product answered once it returned an answer, and still after the answer expired; never for a failure, a 404 or a 200 alone", async () => {
      const id = await newRun(store, null, ["broadband", "mobile"]);
      const answered = async () => [await store.plan.productAnswered("broadband"), await store.plan.productAnswered("mobile")];
      expect(await answered()).toEqual([false, false]);
      await write(store, [failed("AB11AA", iso(T0), id)]);
      const w = await store.answers.openWriter({ providers: DEFAULT_PROVIDERS });
      // a gateway's 404 is recorded as a 404 too: it says nothing of the product
      w.request({ lookup: "mobile", status: 404, at: iso(T0), period: PERIOD, runId: id, leaseId: null });
      await w.flush();
      expect(await answered()).toEqual([false, false]);
      // nor is a 200 whose body was no answer (a wrong host's page): an answer is stored as one
      w.request({ lookup: "mobile", status: 200, at: iso(T0), period: PERIOD, runId: id, leaseId: null });
      await w.close();
      expect(await answered()).toEqual([false, false]);
      await write(store, [ok("AB11AA", [1], iso(T0), id)]);
      expect(await answered()).toEqual([true, false]);
      expect(await store.answers.expire(iso(T0 + 1), iso(T0 + 31 * 86_400_000))).toMatchObject({ answers: 1 });
      expect(await store.answers.get("AB11AA", "broadband")).toBeNull();
      expect(await answered()).toEqual([true, false]);
    });

    it("records more needs than one statement holds, a need recorded again once, and drops many at once", async () => {
      const id = await newRun(store);
      const postcodes = Array.from({ length: 10_003 }, (_, i) => `ZZ${String(i).padStart(5, "0")}`);
      await addRows(store, id, postcodes);
      await store.plan.recordNeeds(id, "broadband", postcodes.map((postcode) => ({ postcode, reason: "new" })));
      await store.plan.recordNeeds(id, "broadband", postcodes.slice(0, 3).map((postcode) => ({ postcode, reason: "age" })));
      expect(await store.status.running()).toMatchObject({ runId: id, pairs: 10_003, toFetch: 10_003, fetched: 0, reused: 0 });
      await store.plan.dropNeeds(id, "broadband", postcodes.slice(0, 10_001));
      expect(await store.status.running()).toMatchObject({ runId: id, pairs: 10_003, toFetch: 2, reused: 10_001 });
    });
  });

  describe("ledger", () => {
    it("two stores reserving at once never grant more than the limit, and say how many are left", async () => {
      const other = await e.second();
      const a = await store.leases.take(holder(1), T0, TTL);
      // SQLite: one lease at a time, so both stores reserve under the one lease
      const b = engine.exclusiveLeases ? a : await other.leases.take(holder(2), T0, TTL);
      const ask = (s: Store, leaseId: number) => s.ledger.reserve({ leaseId, lookup: "broadband", period: PERIOD, n: 7, limit: 50, nowMs: T0 });
      const grants = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? ask(store, a.lease.id) : ask(other, b.lease.id))));
      const granted = grants.reduce((n, g) => n + g.granted, 0);
      expect(granted).toBe(50);
      expect(grants.every((g) => g.granted >= 0 && g.granted <= 7 && g.left >= 0)).toBe(true);
      expect(Math.min(...grants.map((g) => g.left))).toBe(0);
      expect(await store.ledger.used("broadband", PERIOD, T0)).toBe(50);
      const none = await ask(store, a.lease.id);
      expect(none).toEqual({ granted: 0, left: 0 });
    });

    it("a request recorded spends its reservation; what was not sent is given back, and counts as spent when its holder dies", async () => {
      const { lease } = await store.leases.take(holder(1), T0, TTL);
      const id = await newRun(store, lease.id);
      expect(await store.ledger.reserve({ leaseId: lease.id, lookup: "mobile", period: PERIOD, n: 10, limit: 25, nowMs: T0 })).toEqual({ granted: 10, left: 15 });
      const w = await store.answers.openWriter({ providers: DEFAULT_PROVIDERS });
      for (let i = 0; i < 4; i++) w.request({ lookup: "mobile", status: 200, at: iso(T0 + i), period: PERIOD, runId: id, leaseId: lease.id });
      await w.flush();
      // 4 recorded + 6 still reserved
      expect(await store.ledger.used("mobile", PERIOD, T0)).toBe(10);
      expect((await store.ledger.figures(PERIOD, T0)).used).toEqual({ broadband: 0, mobile: 10 });
      // 2 of the 6 were sent and their rows not written: only the 4 never sent go back
      await store.ledger.giveBack({ leaseId: lease.id, lookup: "mobile", n: 4 });
      expect(await store.ledger.used("mobile", PERIOD, T0)).toBe(6);
      await store.ledger.giveBack({ leaseId: lease.id, lookup: "mobile", n: 2 });
      expect(await store.ledger.used("mobile", PERIOD, T0)).toBe(4);

      expect((await store.ledger.reserve({ leaseId: lease.id, lookup: "mobile", period: PERIOD, n: 30, limit: 25, nowMs: T0 })).granted).toBe(21);
      expect(await store.ledger.used("mobile", PERIOD, T0 + TTL - 1)).toBe(25);
      // the lease was not renewed and another holder took over: what the dead one reserved and did
      // not record may have been sent, so it still counts, for status and for the next reserve
      expect(await store.ledger.used("mobile", PERIOD, T0 + TTL)).toBe(25);
      const next = await store.leases.take(holder(2, "elsewhere"), T0 + TTL, TTL);
      expect(await store.ledger.used("mobile", PERIOD, T0 + TTL)).toBe(25);
      expect(await store.ledger.reserve({ leaseId: next.lease.id, lookup: "mobile", period: PERIOD, n: 5, limit: 25, nowMs: T0 + TTL })).toEqual({ granted: 0, left: 0 });
      expect((await store.ledger.reserve({ leaseId: next.lease.id, lookup: "mobile", period: "2026-04-01", n: 5, limit: 25, nowMs: T0 + TTL })).granted).toBe(5);
      expect(await store.ledger.used("mobile", "2026-04-01", T0)).toBe(5);
    });

    it("gives back what a lease reserved in a period and never took, there only", async () => {
      const { lease } = await store.leases.take(holder(1), T0, TTL);
      const id = await newRun(store, lease.id);
      const reserve = (period: string) => store.ledger.reserve({ leaseId: lease.id, lookup: "broadband", period, n: 10, limit: 25, nowMs: T0 });
      await reserve(PERIOD);
      await reserve("2026-04-01");
      const w = await store.answers.openWriter({ providers: DEFAULT_PROVIDERS });
      w.request({ lookup: "broadband", status: 200, at: iso(T0), period: PERIOD, runId: id, leaseId: lease.id });
      await w.flush();
      await store.ledger.giveBack({ leaseId: lease.id, lookup: "broadband", period: PERIOD, n: 8 });
      // 1 recorded + 1 taken and not yet recorded; the other period's reservation stays
      expect(await store.ledger.used("broadband", PERIOD, T0)).toBe(2);
      expect(await store.ledger.used("broadband", "2026-04-01", T0)).toBe(10);
      // never below nothing: what is left is spent by requests still to be recorded
      await store.ledger.giveBack({ leaseId: lease.id, lookup: "broadband", period: PERIOD, n: 5 });
      expect(await store.ledger.used("broadband", PERIOD, T0)).toBe(1);
    });
  });

  describe("ledger: giving back", () => {
    it("gives back no more than is unspent, the newest period's first, and only the lookup named", async () => {
      const { lease } = await store.leases.take(holder(1), T0, TTL);
      const reserve = (lookup: "broadband" | "mobile", period: string, n: number) => store.ledger.reserve({ leaseId: lease.id, lookup, period, n, limit: 100, nowMs: T0 });
      await reserve("broadband", PERIOD, 5);
      await reserve("broadband", "2026-04-01", 3);
      await reserve("mobile", PERIOD, 7);
      await store.ledger.giveBack({ leaseId: lease.id, lookup: "broadband", n: 4 });
      expect(await store.ledger.used("broadband", "2026-04-01", T0)).toBe(0);
      expect(await store.ledger.used("broadband", PERIOD, T0)).toBe(4);
      expect(await store.ledger.used("mobile", PERIOD, T0)).toBe(7);
      await store.ledger.giveBack({ leaseId: lease.id, lookup: "broadband", n: 50 });
      expect(await store.ledger.used("broadband", PERIOD, T0)).toBe(0);
      await store.ledger.giveBack({ leaseId: lease.id, lookup: "mobile", n: 0 });
      expect(await store.ledger.used("mobile", PERIOD, T0)).toBe(7);
    });

    it("a lease released with reservations unspent keeps them counted: they were taken, perhaps sent without a ledger row", async () => {
      const { lease } = await store.leases.take(holder(1), T0, TTL);
      await store.ledger.reserve({ leaseId: lease.id, lookup: "broadband", period: PERIOD, n: 10, limit: 25, nowMs: T0 });
      await store.ledger.reserve({ leaseId: lease.id, lookup: "mobile", period: PERIOD, n: 3, limit: 25, nowMs: T0 });
      await store.ledger.giveBack({ leaseId: lease.id, lookup: "broadband", n: 4 });
      await store.ledger.giveBack({ leaseId: lease.id, lookup: "mobile", n: 3 });
      await store.leases.release(lease.id);
      expect((await store.ledger.figures(PERIOD, T0)).used).toEqual({ broadband: 6, mobile: 0 });
      const next = await store.leases.take(holder(2), T0, TTL);
      expect(await store.ledger.reserve({ leaseId: next.lease.id, lookup: "broadband", period: PERIOD, n: 25, limit: 25, nowMs: T0 })).toEqual({ granted: 19, left: 0 });
    });
  });

  describe("ledger and dead holders", () => {
    it("a holder on this host whose process is gone: its unspent reservations count as spent, also once its lease is taken over", async () => {
      const alive = new Set([1]);
      const local = await engine.open({ isAlive: (h) => alive.has(h.pid) });
      try {
        const { hostname } = await import("node:os");
        const taken = await local.store.leases.take(holder(1, hostname()), T0, TTL);
        expect(await local.store.ledger.reserve({ leaseId: taken.lease.id, lookup: "broadband", period: PERIOD, n: 10, limit: 25, nowMs: T0 })).toEqual({ granted: 10, left: 15 });
        expect(await local.store.ledger.used("broadband", PERIOD, T0)).toBe(10);
        alive.delete(1);
        // its holder is gone with requests perhaps in flight: status and the next reserve still count them
        expect(await local.store.ledger.used("broadband", PERIOD, T0)).toBe(10);
        expect((await local.store.ledger.figures(PERIOD, T0)).used.broadband).toBe(10);
        const next = await local.store.leases.take(holder(2, "elsewhere"), T0, TTL);
        expect(next.previous).toMatchObject({ pid: 1 });
        expect(await local.store.ledger.reserve({ leaseId: next.lease.id, lookup: "broadband", period: PERIOD, n: 25, limit: 25, nowMs: T0 })).toEqual({ granted: 15, left: 0 });
      } finally {
        await local.cleanup();
      }
    });
  });

  describe("leases", () => {
    it("takes, renews, releases; a run is abandoned only once its lease has expired", async () => {
      const first = await store.leases.take(holder(101, "elsewhere"), T0, TTL);
      expect(first.previous).toBeNull();
      expect(first.lease).toMatchObject({ holder: holder(101, "elsewhere"), expiresAt: iso(T0 + TTL) });
      const run = await newRun(store, first.lease.id);
      expect((await store.leases.live(T0)).map((l) => [l.id, l.runId])).toEqual([[first.lease.id, run]]);

      expect(await store.leases.renew(first.lease.id, T0 + 30_000, TTL)).toBe(true);
      expect(await store.runs.abandonOrphans(iso(T0 + TTL), T0 + TTL)).toBe(0);
      expect((await store.runs.read(run))?.state).toBe("running");
      expect((await store.leases.live(T0 + 30_000 + TTL)).length).toBe(0);
      expect(await store.runs.abandonOrphans(iso(T0 + 30_000 + TTL), T0 + 30_000 + TTL)).toBe(1);
      expect((await store.runs.read(run))?.state).toBe("abandoned");

      const next = await store.leases.take(holder(102, "elsewhere"), T0 + 30_000 + TTL, TTL);
      expect(next.lease.id).not.toBe(first.lease.id);
      await store.leases.release(next.lease.id);
      expect(await store.leases.live(T0 + 30_000 + TTL)).toEqual([]);
      expect(await store.leases.renew(next.lease.id, T0 + 30_000 + TTL, TTL)).toBe(false);
    });

    it("renews while a report streams rows, and the renewal is seen at once by another process", async () => {
      const { lease } = await store.leases.take(holder(1, "elsewhere"), T0, TTL);
      const run = await newRun(store, lease.id);
      // more postcodes than one batch of a row stream, so that its cursor stays open between batches
      const letters = "ABDEFGHJLN";
      const postcodes = Array.from({ length: 600 }, (_, i) => `AB1${Math.floor(i / 100)}${i % 10}${letters[Math.floor(i / 10) % 10]}A`);
      await addRows(store, run, postcodes);
      await write(store, postcodes.map((p) => ok(p, [1], iso(T0), run)));
      const other = await e.second();
      const rows = await store.snapshot({ runId: run, nowMs: T0 }, async (snapshot) => {
        await snapshot.preparePostcodes(3);
        const stream = snapshot.postcodeRows(["BroadbandAddresses"])[Symbol.asyncIterator]();
        const first = await stream.next();
        // the cursor is open here, between the stream's first batch and the rest
        expect(await store.leases.renew(lease.id, T0 + 30_000, TTL)).toBe(true);
        expect((await other.leases.live(T0 + TTL)).map((l) => l.id)).toEqual([lease.id]);
        let read = first.done ? 0 : first.value.length;
        for (let next = await stream.next(); !next.done; next = await stream.next()) read += next.value.length;
        return read;
      });
      expect(rows).toBe(600);
    });

    it("a holder on this host whose process is gone holds nothing", async () => {
      const alive = new Set([1]);
      const local = await engine.open({ isAlive: (h) => alive.has(h.pid) });
      try {
        const { hostname } = await import("node:os");
        const taken = await local.store.leases.take(holder(1, hostname()), T0, TTL);
        const run = await newRun(local.store, taken.lease.id);
        expect(await local.store.runs.abandonOrphans(iso(T0), T0)).toBe(0);
        alive.delete(1);
        expect(await local.store.leases.live(T0)).toEqual([]);
        expect(await local.store.runs.abandonOrphans(iso(T0), T0)).toBe(1);
        expect((await local.store.runs.read(run))?.state).toBe("abandoned");
      } finally {
        await local.cleanup();
      }
    });

    it.runIf(engine.exclusiveLeases)("is exclusive: a second holder is refused while the first lease lives, then takes it over", async () => {
      const other = await e.second();
      await store.leases.take(holder(1, "elsewhere"), T0, TTL);
      await expect(other.leases.take(holder(2), T0 + 1, TTL)).rejects.toThrow(LockedError);
      await expect(other.leases.take(holder(2), T0 + 1, TTL)).rejects.toThrow(/another batch \(pid 1 on elsewhere/);
      const taken = await other.leases.take(holder(2), T0 + TTL, TTL);
      expect(taken.previous).toEqual({ pid: 1, host: "elsewhere", runId: null, why: "expired" });
    });

    it.runIf(!engine.exclusiveLeases)("lets every batch process hold its own lease", async () => {
      const other = await e.second();
      const a = await store.leases.take(holder(1), T0, TTL);
      const b = await other.leases.take(holder(2), T0, TTL);
      expect((await store.leases.live(T0)).map((l) => l.id).sort()).toEqual([a.lease.id, b.lease.id].sort());
    });
  });

  describe("fencing: a lease no longer live writes nothing", () => {
    it("an expired lease is not renewed, even before anyone takes it over", async () => {
      const { lease } = await store.leases.take(holder(1, "elsewhere"), T0, TTL);
      expect(await store.leases.renew(lease.id, T0 + TTL - 1, TTL)).toBe(true);
      expect(await store.leases.renew(lease.id, T0 + 2 * TTL, TTL)).toBe(false);
      expect(await store.leases.renew(lease.id, T0 + 2 * TTL + 1, TTL)).toBe(false);
    });

    it("claims, reservations and answer groups under a taken-over lease (on PostgreSQL: an expired one) are refused whole", async () => {
      const { lease } = await store.leases.take(holder(1, "elsewhere"), T0, TTL);
      const run = await newRun(store, lease.id);
      const late = T0 + TTL;
      // SQLite (one writer per file) judges by the lease's row, gone once taken over
      const taker = engine.exclusiveLeases ? () => store.leases.take(holder(2, "elsewhere"), late, TTL) : async () => null;
      const claim = (nowMs: number) => store.claims.claim({ leaseId: lease.id, runId: run, lookup: "broadband", postcodes: ["AA11AA"], plannedAt: iso(T0), nowMs });
      const reserve = (nowMs: number) => store.ledger.reserve({ leaseId: lease.id, lookup: "broadband", period: PERIOD, n: 5, limit: 50, nowMs });
      expect((await claim(T0)).claimed).toEqual(["AA11AA"]);
      expect((await reserve(T0)).granted).toBe(5);
      let now = T0;
      const w = await store.answers.openWriter({ providers: DEFAULT_PROVIDERS, lease: { id: lease.id, now: () => now } });
      w.write(ok("AA11AA", [1], iso(T0), run));
      w.request({ lookup: "broadband", status: 200, at: iso(T0), period: PERIOD, runId: run, leaseId: lease.id });
      await w.flush();
      await taker();
      await expect(claim(late)).rejects.toBeInstanceOf(LeaseLostError);
      await expect(reserve(late)).rejects.toBeInstanceOf(LeaseLostError);
      now = late;
      w.write(ok("BB11BB", [2], iso(late), run));
      w.request({ lookup: "broadband", status: 200, at: iso(late), period: PERIOD, runId: run, leaseId: lease.id });
      await expect(w.flush()).rejects.toBeInstanceOf(LeaseLostError);
      expect(await store.answers.get("BB11BB", "broadband")).toBeNull();
      expect((await store.answers.get("AA11AA", "broadband"))?.status).toBe("ok");
      // one request recorded, four still reserved: the refused group's request counts as reserved, not lost
      expect(await store.ledger.used("broadband", PERIOD, late)).toBe(5);
    });

    it("a lease taken over names why it was free: expired, or its holder on this host gone", async () => {
      const alive = new Set([1]);
      const local = await engine.open({ isAlive: (h) => alive.has(h.pid) });
      try {
        const { hostname } = await import("node:os");
        const first = await local.store.leases.take(holder(1, hostname()), T0, TTL);
        alive.delete(1);
        const second = await local.store.leases.take(holder(2, "elsewhere"), T0 + 1, TTL);
        expect(second.previous).toEqual({ pid: 1, host: hostname(), runId: null, why: "gone" });
        await local.store.leases.release(second.lease.id);
        expect(await local.store.leases.renew(first.lease.id, T0 + 2, TTL)).toBe(false);
      } finally {
        await local.cleanup();
      }
    });

    it("tells the database server's time on PostgreSQL (the team's clock), none on SQLite", async () => {
      const before = Date.now();
      const server = await store.leases.serverNow();
      if (engine.name === "sqlite") expect(server).toBeNull();
      else expect(Math.abs(server! - before)).toBeLessThan(5_000);
    });
  });

  describe("claims", () => {
    it("claims what no live lease holds and nobody fetched since the plan; a lapsed lease's claims are free again", async () => {
      const { lease } = await store.leases.take(holder(1, "elsewhere"), T0, TTL);
      const id = await newRun(store, lease.id);
      const other = await newRun(store);
      // another run stored CC11CC after this run planned
      await write(store, [ok("CC11CC", [1], iso(T0 + 500), other)]);
      const claimed = await store.claims.claim({ leaseId: lease.id, runId: id, lookup: "broadband", postcodes: ["AA11AA", "BB11BB", "CC11CC"], plannedAt: iso(T0), nowMs: T0 });
      expect(claimed).toEqual({ claimed: ["AA11AA", "BB11BB"], heldElsewhere: [], fetchedSince: ["CC11CC"] });
      // claiming again under the same lease is no conflict
      expect((await store.claims.claim({ leaseId: lease.id, runId: id, lookup: "broadband", postcodes: ["AA11AA"], plannedAt: iso(T0), nowMs: T0 })).claimed).toEqual(["AA11AA"]);
      await store.claims.release(lease.id, "broadband", ["AA11AA"]);

      const later = await store.leases.take(holder(2, "elsewhere"), T0 + TTL, TTL);
      const run2 = await newRun(store, later.lease.id);
      const after = await store.claims.claim({ leaseId: later.lease.id, runId: run2, lookup: "broadband", postcodes: ["AA11AA", "BB11BB"], plannedAt: iso(T0 + TTL), nowMs: T0 + TTL });
      expect(after).toEqual({ claimed: ["AA11AA", "BB11BB"], heldElsewhere: [], fetchedSince: [] });
    });

    /** This store and a second one (another machine), each with a live lease and a run under it. */
    async function twoMachines() {
      const other = await e.second();
      const a = await store.leases.take(holder(1), T0, TTL);
      const b = await other.leases.take(holder(2), T0, TTL);
      return { other, a, b, ra: await newRun(store, a.lease.id), rb: await newRun(other, b.lease.id) };
    }

    it.runIf(!engine.exclusiveLeases)("leaves a pair another live lease holds to it", async () => {
      const { other, a, b, ra, rb } = await twoMachines();
      await store.claims.claim({ leaseId: a.lease.id, runId: ra, lookup: "mobile", postcodes: ["AA11AA"], plannedAt: iso(T0), nowMs: T0 });
      expect(await other.claims.claim({ leaseId: b.lease.id, runId: rb, lookup: "mobile", postcodes: ["AA11AA", "BB11BB"], plannedAt: iso(T0), nowMs: T0 })).toEqual({
        claimed: ["BB11BB"],
        heldElsewhere: ["AA11AA"],
        fetchedSince: [],
      });
    });

    it.runIf(!engine.exclusiveLeases)("an answer another machine stored in the very millisecond of the plan counts as fetched since: the plan may have read before it", async () => {
      const { other, a, b, ra, rb } = await twoMachines();
      await store.claims.claim({ leaseId: a.lease.id, runId: ra, lookup: "broadband", postcodes: ["AA11AA"], plannedAt: iso(T0), nowMs: T0 });
      const w = await store.answers.openWriter({ providers: DEFAULT_PROVIDERS, lease: { id: a.lease.id, now: () => T0 } });
      w.write(ok("AA11AA", [1], iso(T0), ra));
      w.releaseClaims(a.lease.id, "broadband", ["AA11AA"]);
      await w.flush();
      await w.close();
      expect(await other.claims.claim({ leaseId: b.lease.id, runId: rb, lookup: "broadband", postcodes: ["AA11AA"], plannedAt: iso(T0), nowMs: T0 })).toEqual({ claimed: [], heldElsewhere: [], fetchedSince: ["AA11AA"] });
    });

    it.runIf(!engine.exclusiveLeases)("the answer writer gives claims back in the commit that stores their answers: another machine then finds the answer, not the claim", async () => {
      const { other, a, b, ra, rb } = await twoMachines();
      await store.claims.claim({ leaseId: a.lease.id, runId: ra, lookup: "broadband", postcodes: ["AA11AA", "BB11BB"], plannedAt: iso(T0), nowMs: T0 });
      const w = await store.answers.openWriter({ providers: DEFAULT_PROVIDERS, lease: { id: a.lease.id, now: () => T0 } });
      w.write(ok("AA11AA", [1], iso(T0 + 100), ra));
      w.releaseClaims(a.lease.id, "broadband", ["AA11AA"]);
      const ask = () => other.claims.claim({ leaseId: b.lease.id, runId: rb, lookup: "broadband", postcodes: ["AA11AA", "BB11BB"], plannedAt: iso(T0), nowMs: T0 });
      // queued, not committed: both pairs still held
      expect(await ask()).toEqual({ claimed: [], heldElsewhere: ["AA11AA", "BB11BB"], fetchedSince: [] });
      await w.flush();
      expect(await ask()).toEqual({ claimed: [], heldElsewhere: ["BB11BB"], fetchedSince: ["AA11AA"] });
      await w.close();
    });
  });

  describe("pace", () => {
    it("spaces slots per lookup and key; a 429 pauses every holder of the key; a quota block says until when", async () => {
      const key = keyId("the-api-key");
      const slot = (lookup: Lookup, k: string, now: number) => store.pace.nextSlot(lookup, k, 600, now);
      expect(await slot("broadband", key, T0)).toEqual({ startAtMs: T0, blockedUntilMs: null });
      expect(await slot("broadband", key, T0)).toEqual({ startAtMs: T0 + 600, blockedUntilMs: null });
      expect(await slot("broadband", key, T0 + 100)).toEqual({ startAtMs: T0 + 1200, blockedUntilMs: null });
      // another lookup, or another key, has a pace of its own
      expect((await slot("mobile", key, T0)).startAtMs).toBe(T0);
      expect((await slot("broadband", keyId("another-key"), T0)).startAtMs).toBe(T0);
      // idling earns no burst
      expect((await slot("broadband", key, T0 + 60_000)).startAtMs).toBe(T0 + 60_000);
      await store.pace.slowDown("broadband", key, T0 + 90_000);
      expect((await slot("broadband", key, T0 + 61_000)).startAtMs).toBe(T0 + 90_000);
      await store.pace.block("mobile", key, T0 + 3_600_000);
      expect(await slot("mobile", key, T0 + 1000)).toEqual({ startAtMs: T0 + 3_600_000, blockedUntilMs: T0 + 3_600_000 });
      expect((await slot("mobile", key, T0 + 3_600_000)).blockedUntilMs).toBeNull();
    });

    it("names a key by a one-way digest: 16 hex characters, never the key", () => {
      const id = keyId("Zr8-qW2v-K9pd-Hx3");
      expect(id).toMatch(/^[0-9a-f]{16}$/);
      expect(id).toBe(keyId("Zr8-qW2v-K9pd-Hx3"));
      expect(id).not.toBe(keyId("Zr8-qW2v-K9pd-Hx4"));
    });
  });

  describe("release checks", () => {
    it("records the last check per lookup, and tells whether a run stored an answer naming its release", async () => {
      const id = await newRun(store, null, ["mobile"]);
      expect(await store.releaseChecks.last("mobile")).toBeNull();
      await store.releaseChecks.record({ lookup: "mobile", at: iso(T0), how: "probes", runId: id });
      await store.releaseChecks.record({ lookup: "mobile", at: iso(T0 + 1000), how: "answers", runId: id });
      expect(await store.releaseChecks.last("mobile")).toBe(iso(T0 + 1000));
      expect(await store.releaseChecks.last("broadband")).toBeNull();
      // the record itself: the later check replaced the earlier, how and by which run
      expect(await store.releaseChecks.lastCheck("mobile")).toEqual({ lookup: "mobile", at: iso(T0 + 1000), how: "answers", runId: id });
      expect(await store.releaseChecks.lastCheck("broadband")).toBeNull();
      expect(await store.releaseChecks.runStoredNamedRelease(id, "mobile")).toBe(false);
      const ratings = mobileFields(DEFAULT_PROVIDERS).map(() => 3);
      await write(store, [
        {
          postcode: "AB11AA",
          lookup: "mobile",
          status: "ok",
          httpStatus: 200,
          attempts: 1,
          lastError: null,
          fetchedAt: iso(T0),
          runId: id,
          answer: { lookup: "mobile", dataset: "2026-02", addresses: [{ uprn: 5, address: "5 High Street", ratings }] },
        },
      ]);
      expect(await store.releaseChecks.runStoredNamedRelease(id, "mobile")).toBe(true);
      expect((await store.releases.newest("mobile"))?.name).toBe("2026-02");
    });
  });

  describe("open data", () => {
    it("replaces the stored release on commit; a rolled back import keeps the previous one", async () => {
      expect(await store.openData.current()).toBeNull();
      const values = (n: number) => OPEN_DATA_COLUMNS.map((_, i) => (i === 0 ? n : null));
      const first = await store.openData.startImport();
      first.row("all", "AB11AA", values(1));
      first.row("residential", "AB11AA", values(2));
      first.row("all", "CD22CD", values(3));
      const meta = { month: "2026-01", revision: 1, source: "a.zip", fingerprint: "f1", importedAt: iso(T0), files: 2, runId: null };
      expect(await first.commit(meta)).toMatchObject({ month: "2026-01", postcodes: 2, residential: 1 });
      const second = await store.openData.startImport();
      second.row("all", "EF33EF", values(4));
      await second.rollback();
      expect(await store.openData.current()).toMatchObject({ month: "2026-01", fingerprint: "f1", postcodes: 2, residential: 1, files: 2 });
    });
  });

  describe("status", () => {
    it("shows runs newest first, a running run's progress, and the live leases", async () => {
      const { lease } = await store.leases.take(holder(7, "elsewhere"), T0, TTL);
      const id = await newRun(store, lease.id);
      await addRows(store, id, ["AA11AA", "BB11BB"]);
      await store.plan.recordNeeds(id, "broadband", [{ postcode: "AA11AA", reason: "new" }]);
      await write(store, [ok("AA11AA", [1], iso(T0), id)]);
      const s = await store.status.database(5, T0);
      expect(s.runs.map((r) => [r.id, r.state])).toEqual([[id, "running"]]);
      expect(s.leases.map((l) => l.holder.pid)).toEqual([7]);
      expect(s.lock).toMatchObject({ pid: 7, host: "elsewhere", run_id: id, alive: null });
      expect(await store.status.running()).toMatchObject({ runId: id, pairs: 2, toFetch: 1, fetched: 1, reused: 1 });
      expect((await store.status.database(5, T0 + TTL)).leases).toEqual([]);
    });
  });
});
