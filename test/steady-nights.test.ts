// Every promised date kept: 100 nights over one injected clock, on each engine, against the
// simulator. A list the quota answers in part (it grows on night 10; on nights 50 to 84 it is beyond
// what the quota keeps answered), a 28-day quota period, a month's retention. After every night the
// promises of the reports' source (answerPaces: "the other N by DATE") and of `status` ("within
// --max-age by DATE") are noted; on each promised night, after its run, every postcode of the list
// holds an answer (when the list is as it was the night the promise was made). A list beyond its capacity is promised nothing, and its reports say so.
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generatePostcode, generatePostcodes, startSimulator } from "../src/simulator/index.js";
import { LOOKUPS, type Lookup } from "../src/contract/fields.js";
import { openStore } from "../src/store/open-store.js";
import { answerPaces } from "../src/plan/answer-pace.js";
import { quotaStatus } from "../src/plan/quota-status.js";
import { storedAnswers } from "../src/plan/night-promise.js";
import type { EstimatesJson } from "../src/report/json/summary-json.js";
import { readSummaryJson } from "./helpers/summary-json.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { FakeClock } from "./helpers/fake-clock.js";
import { freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";

const KEY = "steady-key-5d1f-Qa2-7c40";
const SEED = 23;
const DAY = 24 * 3600 * 1000;
const NIGHTS = 100;
const QUOTA = 40;
const T0 = Date.UTC(2026, 10, 1) + 2 * 3600 * 1000;
const KNOWN = generatePostcodes(SEED, 200).filter((p) => generatePostcode(SEED, p) !== null);
/** 25 postcodes, 41 from night 10 (the capacity: one waits for the next period), 100 on nights 50 to 84 (beyond it, and beyond what a period's first night can hold for a moment) */
const listOf = (n: number) => KNOWN.slice(0, n < 10 ? 25 : n >= 50 && n < 85 ? 100 : 41);
/** nights that write the reports: their summary.json must carry the same promise, or the capacity's words */
const REPORT_NIGHTS = new Set([10, 30, 52, 75, 90]);

class WholeMsClock extends FakeClock {
  override now(): number {
    return Math.floor(this.t);
  }
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

interface Promise_ {
  made: number;
  lookup: Lookup;
  by: string;
  what: "report" | "status";
}

async function rehearsal(db: string, d: string): Promise<void> {
  const clock = new WholeMsClock(T0);
  const sim = await startSimulator({ port: 0, seed: SEED, key: KEY, now: () => clock.t });
  const flags = { db, baseUrl: sim.url, concurrency: 2, monthlyQuota: String(QUOTA), quotaPeriod: "28", quotaStart: day(T0) };
  const promises: Promise_[] = [];
  const kept: Promise_[] = [];
  let beyondNights = 0;
  try {
    for (let n = 0; n < NIGHTS; n++) {
      clock.t = T0 + n * DAY;
      const out = join(d, "out");
      rmSync(out, { recursive: true, force: true });
      const reports = REPORT_NIGHTS.has(n);
      const r = await runIn(d, { ...flags, in: writeCsv(d, "in.csv", ["postcode", ...listOf(n)]), out, reports }, { COVERAGE_API_KEY: KEY }, { clock });
      expect(r.exitCode, `night ${n}`).not.toBe(1);
      const store = await openStore(db, { readonly: true });
      try {
        const last = (await store.runs.lastSettings())!;
        const tonight = day(clock.t);
        const unanswered = { broadband: 0, mobile: 0 };
        // the promises due tonight: every postcode of the list holds an answer after the run
        for (const lookup of LOOKUPS) {
          const { listSize, answers } = await storedAnswers(store, last, lookup, clock.t, 30 * DAY);
          unanswered[lookup] = listSize - answers.length;
          // a promise stands for as long as the list stays as it was
          for (const p of promises.filter((x) => x.lookup === lookup && x.by === tonight && listOf(x.made).length === listOf(n).length)) {
            expect(answers.length, `night ${n}: ${p.what} promised on night ${p.made} that every ${lookup} postcode is answered by ${p.by}`).toBe(listSize);
            kept.push(p);
          }
        }
        // tonight's promises, as a report written now and `status` would make them
        const paces = await answerPaces(store, clock.t + 60_000, LOOKUPS);
        for (const lookup of LOOKUPS) {
          const by = paces[lookup]?.answeredOn;
          // a report dates the rest only when some postcode waits
          if (by && by > tonight && unanswered[lookup] > 0) promises.push({ made: n, lookup, by, what: "report" });
        }
        const status = await quotaStatus(store, clock.t + 60_000);
        for (const q of status) if (q.finishDate && q.finishDate > tonight) promises.push({ made: n, lookup: q.lookup, by: q.finishDate, what: "status" });
        const beyond = listOf(n).length === 100;
        if (beyond) {
          beyondNights++;
          for (const lookup of LOOKUPS) expect(paces[lookup]?.answeredOn ?? null, `night ${n}: ${lookup} beyond the capacity`).toBeNull();
          for (const q of status) expect(q.finishDate).toBeNull();
        }
        if (reports) {
          const path = join(out, "summary.json");
          expect(existsSync(path), `night ${n}`).toBe(true);
          const e = readSummaryJson<{ estimates: EstimatesJson | null }>(path).estimates;
          if (e && !e.exact) {
            for (const lookup of LOOKUPS) {
              const b = e.lookups[lookup]!;
              if (b.unanswered > 0) expect(b.answeredBy, `night ${n}: ${lookup}'s report date`).toBe(beyond ? null : (paces[lookup]?.answeredOn ?? null));
            }
            if (beyond) expect(e.capacity?.sentences[0]).toMatch(/^About 41 of the list's 100 postcodes hold an answer at any time/);
          }
        }
      } finally {
        await store.close();
      }
    }
  } finally {
    await sim.close();
  }
  // the rehearsal made promises and saw them come due, and ran nights beyond the capacity
  expect(kept.filter((p) => p.what === "report").length, "report promises kept").toBeGreaterThan(0);
  expect(kept.filter((p) => p.what === "status").length, "status promises kept").toBeGreaterThan(0);
  expect(beyondNights).toBe(35);
  console.log(`promises kept: ${kept.length} (${kept.filter((p) => p.what === "report").length} of the reports), made: ${promises.length}`);
}

describe("every promised date kept, over 100 nights", () => {
  it("on SQLite", async () => {
    const d = tempDir("pcc-steady-");
    dirs.push(d);
    await rehearsal(join(d, "coverage.sqlite"), d);
  }, 240_000);
});

describe.skipIf(requiresPostgres().skip)("every promised date kept, over 100 nights, on PostgreSQL", () => {
  it("on PostgreSQL", async () => {
    const d = tempDir("pcc-steady-");
    dirs.push(d);
    await rehearsal(await freshPostgresDatabase({ schema: true }), d);
  }, 240_000);
});
