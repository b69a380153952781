// A year of real batch nights for a list beyond its capacity, on each engine, against the simulator
// over loopback: 80 postcodes in 4 districts of unequal size (sorted by district, as councils'
// files are), 22 requests per lookup per 28 days (a capacity of 22), a month's retention; a night
// every 7 days over 365 days, each quota period's first night among them. After every night the
// stored answers are read as the next night's planner reads them: each district holds its share of
// the answered postcodes (the estimates' stratified sample), both lookups hold the same postcodes,
// at least the capacity's "about N" of them hold an answer, and no report or `status` names a date.
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startSimulator } from "../src/simulator/index.js";
import { LOOKUPS, type Lookup } from "../src/contract/fields.js";
import { compactPostcode } from "../src/contract/postcode.js";
import { openStore } from "../src/store/open-store.js";
import { answerPaces } from "../src/plan/answer-pace.js";
import { quotaStatus } from "../src/plan/quota-status.js";
import { lastRunCandidates } from "../src/plan/night-promise.js";
import { postcodeStratum } from "../src/plan/sample-order.js";
import type { EstimatesJson } from "../src/report/json/summary-json.js";
import { readSummaryJson } from "./helpers/summary-json.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { FakeClock } from "./helpers/fake-clock.js";
import { freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";

const KEY = "steady-year-key-8b2e-Rk4";
const SEED = 61;
const DAY = 24 * 3600 * 1000;
const WEEKS = 53;
const QUOTA = 22;
/** the capacity of QUOTA a 28-day period under a month's retention (src/plan/capacity.ts) */
const CAPACITY = 22;
const T0 = Date.UTC(2027, 0, 4) + 2 * 3600 * 1000;
const DISTRICTS = { CF10: 32, LD3: 24, SA41: 16, NP8: 8 } as const;
const LETTERS = [..."ABDEFGHJLNPQRSTUWXYZ"];
const LIST = Object.entries(DISTRICTS).flatMap(([district, n]) => Array.from({ length: n }, (_, i) => `${district} ${i % 9}${LETTERS[Math.floor(i / 9)]}${LETTERS[(i * 7) % 20]}`));
const SIZE = new Map(Object.entries(DISTRICTS));
/** nights (weeks) that write the reports: their summary.json says the capacity's words and names no date */
const REPORT_WEEKS = new Set([0, 30]);

class WholeMsClock extends FakeClock {
  override now(): number {
    return Math.floor(this.t);
  }
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The postcodes holding an answer for the next night's planner: fetched, young or due, not deleted. */
async function heldPostcodes(db: string, lookup: Lookup, nowMs: number): Promise<Set<string>> {
  const store = await openStore(db, { readonly: true });
  try {
    const last = (await store.runs.lastSettings())!;
    const candidates = await lastRunCandidates(store, last, lookup, nowMs, 30 * DAY);
    expect(candidates.length).toBe(LIST.length);
    return new Set(candidates.filter((c) => c.fetchedAt !== null && ["fresh", "age", "release", "refresh"].includes(c.state)).map((c) => c.postcode));
  } finally {
    await store.close();
  }
}

/** The most a district's held postcodes stray from its share of them. */
function strayFromShares(held: ReadonlySet<string>): number {
  const count = new Map<string, number>();
  for (const p of held) count.set(postcodeStratum(p), (count.get(postcodeStratum(p)) ?? 0) + 1);
  return Math.max(...[...SIZE].map(([d, n]) => Math.abs((count.get(d) ?? 0) - (held.size * n) / LIST.length)));
}

async function year(db: string, d: string): Promise<void> {
  const clock = new WholeMsClock(T0);
  const sim = await startSimulator({ port: 0, seed: SEED, key: KEY, now: () => clock.t });
  const flags = { db, baseUrl: sim.url, concurrency: 2, monthlyQuota: String(QUOTA), quotaPeriod: "28", quotaStart: day(T0) };
  const input = writeCsv(d, "in.csv", ["postcode", ...LIST]);
  const sets = new Set<string>();
  const sizes: number[] = [];
  let stray = 0;
  try {
    for (let w = 0; w < WEEKS; w++) {
      clock.t = T0 + w * 7 * DAY;
      const out = join(d, "out");
      rmSync(out, { recursive: true, force: true });
      const reports = REPORT_WEEKS.has(w);
      const r = await runIn(d, { ...flags, in: input, out, reports }, { COVERAGE_API_KEY: KEY }, { clock });
      expect(r.exitCode, `week ${w}`).not.toBe(1);
      const held = await Promise.all(LOOKUPS.map((l) => heldPostcodes(db, l, clock.t + 60_000)));
      const [broadband, mobile] = held as [Set<string>, Set<string>];
      expect([...mobile].sort(), `week ${w}: both lookups hold the same postcodes`).toEqual([...broadband].sort());
      expect(broadband.size, `week ${w}: about ${CAPACITY} hold an answer at any time`).toBeGreaterThanOrEqual(CAPACITY);
      stray = Math.max(stray, strayFromShares(broadband));
      expect(strayFromShares(broadband), `week ${w}: each district's share of ${broadband.size} answered`).toBeLessThanOrEqual(1.5);
      sets.add([...broadband].sort().join());
      sizes.push(broadband.size);
      const store = await openStore(db, { readonly: true });
      try {
        const paces = await answerPaces(store, clock.t + 60_000, LOOKUPS);
        for (const lookup of LOOKUPS) expect(paces[lookup]?.answeredOn ?? null, `week ${w}: ${lookup}'s date for the rest`).toBeNull();
        for (const q of await quotaStatus(store, clock.t + 60_000)) expect(q.finishDate, `week ${w}: status's date`).toBeNull();
      } finally {
        await store.close();
      }
      if (reports) {
        const path = join(out, "summary.json");
        expect(existsSync(path), `week ${w}`).toBe(true);
        const e = readSummaryJson<{ estimates: EstimatesJson | null }>(path).estimates!;
        expect(e.exact).toBe(false);
        for (const lookup of LOOKUPS) expect(e.lookups[lookup]!.answeredBy).toBeNull();
        expect(e.capacity?.sentences[0]).toMatch(new RegExp(`^About ${CAPACITY} of the list's ${LIST.length} postcodes hold an answer at any time`));
      }
    }
  } finally {
    await sim.close();
  }
  // expired answers went unrefreshed and others came in their place: the sample moved, and at a
  // period's start the new answers stood beside the old for a while
  expect(sets.size).toBeGreaterThan(1);
  expect(Math.max(...sizes)).toBeGreaterThan(CAPACITY);
  console.log(`held ${Math.min(...sizes)}-${Math.max(...sizes)} of ${LIST.length}; ${sets.size} answered sets over ${WEEKS} weeks; a district at most ${stray.toFixed(1)} from its share`);
}

describe("a year of nights beyond the capacity, weekly", () => {
  it("list is valid", () => expect(LIST.every((p) => compactPostcode(p) !== null) && new Set(LIST).size === LIST.length).toBe(true));

  it("on SQLite", async () => {
    const d = tempDir("pcc-year-");
    dirs.push(d);
    await year(join(d, "coverage.sqlite"), d);
  }, 120_000);
});

describe.skipIf(requiresPostgres().skip)("a year of nights beyond the capacity, weekly, on PostgreSQL", () => {
  it("on PostgreSQL", async () => {
    const d = tempDir("pcc-year-");
    dirs.push(d);
    await year(await freshPostgresDatabase({ schema: true }), d);
  }, 120_000);
});
