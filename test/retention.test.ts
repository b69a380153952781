// Answers expire as Ofcom's terms ask (clause 4.3.6): an answer the API last returned longer ago
// than --retention is deleted at the start of a batch, its text gone from every database file;
// readers hide it at their clock before any batch deletes it; answers about to expire are due.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { unzipSync } from "fflate";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { parse } from "csv-parse/sync";
import Database from "better-sqlite3";
import { generatePostcodes, startSimulator, type Simulator } from "../src/simulator/index.js";
import type { ExportTableName } from "../src/figures/export-tables.js";
import { openStore } from "../src/store/open-store.js";
import { writeReports } from "../src/report/index.js";
import { buildConfig } from "../src/cli/batch-config.js";
import { quotaStatus } from "../src/plan/quota-status.js";
import { formatQuotaStatus } from "../src/cli/status-text.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { FakeClock } from "./helpers/fake-clock.js";
import { storedTable } from "./helpers/stored.js";

const KEY = "kq-5d1e-Qx-77Zb-3f0a-9c1d";
const SEED = 29;
const env = { COVERAGE_API_KEY: KEY };
const DAY = 24 * 3600 * 1000;
const T0 = Date.parse("2026-03-01T02:00:00Z");
const dirs: string[] = [];
const sims: Simulator[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
afterEach(async () => {
  while (sims.length > 0) await sims.pop()!.close();
});

function dir(): string {
  const d = tempDir("pcc-retention-");
  dirs.push(d);
  return d;
}

async function sim(): Promise<Simulator> {
  const s = await startSimulator({ port: 0, seed: SEED, key: KEY, release: 1 });
  sims.push(s);
  return s;
}

/** What the store holds, read at a clock before any answer here expired: what a reader would hide is still seen, so only what was deleted is missing. */
const stored = (dbPath: string, table: ExportTableName) => storedTable(dbPath, table, { all: true, nowMs: T0 });

/** The texts found, as UTF-8 bytes, in any of the database's files (main, -wal, -journal). */
function textsInFiles(dbPath: string, texts: readonly string[]): string[] {
  const files = ["", "-wal", "-journal"].map((s) => dbPath + s).filter((p) => existsSync(p)).map((p) => readFileSync(p));
  return texts.filter((t) => files.some((bytes) => bytes.includes(Buffer.from(t, "utf8"))));
}

/** The texts found in any file of a report folder (a workbook's entries unzipped). */
function textsInFolder(folder: string, texts: readonly string[]): string[] {
  const contents: Buffer[] = [];
  for (const name of readdirSync(folder, { recursive: true }) as string[]) {
    const path = join(folder, name);
    if (!statSync(path).isFile()) continue;
    const bytes = readFileSync(path);
    if (name.endsWith(".xlsx")) for (const entry of Object.values(unzipSync(bytes))) contents.push(Buffer.from(entry));
    else contents.push(bytes);
  }
  return texts.filter((t) => contents.some((bytes) => bytes.includes(Buffer.from(t, "utf8"))));
}

describe("retention", () => {
  it("deletes an expired answer with its addresses and versions at the start of a batch: its text is in no database file", async () => {
    const s = await sim();
    const d = dir();
    const dbPath = join(d, "coverage.sqlite");
    const all = generatePostcodes(SEED, 40);
    const [old, kept] = [all.slice(0, 30), all.slice(30)];
    const clock = new FakeClock(T0);
    expect((await runIn(d, { in: writeCsv(d, "a.csv", ["postcode", ...old]), baseUrl: s.url, reports: false }, env, { clock })).exitCode).toBe(0);
    // a second release of the first postcodes, so they have versions whose JSON holds the old addresses
    clock.t = T0 + 2 * DAY;
    const s2 = await startSimulator({ port: 0, seed: SEED, key: KEY, release: 2 });
    sims.push(s2);
    expect((await runIn(d, { in: writeCsv(d, "a.csv", ["postcode", ...old]), baseUrl: s2.url, refresh: true, reports: false }, env, { clock })).exitCode).toBe(0);
    clock.t = T0 + 20 * DAY;
    expect((await runIn(d, { in: writeCsv(d, "b.csv", ["postcode", ...kept]), baseUrl: s2.url, reports: false }, env, { clock })).exitCode).toBe(0);
    const compact = old.map((p) => p.replace(" ", ""));
    const ofOld = (r: Record<string, unknown>) => compact.includes(r.postcode as string);
    const addresses = [...(await stored(dbPath, "broadband")), ...(await stored(dbPath, "mobile"))];
    // an address of the first postcodes that no kept address holds, even as part of it ("2, X ROAD" of "12, X ROAD")
    const keptAddresses = new Set(addresses.filter((r) => !ofOld(r)).map((r) => r.AddressShortDescription as string));
    const expiring = (await stored(dbPath, "broadband"))
      .filter(ofOld)
      .map((r) => r.AddressShortDescription as string)
      .filter((a) => a.length >= 12 && ![...keptAddresses].some((k) => k.includes(a)));
    expect(expiring.length).toBeGreaterThan(5);
    expect(textsInFiles(dbPath, expiring)).toEqual(expiring);
    expect((await stored(dbPath, "versions")).filter(ofOld).length).toBeGreaterThan(2 * old.length);

    // day 31: the first postcodes' answers (last returned on day 2) are past the default 30 days
    clock.t = T0 + 33 * DAY;
    const r = await runIn(d, { in: writeCsv(d, "b.csv", ["postcode", ...kept]), baseUrl: s2.url, reports: false }, env, { clock });
    expect(r.exitCode).toBe(0);
    expect(r.logs.join("\n")).toMatch(/retention: deleted 60 answer\(s\)/);
    for (const table of ["postcodes", "broadband", "mobile", "versions"] as const) expect((await stored(dbPath, table)).filter(ofOld).length, table).toBe(0);
    // the answers of the second list, returned on day 20, are kept
    expect(await stored(dbPath, "postcodes")).toHaveLength(2 * kept.length);
    expect(textsInFiles(dbPath, expiring)).toEqual([]);
  });

  it("waits for a reader holding a read transaction before it returns, then no database file holds the expired text; past its bound it says so", async () => {
    const s = await sim();
    const all = generatePostcodes(SEED, 24);
    const [old, kept] = [all.slice(0, 16), all.slice(16)];
    for (const readerEnds of [true, false]) {
      const d = dir();
      const dbPath = join(d, "coverage.sqlite");
      // the reader ends its read transaction at the batch's first sleep (the retention's first wait)
      let reader: Database.Database | null = null;
      const clock = new (class extends FakeClock {
        override async sleep(ms: number, signal?: AbortSignal) {
          if (readerEnds && reader?.inTransaction) reader.prepare("COMMIT").run();
          return super.sleep(ms, signal);
        }
      })(T0);
      expect((await runIn(d, { in: writeCsv(d, "a.csv", ["postcode", ...old]), baseUrl: s.url, reports: false }, env, { clock })).exitCode).toBe(0);
      clock.t = T0 + 20 * DAY;
      expect((await runIn(d, { in: writeCsv(d, "b.csv", ["postcode", ...kept]), baseUrl: s.url, reports: false }, env, { clock })).exitCode).toBe(0);
      const compact = old.map((p) => p.replace(" ", ""));
      const keptText = (await stored(dbPath, "broadband")).filter((r) => !compact.includes(r.postcode as string)).map((r) => r.AddressShortDescription as string);
      const expiring = (await stored(dbPath, "broadband"))
        .map((r) => r.AddressShortDescription as string)
        .filter((a) => a.length >= 12 && !keptText.some((k) => k.includes(a)));
      expect(expiring.length).toBeGreaterThan(5);
      // a report, say, reading the database when the night starts: a real second connection in a read transaction
      reader = new Database(dbPath, { readonly: true });
      reader.prepare("BEGIN").run();
      reader.prepare("SELECT count(*) FROM lookups").get();
      try {
        clock.t = T0 + 33 * DAY;
        const r = await runIn(d, { in: writeCsv(d, "b.csv", ["postcode", ...kept]), baseUrl: s.url, reports: false }, env, { clock, retentionEraseWaitMs: 5_000 });
        expect(r.exitCode).toBe(0);
        const log = r.logs.join("\n");
        expect(log).toMatch(/retention: deleted 32 answer\(s\)/);
        if (readerEnds) {
          // on main: the pass returned at once, the text still in the main file and its -wal while the reader was open
          expect(textsInFiles(dbPath, expiring)).toEqual([]);
          expect(log).toMatch(/retention: waited 1 s for another reader of .*coverage\.sqlite to end before the deleted text left its files/);
          expect(log).not.toMatch(/still in/);
        } else {
          // past the bound it goes on, and says so: the text is still there, as the warning says
          expect(textsInFiles(dbPath, expiring).length).toBeGreaterThan(0);
          const warning = r.logs.map((l) => JSON.parse(l) as { level: string; message: string; event?: string }).find((l) => l.event === "retention_not_erased");
          expect(warning?.level).toBe("warn");
          expect(warning?.message).toMatch(/^retention: the deleted answers' text is still in .*coverage\.sqlite's files: another connection \(a report, export or status still reading it\) has held a read transaction for over 5 s/);
        }
      } finally {
        reader.close();
      }
      // once the reader has gone, a checkpoint (the next batch's) takes the text away
      if (!readerEnds) {
        clock.t = T0 + 34 * DAY;
        expect((await runIn(d, { in: writeCsv(d, "b.csv", ["postcode", ...kept]), baseUrl: s.url, reports: false }, env, { clock })).exitCode).toBe(0);
        expect(textsInFiles(dbPath, expiring)).toEqual([]);
      }
    }
  });

  it("a night that writes no reports (input refused, API unreachable) still takes what its retention deleted out of --out", async () => {
    const s = await sim();
    const list = generatePostcodes(SEED, 12);
    for (const night of ["input refused", "API unreachable"] as const) {
      const d = dir();
      const out = join(d, "out");
      const clock = new FakeClock(T0);
      expect((await runIn(d, { in: writeCsv(d, "a.csv", ["postcode", ...list]), baseUrl: s.url }, env, { clock })).exitCode).toBe(0);
      const addresses = (parse(readFileSync(join(out, "broadband.csv")), { columns: true, bom: true }) as Record<string, string>[])
        .map((r) => r.AddressShortDescription!)
        // as written in every file: no quoting or escaping
        .filter((a) => /^[\w ,.-]+$/.test(a));
      expect(addresses.length).toBeGreaterThan(20);
      expect(textsInFolder(out, addresses).length).toBe(addresses.length);
      clock.t = T0 + 33 * DAY;
      const flags =
        night === "input refused"
          ? { in: writeCsv(d, "bad.csv", ["postcode", "NOT A POSTCODE", "NOR THIS"]), baseUrl: s.url }
          : { in: writeCsv(d, "a.csv", ["postcode", ...list]), baseUrl: "http://127.0.0.1:9", retries: 0 };
      const r = await runIn(d, flags, env, { clock });
      expect(r.exitCode, night).toBe(1);
      expect(r.logs.join("\n")).toMatch(/retention: deleted 24 answer\(s\)/);
      // on main: broadband.csv, mobile.csv, the workbook... kept every expired address
      expect(textsInFolder(out, addresses), night).toEqual([]);
      expect(r.logs.join("\n")).toMatch(/reports in .*out \(of run 1\) written again without the answers the retention deleted: this run wrote no reports of its own/);
      // the set still reports run 1, its postcodes expired, awaiting refresh
      expect((JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as { runId: number }).runId).toBe(1);
      const rows = parse(readFileSync(join(out, "summary.csv")), { columns: true, bom: true }) as Record<string, string>[];
      expect(rows.filter((row) => row.Figure === "Postcodes whose answer expired, awaiting refresh").map((row) => row.Count)).toEqual(["12", "12"]);
    }
  });

  it("--retention none keeps everything", async () => {
    const s = await sim();
    const d = dir();
    const dbPath = join(d, "coverage.sqlite");
    const [a, b] = [generatePostcodes(SEED, 4).slice(0, 2), generatePostcodes(SEED, 4).slice(2)];
    const clock = new FakeClock(T0);
    await runIn(d, { in: writeCsv(d, "a.csv", ["postcode", ...a]), baseUrl: s.url, reports: false, retention: "none" }, env, { clock });
    clock.t = T0 + 90 * DAY;
    const r = await runIn(d, { in: writeCsv(d, "b.csv", ["postcode", ...b]), baseUrl: s.url, reports: false, retention: "none", maxAge: "120d" }, env, { clock });
    expect(r.exitCode).toBe(0);
    expect(await stored(dbPath, "postcodes")).toHaveLength(8);
  });

  it("reports hide an expired answer at their clock before any batch deleted it", async () => {
    const s = await sim();
    const d = dir();
    const dbPath = join(d, "coverage.sqlite");
    const list = generatePostcodes(SEED, 5);
    const clock = new FakeClock(T0);
    expect((await runIn(d, { in: writeCsv(d, "a.csv", ["postcode", ...list]), baseUrl: s.url, reports: false }, env, { clock })).exitCode).toBe(0);
    const report = async (days: number) => {
      const out = join(d, `out-${days}`);
      const db = await openStore(dbPath, { readonly: true });
      try {
        await writeReports(db, { outDir: out, now: () => new Date(T0 + days * DAY) });
      } finally {
        await db.close();
      }
      const rows = (file: string) => parse(readFileSync(join(out, file)), { columns: true, bom: true }) as Record<string, string>[];
      return { postcodes: rows("postcodes.csv"), broadband: rows("broadband.csv") };
    };
    const young = await report(29);
    expect(young.broadband.length).toBeGreaterThan(0);
    expect(young.postcodes.every((p) => p.BroadbandStatus === "ok" || p.BroadbandStatus === "not_found")).toBe(true);
    const expired = await report(31);
    expect(expired.broadband).toHaveLength(0);
    // status at the same clock counts no expired answer (SQLite)
    const store = await openStore(dbPath, { readonly: true });
    try {
      expect((await store.status.database(5, T0 + 29 * DAY)).lookups.reduce((n, l) => n + l.postcodes, 0)).toBe(10);
      expect((await store.status.database(5, T0 + 31 * DAY)).lookups).toEqual([]);
    } finally {
      await store.close();
    }
    expect(expired.postcodes.map((p) => p.BroadbandStatus)).toEqual(list.map(() => "expired"));
    // nothing was deleted: the reader only hid them
    expect(await stored(dbPath, "postcodes")).toHaveLength(10);
  });

  it("answers that would expire before the next night are due, before older-release refreshes", async () => {
    const s = await sim();
    const d = dir();
    const list = generatePostcodes(SEED, 6);
    const input = writeCsv(d, "a.csv", ["postcode", ...list]);
    const clock = new FakeClock(T0);
    await runIn(d, { in: input, baseUrl: s.url, reports: false }, env, { clock });
    // day 9.5: fresh under --max-age 10d, but a --retention of 10 days deletes them before the next night
    clock.t = T0 + 9.5 * DAY;
    const r = await runIn(d, { in: input, baseUrl: s.url, reports: false, probe: 0, retention: "10", maxAge: "10d" }, env, { clock });
    expect(r.exitCode).toBe(0);
    // what the plan recorded it needs, and why: every pair of both lookups, as expiring
    const plan = r.logs.map((l) => JSON.parse(l) as { message: string; event?: string }).find((l) => l.event === "plan")!.message;
    expect([...plan.matchAll(/(\w+): (\d+) to fetch \(([^)]*)\)/g)].map((m) => m.slice(1))).toEqual([
      ["broadband", "6", "6 expiring"],
      ["mobile", "6", "6 expiring"],
    ]);
    // the day before, with a day's margin, nothing is due
    clock.t = T0 + 9.5 * DAY + 0.25 * DAY;
    const again = await runIn(d, { in: input, baseUrl: s.url, reports: false, probe: 0, retention: "10", maxAge: "10d" }, env, { clock });
    expect(again.counts!.requests).toBe(0);
  });

  it("a night that starts an hour later than a day on (the clocks go back) deletes nothing: what it would delete came due the night before", async () => {
    const s = await sim();
    const d = dir();
    const input = writeCsv(d, "a.csv", ["postcode", ...generatePostcodes(SEED, 6)]);
    const clock = new FakeClock(T0);
    const flags = { in: input, baseUrl: s.url, reports: false, probe: 0, retention: "3", maxAge: "3d", lookups: "broadband" } as const;
    const nights: string[] = [];
    for (const at of [0, DAY, 2 * DAY, 3 * DAY + 3600 * 1000]) {
      clock.t = T0 + at;
      const r = await runIn(d, flags, env, { clock });
      expect(r.exitCode).toBe(0);
      const logged = r.logs.map((l) => JSON.parse(l) as { message: string; event?: string });
      nights.push(logged.filter((l) => l.event === "plan" || l.event === "retention").map((l) => l.message.replace(/^run \d+: .*?broadband/, "broadband")).join(" | "));
    }
    expect(nights[2]).toMatch(/broadband: 6 to fetch \(6 expiring\)/);
    expect(nights[3]).not.toMatch(/deleted|new/);
    expect(nights[3]).toMatch(/broadband: 0 to fetch/);
  });

  it("refuses a --max-age longer than the retention in one line", () => {
    const flags = { in: "x.csv", simulate: true, maxAge: "60d" } as const;
    expect(() => buildConfig(flags, {})).toThrow(/^--max-age 60d is longer than --retention 30: .*$/);
    expect(() => buildConfig({ ...flags, retention: "60" }, {})).not.toThrow();
    expect(() => buildConfig({ ...flags, retention: "none" }, {})).not.toThrow();
    expect(() => buildConfig({ ...flags, retention: "soon" }, {})).toThrow(/--retention: expected a whole number of days/);
  });
});

describe("history within the retention", () => {
  it("a month of nightly runs with a release landing mid-month: changes.csv compares the new release's answers with the previous ones, and no answer outlives the retention", async () => {
    const d = dir();
    const dbPath = join(d, "coverage.sqlite");
    const input = writeCsv(d, "in.csv", ["postcode", ...generatePostcodes(SEED, 60)]);
    const clock = new FakeClock(T0);
    let s = await sim();
    let last = 0;
    for (let night = 0; night <= 30; night++) {
      clock.t = T0 + night * DAY;
      if (night === 15) {
        s = await startSimulator({ port: 0, seed: SEED, key: KEY, release: 2 });
        sims.push(s);
      }
      const r = await runIn(d, { in: input, baseUrl: s.url, reports: night === 30 }, env, { clock });
      expect(r.exitCode, `night ${night}`).toBe(0);
      last = r.runId!;
      const oldest = (await stored(dbPath, "postcodes")).map((l) => l.fetched_at as string).sort()[0]!;
      expect(Date.parse(oldest), `night ${night}`).toBeGreaterThanOrEqual(clock.t - 30 * DAY);
    }
    expect(last).toBe(31);
    const changes = parse(readFileSync(join(d, "out", "changes.csv")), { columns: true, bom: true }) as Record<string, string>[];
    expect(changes.length).toBeGreaterThan(0);
    for (const lookup of ["broadband", "mobile"]) {
      const rows = changes.filter((c) => c.Lookup === lookup);
      expect(rows.length, lookup).toBeGreaterThan(0);
      for (const c of rows) expect(c.BeforeRelease !== "" && c.AfterRelease !== "" && c.BeforeRelease !== c.AfterRelease, JSON.stringify(c)).toBe(true);
    }
    // each changed answer still has its previous version, inside the window
    const perAnswer = new Map<string, number>();
    for (const v of await stored(dbPath, "versions")) perAnswer.set(`${v.postcode}/${v.lookup}`, (perAnswer.get(`${v.postcode}/${v.lookup}`) ?? 0) + 1);
    const versions = [...perAnswer.values()].filter((n) => n > 1).reduce((sum, n) => sum + n, 0);
    expect(versions).toBeGreaterThan(0);
  }, 120_000);
});

describe("a quota too small for the list within the retention", () => {
  it("the plan and status say how many postcodes will expire unanswered, and from when", async () => {
    const s = await sim();
    const d = dir();
    const input = writeCsv(d, "a.csv", ["postcode", ...generatePostcodes(SEED, 60)]);
    const clock = new FakeClock(T0);
    // 40 requests a 28-day period keep at most floor(40 × 29 ÷ 28) = 41 postcodes answered (an answer is refreshed on its 29th night)
    const flags = { in: input, baseUrl: s.url, lookups: "broadband", monthlyQuota: "40", quotaPeriod: "28", quotaStart: "2026-03-01", reports: false, probe: 0 };
    const r = await runIn(d, flags, env, { clock });
    const line =
      "broadband: the quota cannot refresh the whole list within --retention 30 days: 19 of its 60 postcodes will expire unanswered, from 2026-03-31 (reports show them expired, awaiting refresh, with open-data figures where imported)";
    expect(r.logs.map((l) => JSON.parse(l) as { message: string; event?: string }).find((e) => e.event === "expiry_shortfall")?.message).toMatch(new RegExp(`^${line.replace(/[()]/g, "\\$&")}`));
    const store = await openStore(join(d, "coverage.sqlite"), { readonly: true });
    try {
      const status = formatQuotaStatus(await quotaStatus(store, T0 + 3600_000));
      expect(status).toContain(line);
      // beyond the capacity: the reports' words, and no date the plan cannot keep
      expect(status).toContain("  broadband: About 41 of the list's 60 postcodes hold an answer at any time: the quota (40 requests a quota period) keeps no more answered at once, as answers expire.");
      expect(status).toContain("  broadband: Answering it all within a month needs --monthly-quota 58 per lookup, or a list of at most 41 postcodes.");
      expect(status).not.toMatch(/ by \d{4}-\d\d-\d\d/);
    } finally {
      await store.close();
    }
  });
});
