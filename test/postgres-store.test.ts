// The PostgreSQL engine's own edges on a real server, beyond the contract suite: text that COPY
// must escape, answers and their versions as stored, provider columns, open data's last-row-wins
// and rollback, a read-only store.
import pg from "pg";
import { afterEach, describe, expect, test } from "vitest";
import { OPEN_DATA_COLUMNS } from "../src/contract/open-data.js";
import { openStore } from "../src/store/open-store.js";
import type { Store } from "../src/store/store.js";
import { DatabaseError } from "../src/store/types.js";
import { freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";

const { skip } = requiresPostgres();
const AT = "2026-11-23T02:17:00.000Z";
const LATER = "2026-11-24T02:17:00.000Z";

describe.skipIf(skip)("the PostgreSQL store", () => {
  const opened: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });
  async function open(url?: string, readonly = false): Promise<{ store: Store; url: string; sql: pg.Pool }> {
    const u = url ?? (await freshPostgresDatabase({ schema: true }));
    const store = await openStore(u, { readonly, isAlive: () => true });
    const sql = new pg.Pool({ connectionString: u, max: 1 });
    opened.push(store, { close: () => sql.end() });
    return { store, url: u, sql };
  }
  const newRun = (store: Store) => store.runs.create({ startedAt: AT, simulated: false, inputName: "in.csv", args: { rate: 100 }, lookups: ["broadband", "mobile"], providers: ["ProvA"] });

  test("input rows keep every character through COPY: tabs, line breaks, backslashes, quotes, \\N and non-ASCII", async () => {
    const { store, sql } = await open();
    const runId = await newRun(store);
    const cells = ["SW1A 2AA", "tab\there", "line\nbreak\r\n", "back\\slash \\N", '"quoted", ;', "Llanfair – Ŵ 🚀", ""];
    const writer = await store.inputRows.openWriter(runId);
    await writer.add({ line: 2, value: "SW1A 2AA", postcode: "SW1A2AA", reason: null, cells });
    await writer.add({ line: 3, value: "\\N", postcode: null, reason: "not a postcode", cells: ["\\N"] });
    await writer.flush();
    expect(await store.inputRows.counts(runId)).toEqual({ input: 2, invalid: 1 });
    const rows = (await sql.query("SELECT line, value, postcode, reason, cells FROM run_rows ORDER BY line")).rows;
    expect(rows.map((r) => ({ ...r, cells: JSON.parse(r.cells) }))).toEqual([
      { line: "2", value: "SW1A 2AA", postcode: "SW1A2AA", reason: null, cells },
      { line: "3", value: "\\N", postcode: null, reason: "not a postcode", cells: ["\\N"] },
    ]);
  });

  test("answers: a first answer, the same again (only last seen moves), a change (the old addresses kept in its version), then a failure (the addresses stay)", async () => {
    const { store, sql } = await open();
    const runId = await newRun(store);
    const w = await store.answers.openWriter({ providers: ["ProvA"] });
    const speeds = (d: number) => [d, 1, d, 2, -1, -1, d, 2];
    const ok = (fetchedAt: string, down: number) => ({
      postcode: "SW1A2AA", lookup: "broadband" as const, status: "ok" as const, httpStatus: 200, attempts: 1, lastError: null, fetchedAt, runId,
      answer: { lookup: "broadband" as const, dataset: null, addresses: [{ uprn: 100_023_336_956, address: "10 Downing St", speeds: speeds(down) }, { uprn: 5, address: "11", speeds: speeds(down) }] },
    });
    w.write(ok(AT, 30));
    await w.flush();
    expect(await store.answers.get("SW1A2AA", "broadband")).toEqual({
      postcode: "SW1A2AA", lookup: "broadband", status: "ok", fetchedAt: AT, runId, addressCount: 2, dataset: null, release: "2026-11-23", simulated: false, versionId: 1, lastError: null, returnedAt: AT,
    });
    w.write(ok(LATER, 30));
    await w.flush();
    const once = await store.answers.versions("SW1A2AA", "broadband");
    expect(once.map((v) => [v.id, v.firstSeen, v.lastSeen, v.release, v.addressCount])).toEqual([[1, AT, LATER, "2026-11-23", 2]]);
    w.write(ok("2026-11-25T00:00:00.000Z", 80));
    await w.flush();
    const twice = await store.answers.versions("SW1A2AA", "broadband");
    // a changed answer already confirmed on the newest release reveals a new one, named by its date
    expect(twice.map((v) => [v.id, v.release])).toEqual([[1, "2026-11-23"], [2, "2026-11-25"]]);
    const old = (await sql.query("SELECT content FROM answer_versions WHERE id = 1")).rows[0].content;
    expect(JSON.parse(old)).toEqual([[5, "11", ...speeds(30)], [100_023_336_956, "10 Downing St", ...speeds(30)]]);
    w.write({ postcode: "SW1A2AA", lookup: "broadband", status: "failed", httpStatus: 503, attempts: 4, lastError: "HTTP 503", fetchedAt: "2026-11-26T00:00:00.000Z", runId });
    await w.flush();
    expect(await store.answers.get("SW1A2AA", "broadband")).toMatchObject({ status: "failed", versionId: 2, addressCount: 2, lastError: "HTTP 503" });
    expect((await sql.query("SELECT uprn, maxbbpredicteddown FROM broadband_addresses ORDER BY uprn")).rows).toEqual([
      { uprn: "5", maxbbpredicteddown: 80 },
      { uprn: "100023336956", maxbbpredicteddown: 80 },
    ]);
  });

  test("mobile ratings go to their providers' columns, the answer names its release, and the plan sees which providers are missing", async () => {
    const { store } = await open();
    const runId = await newRun(store);
    const rows = await store.inputRows.openWriter(runId);
    for (const [line, postcode] of [[2, "SW1A2AA"], [3, "EC1A1BB"], [4, "SW1A2AA"]] as const) await rows.add({ line, value: postcode, postcode, reason: null, cells: [postcode] });
    await rows.flush();
    await store.answers.prepareProviders(["ProvA"]);
    const w = await store.answers.openWriter({ providers: ["ProvA"] });
    w.write({
      postcode: "SW1A2AA", lookup: "mobile", status: "ok", httpStatus: 200, attempts: 1, lastError: null, fetchedAt: AT, runId,
      answer: { lookup: "mobile", dataset: "MOB_2026_11", addresses: [{ uprn: 7, address: "7", ratings: [4, 3, 3, 2, 2, 1, 1, 0] }] },
    });
    await w.flush();
    expect((await store.releases.newest("mobile"))?.name).toBe("MOB_2026_11");
    const query = { runId, lookup: "mobile" as const, freshSince: "2026-11-01T00:00:00.000Z", refreshSince: null, simulated: false };
    const states = async (providers: string[]) => (await store.plan.candidates({ ...query, providers })).map((c) => [c.postcode, c.line, c.state, c.releaseRank]);
    expect(await states(["ProvA"])).toEqual([["SW1A2AA", 2, "fresh", 1], ["EC1A1BB", 3, "new", 0]]);
    expect(await states(["ProvA", "ProvB"])).toEqual([["SW1A2AA", 2, "incomplete", 1], ["EC1A1BB", 3, "new", 0]]);
    expect((await store.plan.candidates({ ...query, providers: ["ProvA"], freshSince: LATER })).map((c) => c.state)).toEqual(["age", "new"]);
  });

  test("open data: a postcode listed twice keeps its last row; a rolled-back import leaves the stored release whole", async () => {
    const { store, sql } = await open();
    const values = (v: number) => OPEN_DATA_COLUMNS.map((_, i) => (i === 1 ? null : v));
    const first = await store.openData.startImport();
    first.row("all", "SW1A2AA", values(1));
    first.row("all", "SW1A2AA", values(2));
    first.row("residential", "SW1A2AA", values(3));
    const meta = { month: "2026-05", revision: 1, source: "od/", fingerprint: "f1", importedAt: AT, files: 2, runId: null };
    expect(await first.commit(meta)).toEqual({ ...meta, id: 1, postcodes: 1, residential: 1 });
    const second = await store.openData.startImport();
    second.row("all", "EC1A1BB", values(9));
    await second.rollback();
    expect((await store.openData.current())?.fingerprint).toBe("f1");
    expect((await sql.query("SELECT postcode, premises, ofcomband0to2, ofcomband2to5 FROM open_data ORDER BY premises")).rows).toEqual([
      { postcode: "SW1A2AA", premises: "all", ofcomband0to2: 2, ofcomband2to5: null },
      { postcode: "SW1A2AA", premises: "residential", ofcomband0to2: 3, ofcomband2to5: null },
    ]);
  });

  test("a read-only store (status) refuses a database without the schema and changes nothing; it still takes report snapshots", async () => {
    const url = await freshPostgresDatabase();
    await expect(openStore(url, { readonly: true })).rejects.toThrow(DatabaseError);
    const { store } = await open(url);
    await newRun(store);
    const { store: reader } = await open(url, true);
    expect((await reader.status.database(5, Date.parse(AT))).runs.map((r) => r.state)).toEqual(["running"]);
    await expect(reader.runs.setExit(1, 0, null)).rejects.toThrow(/read-only transaction/);
    // its temporary tables need a read-write start (src/store/postgres/report/source.ts)
    await expect(reader.snapshot({ nowMs: Date.now() }, async () => 1)).rejects.toThrow("the database has no ProvAVoiceOutdoor column for run 1's providers (ProvA)");
    await store.answers.prepareProviders(["ProvA"]);
    expect(await reader.snapshot({ nowMs: Date.now() }, async (snapshot) => (await snapshot.preparePostcodes(null), snapshot.postcodeTotals([])))).toMatchObject({ postcodes: 0 });
  });
});
