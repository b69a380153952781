// A month of real nights on one database, on each engine: 35 nightly batches over one injected
// clock against the simulator (behind a loopback proxy that notes every answer it gave), through a
// release change, the mobile scale's change from 0-4 to 0/3/4, a week of 500s, a Ctrl-C, a 28-day
// quota period that ends, and two machines on some nights. After every night: no text the API
// returned longer ago than the retention is anywhere (the database's files and every version it
// holds; on the nights that write them, the reports and the export), the headline figures of
// summary.json equal a count of our own over the answers still young (each mobile answer judged
// on its own scale; on a night of two machines, an answer the other stored tonight counts either
// way, since a report is the store as it was when the report began), the requests stay within the
// quota, no pair is answered twice in a night, and no answer stays on a provisional release once
// its name is known.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeExport } from "../src/export/write-export.js";
import { generatePostcode, generatePostcodes, startSimulator, type Simulator } from "../src/simulator/index.js";
import { DEFAULT_PROVIDERS, type Lookup } from "../src/contract/fields.js";
import type { MobileScale } from "../src/contract/mobile-scales.js";
import { openStore } from "../src/store/open-store.js";
import { runIn, tempDir, writeCsv, type HarnessRun } from "./helpers/batch-harness.js";
import { FakeClock } from "./helpers/fake-clock.js";
import { broadbandCounts, mobileCounts } from "./helpers/independent-figures.js";
import { freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";
import { availability, startRecordingProxy, type RecordingProxy, type Returned } from "./helpers/recording-proxy.js";
import { storedTables } from "./helpers/stored.js";
import { readSummaryJson } from "./helpers/summary-json.js";

const KEY = "month-key-3c9e-Lq7-0b52-aa19f4e7";
const SEED = 17;
const HOUR = 3600_000;
const DAY = 24 * HOUR;
const NIGHTS = 35;
const RETENTION_DAYS = 30;
const QUOTA = 70;
const QUOTA_DAYS = 28;
const GENERATED = generatePostcodes(SEED, 300);
/** two postcodes the service does not know lead the list: on the first night their 404s name no release */
const ALL_POSTCODES = [...GENERATED.filter((p) => generatePostcode(SEED, p) === null).slice(0, 2), ...GENERATED.filter((p) => generatePostcode(SEED, p) !== null).slice(0, 24)];
/** the list the nights run on; the last six leave it after night 3, so their answers must expire */
const POSTCODES = ALL_POSTCODES.slice(0, 20);
const LEAVING_AFTER = 3;
const listOf = (n: number) => (n <= LEAVING_AFTER ? ALL_POSTCODES : POSTCODES);
const compact = (list: readonly string[]) => list.map((p) => p.replace(/\s+/g, "").toUpperCase());
const PROVIDERS = [...DEFAULT_PROVIDERS];
// A fixed month: every reader (reports, export, the stored tables) reads at the scenario's clock,
// so nothing depends on the day or the hour the suite runs.
const T0 = Date.UTC(2026, 10, 1) + 2 * HOUR;
const QUOTA_START = Math.floor(T0 / DAY) * DAY;
/** Nights start at 02:00, 04:00, 06:00 or 08:00: an answer is never exactly the retention old at a later night's start. */
const nightAt = (n: number) => T0 + n * DAY + (n % 4) * 2 * HOUR;
const CTRL_C_NIGHT = 0;
/** the first night on a fresh database (the Ctrl-C stops one machine); the release and the scale change on 19; the quota's second period starts on 28 */
const TWO_MACHINE_NIGHTS = new Set([0, 3, 19, 28]);
/**
 * Nights that write the reports and the export, to keep the file fast: after the first full
 * fetch, in the outage, the scale change, the new quota period, and two nights after answers of
 * the first nights are past the retention. The store and its files are checked every night.
 */
const REPORT_NIGHTS = new Set([1, 6, 19, 28, 31, 34]);

interface Service {
  release: number;
  mobileScale: MobileScale;
  failRate: number;
}

/** What the service runs on night n: 500s from 5 to 11, a new release on 13, another on 19 on the current scale. */
function service(n: number): Service {
  return { release: n < 13 ? 1 : n < 19 ? 2 : 3, mobileScale: n < 19 ? "legacy" : "current", failRate: n >= 5 && n <= 11 ? 1 : 0 };
}

/** The fake clock read in whole milliseconds, as Date.now() gives them (its sleeps may add fractions; PostgreSQL stores times as bigint). */
class WholeMsClock extends FakeClock {
  override now(): number {
    return Math.floor(this.t);
  }
}

const goodOf = (scale: MobileScale) => (scale === "legacy" ? 3 : 4);
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Every file under `dir`, hidden folders included. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** A file's text as a reader sees it: a workbook's parts unzipped. */
function readable(path: string): Buffer {
  if (path.endsWith(".xlsx")) return execFileSync("unzip", ["-p", path], { maxBuffer: 256 * 1024 * 1024 });
  return readFileSync(path);
}

/** The texts the API returned (addresses; UPRNs where a file holds them as text) and when it last returned each. */
function lastReturned(returned: readonly Returned[]): { addresses: Map<string, number>; uprns: Map<string, number> } {
  const addresses = new Map<string, number>();
  const uprns = new Map<string, number>();
  for (const r of returned)
    for (const row of availability(r.body)) {
      addresses.set(String(row.AddressShortDescription), Math.max(addresses.get(String(row.AddressShortDescription)) ?? 0, r.at));
      uprns.set(String(row.UPRN), Math.max(uprns.get(String(row.UPRN)) ?? 0, r.at));
    }
  return { addresses, uprns };
}

/** Which of `needles` occur in `text` (one pass of one expression). */
function textsIn(text: string, needles: readonly string[]): string[] {
  if (needles.length === 0) return [];
  const pattern = new RegExp([...needles].sort((a, b) => b.length - a.length).map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "g");
  return [...new Set([...text.matchAll(pattern)].map((m) => m[0]))];
}

/** The texts last returned before `cutoff` that no younger text contains. */
function oldTexts(last: Map<string, number>, cutoff: number, minLength: number): string[] {
  const young = [...last].filter(([, at]) => at >= cutoff).map(([t]) => t);
  return [...last].filter(([t, at]) => at < cutoff && t.length >= minLength && !young.some((y) => y.includes(t))).map(([t]) => t);
}

interface Engine {
  name: string;
  db: (dir: string) => Promise<string>;
  /** the engine's own files, read as bytes (SQLite: the database with its -wal and -journal) */
  files: (db: string) => string[];
  /** whether two batches may run at once on one database */
  team: boolean;
}

/** The pair's final answers (200 or 404), the latest last, up to the night. */
const finals = (returned: readonly Returned[], lookup: Lookup, postcode: string) =>
  returned.filter((r) => r.lookup === lookup && r.postcode === postcode && (r.status === 200 || r.status === 404));

type Figures = Record<string, number>;
const addInto = (into: Figures, from: Figures) => Object.entries(from).forEach(([k, v]) => (into[k] = (into[k] ?? 0) + v));

/** One answer's part of the headline figures: its addresses, each mobile answer on its own scale; nothing when it is not an answer still young. */
function answerFigures(lookup: Lookup, answer: Returned | undefined, cutoff: number): Figures {
  const f: Figures = { addresses: 0 };
  if (!answer || answer.status !== 200 || answer.at < cutoff) return f;
  for (const row of availability(answer.body)) {
    f.addresses!++;
    if (lookup === "broadband") addInto(f, broadbandCounts(row.MaxPredictedDown as number, row.MaxPredictedUp as number));
    else addInto(f, mobileCounts(row as Record<string, number>, PROVIDERS, goodOf(service(answer.tag).mobileScale)));
  }
  return f;
}

/** At most this many pairs may count either way in one report: the check tries every combination. */
const MAX_EITHER_WAY = 12;

/**
 * Whether a report's figures of one lookup equal our own count over the list's answers still young
 * at `at`, and that count. A report is a snapshot of the store as it was when it began, so on a
 * night two machines run, an answer the other machine stored tonight may be in it or not: a pair
 * this machine found fresh and the other probed a moment later is not waited for. Such a pair
 * (`eitherWay`, its compact postcode) counts with its answer from before tonight or tonight's; every
 * other pair with its latest answer.
 */
function matchesOurCount(lookup: Lookup, stated: Figures, returned: readonly Returned[], list: readonly string[], at: number, night: number, eitherWay: ReadonlySet<string>) {
  const cutoff = at - RETENTION_DAYS * DAY;
  const latest: Figures = {};
  /** per pair that may count either way: what counting its earlier answer instead changes */
  const swaps: Figures[] = [];
  for (const postcode of compact(list)) {
    const answers = finals(returned, lookup, postcode);
    const newest = answerFigures(lookup, answers.at(-1), cutoff);
    addInto(latest, newest);
    if (eitherWay.has(postcode) && answers.at(-1)?.tag === night) {
      const swap = answerFigures(lookup, answers.filter((r) => r.tag < night).at(-1), cutoff);
      addInto(swap, Object.fromEntries(Object.entries(newest).map(([k, v]) => [k, -v])));
      swaps.push(swap);
    }
  }
  expect(swaps.length, `${lookup}: pairs that may count either way`).toBeLessThanOrEqual(MAX_EITHER_WAY);
  for (let mask = 0; mask < 1 << swaps.length; mask++) {
    const f: Figures = { ...latest };
    swaps.forEach((swap, i) => mask & (1 << i) && addInto(f, swap));
    if (JSON.stringify(pick(f, stated)) === JSON.stringify(stated)) return { ok: true, expected: pick(latest, stated) };
  }
  return { ok: false, expected: pick(latest, stated) };
}

/** What this test reads of summary.json. */
interface Summary {
  generatedAt: string;
  broadband: Record<"addresses" | "belowDecent" | "belowSuperfast" | "superfast" | "ultrafast" | "gigabit" | "noData", number>;
  mobile: {
    addresses: number;
    indoorVoice: { totalNotspots: number; partialNotspots: number };
    indoorData: { totalNotspots: number; partialNotspots: number };
    providers: Record<string, { indoorVoiceNotspots: number; indoorDataNotspots: number }>;
  };
}

/** The same figures as summary.json states them (a figure it leaves out stays undefined, and differs). */
function statedFigures(summary: Summary) {
  const b = summary.broadband;
  const m = summary.mobile;
  const bb: Record<string, number> = {
    addresses: b.addresses,
    BelowDecent: b.belowDecent,
    BelowSuperfast: b.belowSuperfast,
    Superfast: b.superfast,
    Ultrafast: b.ultrafast,
    Gigabit: b.gigabit,
    NoData: b.noData,
  };
  const mb: Record<string, number> = {
    addresses: m.addresses,
    IndoorVoiceTotalNotspots: m.indoorVoice.totalNotspots,
    IndoorVoicePartialNotspots: m.indoorVoice.partialNotspots,
    IndoorDataTotalNotspots: m.indoorData.totalNotspots,
    IndoorDataPartialNotspots: m.indoorData.partialNotspots,
  };
  for (const p of PROVIDERS) {
    mb[`${p}IndoorVoiceNotspots`] = m.providers[p]!.indoorVoiceNotspots;
    mb[`${p}IndoorDataNotspots`] = m.providers[p]!.indoorDataNotspots;
  }
  return { bb, mb };
}

async function month(engine: Engine): Promise<void> {
  const d = tempDir("pcc-month-");
  dirs.push(d);
  const db = await engine.db(d);
  const input = (n: number) => writeCsv(d, "in.csv", ["postcode", ...listOf(n)]);
  const clock = new WholeMsClock(nightAt(0));
  const start = (s: Service) => startSimulator({ port: 0, seed: SEED, key: KEY, release: s.release, mobileScale: s.mobileScale, failRate: s.failRate, now: () => clock.t });
  let current = service(0);
  let sim: Simulator = await start(current);
  const proxy: RecordingProxy = await startRecordingProxy(sim.url, () => clock.t);
  const flags = {
    db,
    baseUrl: proxy.url,
    concurrency: 2,
    monthlyQuota: String(QUOTA),
    quotaPeriod: String(QUOTA_DAYS),
    quotaStart: new Date(QUOTA_START).toISOString().slice(0, 10),
  };
  const env = { COVERAGE_API_KEY: KEY };
  const out = join(d, "out");
  /** the second machine's reports */
  const outB = join(d, "out-b");
  const exported = join(d, "export");
  try {
    for (let n = 0; n < NIGHTS; n++) {
      const night = `night ${n} (${engine.name})`;
      if (JSON.stringify(service(n)) !== JSON.stringify(current)) {
        await sim.close();
        current = service(n);
        sim = await start(current);
        proxy.target = sim.url;
      }
      clock.t = nightAt(n);
      proxy.tag = n;
      for (const o of [out, outB]) rmSync(o, { recursive: true, force: true });
      // Ctrl-C: SIGINT reaches the batch in the middle of its fetching
      proxy.onRequest = n === CTRL_C_NIGHT ? (seen) => void (seen === 12 && process.emit("SIGINT", "SIGINT")) : null;
      const reports = REPORT_NIGHTS.has(n);
      const tonight = { ...flags, in: input(n) };
      const ctrlC = n === CTRL_C_NIGHT;
      const main = runIn(d, { ...tonight, out, reports }, env, { clock, handleSignals: ctrlC });
      // On SQLite either machine may take the database first: the Ctrl-C stops whichever does.
      const runs: HarnessRun[] = TWO_MACHINE_NIGHTS.has(n)
        ? await Promise.all([main, runIn(d, { ...tonight, out: outB, reports }, env, { clock, handleSignals: ctrlC && !engine.team })])
        : [await main];
      proxy.onRequest = null;
      // a second machine on SQLite is refused while the first holds the database (or finds nothing left)
      const refused = (r: HarnessRun) => !engine.team && r.runId === null && r.logs.some((l) => l.includes('"stopReason":"locked"'));
      const stopped = engine.team ? runs[0]! : runs.find((r) => !refused(r))!;
      if (ctrlC) expect(stopped.exitCode, `${night}: ${stopped.logs.filter((l) => l.includes('"error"')).join("\n")}`).toBe(130);
      if (runs.length === 2 && !engine.team) expect(runs.filter(refused).length, night).toBeLessThan(2);
      for (const r of runs) if (!refused(r)) expect(r.exitCode, `${night}: ${r.logs.filter((l) => l.includes('"error"')).join("\n")}`).not.toBe(1);

      // the export of everything stored, as a user would run it after the night
      rmSync(exported, { recursive: true, force: true });
      if (reports) {
        const store = await openStore(db, { readonly: true });
        try {
          await writeExport(store, { outDir: exported, all: true, format: "csv", nowMs: clock.t });
        } finally {
          await store.close();
        }
      }

      // no pair answered twice in a night, whichever machine asked
      const answered = proxy.returned.filter((r) => r.tag === n && (r.status === 200 || r.status === 404));
      const pairs = answered.map((r) => `${r.lookup}:${r.postcode}`);
      expect(pairs.length - new Set(pairs).size, `${night}: pairs answered twice`).toBe(0);

      // requests within the quota, per lookup and 28-day period (everything the API received)
      for (const lookup of ["broadband", "mobile"] as const)
        for (let period = 0; period * QUOTA_DAYS * DAY <= clock.t - QUOTA_START; period++) {
          const from = QUOTA_START + period * QUOTA_DAYS * DAY;
          const sent = proxy.sent.filter((s) => s.lookup === lookup && s.at >= from && s.at < from + QUOTA_DAYS * DAY).length;
          expect(sent, `${night}: ${lookup} requests in period ${period}`).toBeLessThanOrEqual(QUOTA);
        }

      // no text the API returned longer ago than the retention, anywhere
      const cutoff = nightAt(n) - RETENTION_DAYS * DAY;
      const last = lastReturned(proxy.returned);
      const oldAddresses = oldTexts(last.addresses, cutoff, 12);
      const oldAny = [...oldAddresses, ...oldTexts(last.uprns, cutoff, 9)];
      const found: string[] = [];
      // the database's own files, as bytes (UPRNs are stored as numbers there: addresses only)
      for (const file of engine.files(db)) found.push(...textsIn(readFileSync(file).toString("latin1"), oldAddresses).map((t) => `${file}: ${t}`));
      const held = await storedTables(db, ["postcodes", "broadband", "mobile", "versions", "releases"], { all: true, nowMs: T0 - DAY });
      const stored = { tables: [held.postcodes, held.broadband, held.mobile, held.versions], releases: held.releases };
      // what the store holds, read at a clock before any answer expired: what a reader would hide counts as held
      found.push(...textsIn(JSON.stringify(stored.tables), oldAny).map((t) => `stored: ${t}`));
      // every version of every answer is as old as when the API last returned it
      for (const v of stored.tables[3]!)
        if (Date.parse(String(v.last_seen)) < cutoff) found.push(`version ${String(v.id)} of ${String(v.postcode)} ${String(v.lookup)} last seen ${String(v.last_seen)}`);
      for (const file of [...filesUnder(out), ...filesUnder(outB), ...filesUnder(exported)])
        found.push(...textsIn(readable(file).toString("utf8"), oldAny).map((t) => `${file.slice(d.length + 1)}: ${t}`));
      // nothing on a provisional release once a name is known
      const releases = stored.releases.filter((r) => r.lookup === "mobile").map((r) => String(r.name));
      if (releases.some((r) => !/^\d{4}-\d{2}-\d{2}/.test(r))) expect(releases.filter((r) => /^\d{4}-\d{2}-\d{2}/.test(r)), night).toEqual([]);
      const onUnknown = stored.tables[3]!.filter((v) => v.lookup === "mobile" && !releases.includes(String(v.release)));
      expect(onUnknown.map((v) => String(v.release)), `${night}: versions on a release that is gone`).toEqual([]);

      expect(found, `${night}: API text older than the retention still held: ${found.length} (${found.slice(0, 3).join("; ")})`).toEqual([]);

      // every headline figure equals our own count over the answers still young, in each machine's reports
      const written = [out, outB].map((o, i) => ({ path: join(o, "summary.json"), run: runs[i] })).filter((w) => w.run && existsSync(w.path));
      if (reports) expect(written.length, night).toBeGreaterThan(0);
      for (const { path, run } of written) {
        const summary = readSummaryJson<Summary>(path);
        const stated = statedFigures(summary);
        for (const lookup of ["broadband", "mobile"] as const) {
          // pairs whose last writer was another run (the store's postcodes table): those answered tonight may count either way
          const eitherWay = new Set(stored.tables[0]!.filter((r) => r.lookup === lookup && Number(r.run_id) !== run!.runId).map((r) => String(r.postcode)));
          const figures = lookup === "broadband" ? stated.bb : stated.mb;
          const { ok, expected } = matchesOurCount(lookup, figures, proxy.returned, listOf(n), Date.parse(summary.generatedAt), n, runs.length === 2 ? eitherWay : new Set());
          expect(ok, `${night}: ${path.slice(d.length + 1)} ${lookup} ${JSON.stringify(figures)} against our count ${JSON.stringify(expected)}`).toBe(true);
        }
      }
    }
    // the month went through what it is meant to: requests every night but in the outage, a Ctrl-C, both scales, 500s
    const statuses = new Set(proxy.returned.map((r) => r.status));
    expect(statuses.has(500), "the week of 500s").toBe(true);
    // mobile 404s, which name no release (on the first nights before any answer named one, when the order allows)
    expect(proxy.returned.some((r) => r.lookup === "mobile" && r.status === 404), "mobile 404s").toBe(true);
    expect(new Set(proxy.returned.filter((r) => r.status === 200 && r.lookup === "mobile").map((r) => service(r.tag).mobileScale)).size).toBe(2);
  } finally {
    await proxy.close();
    await sim.close();
  }
}

/** `from`'s values under `like`'s keys, in `like`'s order (0 when missing). */
function pick(from: Record<string, number>, like: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.keys(like).map((k) => [k, from[k] ?? 0]));
}

const SQLITE: Engine = {
  name: "SQLite",
  db: async (dir) => join(dir, "coverage.sqlite"),
  files: (db) => ["", "-wal", "-journal"].map((s) => db + s).filter((p) => existsSync(p)),
  team: false,
};

const POSTGRES: Engine = {
  name: "PostgreSQL",
  db: () => freshPostgresDatabase({ schema: true }),
  files: () => [],
  team: true,
};

describe("a month of nights", () => {
  it("on SQLite", async () => {
    await month(SQLITE);
  }, 120_000);
});

describe.skipIf(requiresPostgres().skip)("a month of nights on PostgreSQL", () => {
  it("on PostgreSQL, two machines on some nights", async () => {
    await month(POSTGRES);
  }, 180_000);
});
