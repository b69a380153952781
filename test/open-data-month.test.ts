// Issue 25 end to end: a list larger than a month's quota, with the simulator's own open data
// (published as Ofcom's are: zip in a zip, BOM, CRLF). Nightly runs over simulated months (an
// injected clock, no sleeping) with --monthly-quota: from night one every postcode has a figure in
// postcodes.csv (the API's or Ofcom's), and the quota goes to postcodes whose premises fall in more
// than one speed band before those Ofcom's files put wholly in one. The bands expected are counted
// here from the simulator's addresses, not read back from the import.
import { openStore } from "../src/store/open-store.js";
import { storedTable } from "./helpers/stored.js";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, describe, expect, it } from "vitest";
import { generatePostcode, generatePostcodes, simulatedOpenDataArchive, startSimulator } from "../src/simulator/index.js";
import { openDataStatus } from "../src/plan/open-data-status.js";
import { formatOpenDataStatus } from "../src/cli/status-text.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { FakeClock } from "./helpers/fake-clock.js";
import { readSummaryJson } from "./helpers/summary-json.js";

const KEY = "open-data-key-5e1d";
const SEED = 29;
const QUOTA = 30;
const DAY = 24 * 3600 * 1000;
const env = { COVERAGE_API_KEY: KEY };
const d = tempDir("pcc-open-month-");
afterAll(() => rmSync(d, { recursive: true, force: true }));

/** How many of the six speed bands (0<2, 2<5, 5<10, 10<30, 30<300, 300+) a postcode's simulated addresses fall in. */
function bandsOf(postcode: string): number {
  const edges = [0, 2, 5, 10, 30, 300, Infinity];
  const downs = generatePostcode(SEED, postcode)!.addresses.map((a) => a.speeds.MaxPredictedDown);
  return edges.slice(0, -1).filter((from, i) => downs.some((d) => d >= from && d < edges[i + 1]!)).length;
}

describe("open data beside the API over a month of nights", () => {
  it("gives every postcode a figure on night one and spends the quota on multi-band postcodes first", async () => {
    // postcodes the simulator knows (the others have no premises in its open data and a 404 from its API)
    const list = generatePostcodes(SEED, 100).filter((p) => generatePostcode(SEED, p) !== null).slice(0, 80);
    const multi = new Set(list.filter((p) => bandsOf(p) > 1).map((p) => p.replace(" ", "")));
    const single = new Set(list.filter((p) => bandsOf(p) === 1).map((p) => p.replace(" ", "")));
    // enough of each for the order to show: more multi-band postcodes than one month's quota
    expect(multi.size).toBeGreaterThan(QUOTA);
    expect(single.size).toBeGreaterThan(10);
    const archive = simulatedOpenDataArchive(SEED, list);
    writeFileSync(join(d, archive.name), archive.bytes);
    const input = writeCsv(d, "in.csv", ["postcode", ...list]);
    const dbPath = join(d, "coverage.sqlite");
    const clock = new FakeClock(Date.parse("2026-03-01T02:00:00Z"));
    const sim = await startSimulator({ port: 0, seed: SEED, key: KEY });
    const fetchedBy = new Map<string, number>(); // postcode → night
    try {
      for (let night = 0; night < 62; night++) {
        clock.t = Date.parse("2026-03-01T02:00:00Z") + night * DAY;
        // --retention none: this list outgrows the quota, and the order of first answers is what is tested here
        const flags = { in: input, baseUrl: sim.url, lookups: "broadband", monthlyQuota: String(QUOTA), openData: join(d, archive.name), probe: 0, retention: "none" };
        const r = await runIn(d, { ...flags, reports: night === 0 }, env, { clock });
        const store = await openStore(dbPath, { readonly: true });
        try {
          const answers = await storedTable(store, "postcodes");
          const fetched = answers.filter((l) => l.lookup === "broadband" && l.run_id === r.runId).map((l) => l.postcode as string);
          for (const p of fetched) if (!fetchedBy.has(p)) fetchedBy.set(p, night);
          if (night === 0) {
            // the plan said how many of each wait, and status says what remains
            const plan = r.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((e) => e.event === "plan_open_data")!;
            expect(plan).toMatchObject({ multiBand: multi.size, singleBand: single.size, notListed: list.length - multi.size - single.size });
            const status = (await openDataStatus(store))!;
            expect(status.newPostcodes).toEqual({ multiBand: multi.size - QUOTA, singleBand: single.size, notListed: list.length - multi.size - single.size });
            expect(formatOpenDataStatus(status)).toContain(
              `broadband: ${list.length - QUOTA} postcodes of the last input still without a first answer: ${multi.size - QUOTA} in more than one speed band (first), ${single.size} wholly in one`,
            );
            // the first night spends the month's quota, all of it on multi-band postcodes
            expect(fetched).toHaveLength(QUOTA);
            for (const p of fetched) expect(multi.has(p), p).toBe(true);
            expect(r.logs.some((l) => l.includes("not read again"))).toBe(false);
          } else expect(r.logs.some((l) => l.includes("not read again")), `night ${night}`).toBe(true);
        } finally {
          await store.close();
        }
        if (night === 0) {
          // night one: every postcode has a figure, from the API or from Ofcom's files
          const rows = parse(readFileSync(join(d, "out", "postcodes.csv"), "utf8"), { columns: true, bom: true }) as Record<string, string>[];
          expect(rows).toHaveLength(list.length);
          for (const row of rows) {
            const fromApi = row.BroadbandStatus === "ok" && Number(row.BroadbandAddresses) > 0;
            expect(fromApi || (row.OfcomDataMonth === "2026-01" && row.OfcomSuperfast !== ""), row.PostCode).toBe(true);
          }
          expect(rows.filter((row) => row.BroadbandStatus === "pending")).toHaveLength(list.length - QUOTA);
          const summary = readSummaryJson<{ openData: { withoutApi: { postcodes: number; inOpenData: number } } }>(join(d, "out", "summary.json"));
          expect(summary.openData.withoutApi).toMatchObject({ postcodes: list.length - QUOTA, inOpenData: list.length - QUOTA });
        }
      }
    } finally {
      await sim.close();
    }
    // everything answered within three quota periods, and never a single-band postcode before a multi-band one
    expect(fetchedBy.size).toBe(list.length);
    const lastMulti = Math.max(...[...multi].map((p) => fetchedBy.get(p)!));
    const firstSingle = Math.min(...[...single].map((p) => fetchedBy.get(p)!));
    expect(lastMulti).toBeLessThanOrEqual(firstSingle);
    // each month's quota on its first night: March 1, April 1, May 1
    expect(new Set(fetchedBy.values())).toEqual(new Set([0, 31, 61]));
  }, 120_000);
});
