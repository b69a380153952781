// The retention over the nights a database lives through, on both engines, every night of a
// scenario on one injected clock: an answer's age is when the API last returned it. Old versions
// go when they are past the retention, though the answer they belong to is kept; a failed refresh
// never makes an answer younger, so its content goes on time and the postcode shows as expired.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import ExcelJS from "exceljs";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { generatePostcode, generatePostcodes, startSimulator, type Simulator } from "../src/simulator/index.js";
import { writeExport } from "../src/export/write-export.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { FakeClock } from "./helpers/fake-clock.js";
import { dropPostgresDatabase, freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";
import { storedTable, withStore } from "./helpers/stored.js";

const KEY = "kq-5d1e-Qx-77Zb-3f0a-9c1d";
const env = { COVERAGE_API_KEY: KEY };
const [SEED, OTHER_SEED] = [29, 31];
const DAY = 24 * 3600 * 1000;
const DEC_1 = Date.parse("2026-12-01T02:00:00Z");
const DEC_21 = Date.parse("2026-12-21T02:00:00Z");
const JAN_10 = Date.parse("2027-01-10T02:00:00Z");
// postcodes both simulators answer with addresses: a second seed changes every answer
const LIST = generatePostcodes(SEED, 12).filter((p) => generatePostcode(OTHER_SEED, p) !== null);

/** The scenario's one clock, in whole milliseconds as a real one is (PostgreSQL keeps times as integers). */
class NightClock extends FakeClock {
  override sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return super.sleep(Math.ceil(ms), signal);
  }
}

const dirs: string[] = [];
const sims: Simulator[] = [];
const databases: string[] = [];
afterEach(async () => {
  while (sims.length > 0) await sims.pop()!.close();
});
afterAll(async () => {
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  for (const url of databases) await dropPostgresDatabase(url);
});

async function sim(options: { seed?: number; failRate?: number; clock: FakeClock }): Promise<Simulator> {
  const s = await startSimulator({ port: 0, seed: options.seed ?? SEED, key: KEY, release: 1, failRate: options.failRate ?? 0, now: () => options.clock.now() });
  sims.push(s);
  return s;
}

interface Engine {
  name: string;
  skip: boolean;
  /** a new database: its location and whether its files can be read (SQLite) */
  database(dir: string): Promise<{ db: string; file: string | null }>;
}

const ENGINES: Engine[] = [
  { name: "sqlite", skip: false, database: async (dir) => ({ db: join(dir, "coverage.sqlite"), file: join(dir, "coverage.sqlite") }) },
  {
    name: "postgres",
    skip: requiresPostgres().skip,
    database: async () => {
      const url = await freshPostgresDatabase();
      databases.push(url);
      return { db: url, file: null };
    },
  },
];

/** The address texts of the latest answers, read as at `nowMs`. */
async function latestAddresses(db: string, nowMs: number): Promise<string[]> {
  const rows = [...(await storedTable(db, "broadband", { all: true, nowMs })), ...(await storedTable(db, "mobile", { all: true, nowMs }))];
  return rows.map((r) => String(r.AddressShortDescription));
}

/** Every address text the store holds (the latest answers' and old versions' content), read as at `nowMs`. */
async function addressTexts(db: string, nowMs: number): Promise<string[]> {
  const versions = (await storedTable(db, "versions", { all: true, nowMs })).flatMap((v) => (v.content ? (JSON.parse(String(v.content)) as unknown[][]) : []));
  return [...(await latestAddresses(db, nowMs)), ...versions.map((row) => String(row[1]))];
}

/** Texts of `earlier` that no text of `later` holds, long enough not to be found by chance. */
function onlyIn(earlier: readonly string[], later: readonly string[]): string[] {
  return [...new Set(earlier)].filter((a) => a.length >= 12 && !later.some((k) => k.includes(a)));
}

/** Every file below `dir` (hidden folders and symlinked ones included), as text: a workbook as its cells' values. */
async function filesText(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string): Promise<void> => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) await walk(path);
      else if (name.endsWith(".xlsx")) {
        const book = new ExcelJS.Workbook();
        await book.xlsx.readFile(path);
        const cells: string[] = [];
        book.eachSheet((sheet) => sheet.eachRow((row) => row.eachCell((cell) => void cells.push(typeof cell.value === "string" ? cell.value : JSON.stringify(cell.value)))));
        out.set(path, cells.join("\n"));
      } else out.set(path, readFileSync(path, "latin1"));
    }
  };
  await walk(dir);
  return out;
}

/** The texts found in any of the files. */
async function foundIn(dir: string, texts: readonly string[]): Promise<string[]> {
  const files = [...(await filesText(dir)).values()];
  return texts.filter((t) => files.some((f) => f.includes(t)));
}

/** The texts found in the bytes of a SQLite database's files (main, -wal, -journal). */
function foundInDatabaseFiles(file: string, texts: readonly string[]): string[] {
  const bytes = ["", "-wal", "-journal"].map((s) => file + s).filter((p) => existsSync(p)).map((p) => readFileSync(p));
  return texts.filter((t) => bytes.some((b) => b.includes(Buffer.from(t, "utf8"))));
}

async function exportAll(db: string, outDir: string, nowMs: number): Promise<void> {
  await withStore(db, (store) => writeExport(store, { outDir, all: true, format: "csv", nowMs }));
}

describe.each(ENGINES)("retention over a month ($name)", (engine) => {
  it.skipIf(engine.skip)("Dec 1 fetch, Dec 21 --refresh changing every answer, Jan 10: no Dec 1 version anywhere, the Dec 21 answers kept", async () => {
    const d = tempDir("pcc-month-changed-");
    dirs.push(d);
    const { db, file } = await engine.database(d);
    const clock = new NightClock(DEC_1);
    const input = writeCsv(d, "in.csv", ["postcode", ...LIST]);
    const first = await sim({ clock });
    const night1 = await runIn(d, { db, in: input, baseUrl: first.url, reports: false }, env, { clock });
    expect(night1.exitCode, night1.logs.join("\n")).toBe(0);
    const dec1 = await latestAddresses(db, clock.now());

    clock.t = DEC_21;
    const changed = await sim({ seed: OTHER_SEED, clock });
    expect((await runIn(d, { db, in: input, baseUrl: changed.url, refresh: true }, env, { clock })).exitCode).toBe(0);
    // within the month, changes.csv compares each answer with its Dec 1 version
    const changes = parse(readFileSync(join(d, "out", "changes.csv")), { columns: true, bom: true }) as Record<string, string>[];
    expect(new Set(changes.map((c) => c.PostCode)).size).toBe(LIST.length);
    const dec21 = await latestAddresses(db, clock.now());
    const gone = onlyIn(dec1, dec21);
    // before the night, the old versions hold them
    expect((await addressTexts(db, clock.now())).filter((a) => gone.includes(a)).length).toBeGreaterThan(0);
    expect(gone.length).toBeGreaterThan(5);
    // every answer changed: each pair has its Dec 1 version and its Dec 21 one
    const versions = await storedTable(db, "versions", { all: true, nowMs: clock.now() });
    expect(versions).toHaveLength(2 * 2 * LIST.length);

    clock.t = JAN_10;
    const night = await runIn(d, { db, in: input, baseUrl: changed.url }, env, { clock });
    expect(night.exitCode).toBe(0);
    expect(night.logs.join("\n")).toMatch(new RegExp(`retention: deleted 0 answer\\(s\\) and ${2 * LIST.length} version\\(s\\)`));
    // read as at Dec 1, when nothing was hidden: only what was deleted is missing
    const left = await storedTable(db, "versions", { all: true, nowMs: DEC_1 });
    expect(left).toHaveLength(2 * LIST.length);
    expect(left.every((v) => String(v.first_seen) >= new Date(DEC_21).toISOString().slice(0, 10))).toBe(true);
    expect(await addressTexts(db, DEC_1)).toEqual(expect.arrayContaining(onlyIn(dec21, dec1).slice(0, 3)));
    expect(gone.filter((a) => dec21.includes(a))).toEqual([]);
    expect((await addressTexts(db, DEC_1)).filter((a) => gone.includes(a))).toEqual([]);
    if (file) expect(foundInDatabaseFiles(file, gone)).toEqual([]);
    const exported = join(d, "export");
    await exportAll(db, exported, clock.now());
    expect(existsSync(join(exported, "versions.csv"))).toBe(true);
    expect(await foundIn(exported, gone)).toEqual([]);
    expect(await foundIn(join(d, "out"), gone)).toEqual([]);
  });

  it.skipIf(engine.skip)("Dec 1 fetch, Dec 21 --refresh against 500s, Jan 10 still failing: the Dec 1 answers expired and gone, shown as expired", async () => {
    const d = tempDir("pcc-month-failing-");
    dirs.push(d);
    const { db, file } = await engine.database(d);
    const clock = new NightClock(DEC_1);
    const input = writeCsv(d, "in.csv", ["postcode", ...LIST]);
    const good = await sim({ clock });
    expect((await runIn(d, { db, in: input, baseUrl: good.url, reports: false }, env, { clock })).exitCode).toBe(0);
    const dec1 = [...new Set(await latestAddresses(db, clock.now()))].filter((a) => a.length >= 12);
    expect(dec1.length).toBeGreaterThan(5);

    clock.t = DEC_21;
    const failing = await sim({ failRate: 1, clock });
    const refresh = await runIn(d, { db, in: input, baseUrl: failing.url, refresh: true, reports: false, retries: 0 }, env, { clock });
    expect(refresh.exitCode).not.toBe(0);
    const pc = LIST[0]!.replace(" ", "");
    await withStore(db, async (store) => {
      const answer = (await store.answers.get(pc, "broadband"))!;
      // the failure is recorded, but the answer is as old as when the API last returned it
      if (answer.status === "failed") expect(answer.fetchedAt >= new Date(DEC_21).toISOString()).toBe(true);
      expect(answer.returnedAt! < new Date(DEC_1 + DAY).toISOString()).toBe(true);
    });
    const failedPairs = (await storedTable(db, "postcodes", { all: true, nowMs: clock.now() })).filter((p) => p.status === "failed");
    expect(failedPairs.length).toBeGreaterThan(0);

    clock.t = JAN_10;
    const night = await runIn(d, { db, in: input, baseUrl: failing.url, retries: 0 }, env, { clock });
    expect(night.logs.join("\n")).toMatch(new RegExp(`retention: deleted ${2 * LIST.length} answer\\(s\\)`));
    // nothing of Dec 1 in the database (read as at Dec 1, when nothing was hidden), its files, the reports or the export
    expect((await addressTexts(db, DEC_1)).filter((a) => dec1.includes(a))).toEqual([]);
    if (file) expect(foundInDatabaseFiles(file, dec1)).toEqual([]);
    const out = join(d, "out");
    for (const name of ["broadband.csv", "mobile.csv", "coverage.csv", "coverage.xlsx"]) expect(existsSync(join(out, name)), name).toBe(true);
    expect(await foundIn(out, dec1)).toEqual([]);
    const exported = join(d, "export");
    await exportAll(db, exported, clock.now());
    expect(await foundIn(exported, dec1)).toEqual([]);
    // each postcode is expired, awaiting refresh, not failed
    const rows = parse(readFileSync(join(out, "postcodes.csv")), { columns: true, bom: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.BroadbandStatus, r.MobileStatus])).toEqual(LIST.map(() => ["expired", "expired"]));
    // the same as a reader sees it without the batch, at the same clock
    await withStore(db, async (store) => {
      const lookups = (await store.status.database(5, clock.now())).lookups;
      expect(lookups.filter((l) => l.status !== "failed")).toEqual([]);
    });
  });
});
