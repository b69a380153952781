// Issue 11 end to end, over real HTTP to the simulator: a run on release 1, then the same input
// against release 2 with default flags inside --max-age. Probes notice the release, the next runs
// refresh exactly the answers on the older release, changes.csv lists exactly what the two
// releases' data (computed here from the simulator) says moved, and an unchanged re-fetch adds no
// version. Also --refresh resuming after --max-requests (issue 10.6).
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, describe, expect, it } from "vitest";
import { generatePostcode, generatePostcodes, releaseDbName, startSimulator, type SimAddress } from "../src/simulator/index.js";
import { openStore } from "../src/store/open-store.js";
import { writeReports, type Summary } from "../src/report/index.js";
import { DEFAULT_PROVIDERS, LOOKUPS, mobileFields, type Lookup } from "../src/contract/fields.js";
import { dayClock } from "./helpers/fake-clock.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { storedTable, withStore } from "./helpers/stored.js";
import { readSummaryJson } from "./helpers/summary-json.js";

const KEY = "history-key-5e2b";
const SEED = 11;
const env = { COVERAGE_API_KEY: KEY };
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function dir() {
  const d = tempDir("pcc-history-");
  dirs.push(d);
  return d;
}

// Tiers and the good line as docs/reports.md defines them, written out here so that the test
// does not reuse the code it checks.
function tier(a: SimAddress): string {
  const down = a.speeds.MaxPredictedDown;
  const up = a.speeds.MaxPredictedUp;
  if (down < 0) return "No data";
  if (down >= 1000) return "Gigabit";
  if (down >= 300) return "Ultrafast";
  if (down >= 30) return "Superfast";
  if (down >= 10 && up >= 1) return "Decent";
  return "Below decent";
}
// The simulator serves Ofcom's current 0/3/4 scale by default, whose good rating is 4 (Likely).
const GOOD = 4;

/** The rows changes.csv must hold for one postcode moving from release 1 to release 2. */
function expectedChanges(postcode: string): string[] {
  const before = generatePostcode(SEED, postcode, DEFAULT_PROVIDERS, 1);
  const after = generatePostcode(SEED, postcode, DEFAULT_PROVIDERS, 2);
  if (!before || !after) return [];
  const fields = mobileFields(DEFAULT_PROVIDERS);
  const b = new Map(before.addresses.map((a) => [a.UPRN, a]));
  const a = new Map(after.addresses.map((x) => [x.UPRN, x]));
  const rows: string[] = [];
  for (const lookup of LOOKUPS) {
    for (const uprn of b.keys()) if (!a.has(uprn)) rows.push(`${postcode}|${uprn}|${lookup}|address removed||`);
    for (const uprn of a.keys()) if (!b.has(uprn)) rows.push(`${postcode}|${uprn}|${lookup}|address added||`);
  }
  for (const [uprn, x] of a) {
    const y = b.get(uprn);
    if (!y) continue;
    if (tier(y) !== tier(x)) rows.push(`${postcode}|${uprn}|broadband|tier|${tier(y)}|${tier(x)}`);
    for (const p of DEFAULT_PROVIDERS)
      for (const [location, channel] of [["Indoor", "Voice"], ["Indoor", "Data"], ["Outdoor", "Voice"], ["Outdoor", "Data"]] as const) {
        const i = fields.indexOf(`${p}${channel}${location}`);
        const was = y.ratings[i]!;
        const now = x.ratings[i]!;
        if (was >= GOOD !== now >= GOOD)
          rows.push(`${postcode}|${uprn}|mobile|${p} ${location.toLowerCase()} ${channel.toLowerCase()}|${was}|${now}`);
      }
  }
  return rows;
}

/** Whether a lookup's stored content differs between the releases: each such pair is one new version. */
function contentChanged(postcode: string, lookup: Lookup): boolean {
  const view = (r: number) =>
    JSON.stringify(
      generatePostcode(SEED, postcode, DEFAULT_PROVIDERS, r)?.addresses.map((a) => [a.UPRN, a.AddressShortDescription, lookup === "broadband" ? a.speeds : a.ratings]),
    );
  return view(1) !== view(2);
}

describe("history: a new release between two runs", () => {
  it("probes detect it, the following runs refresh exactly the older answers, changes.csv lists exactly what moved", async () => {
    const postcodes = generatePostcodes(SEED, 150);
    const d = dir();
    const input = writeCsv(d, "in.csv", ["postcode", ...postcodes]);
    const dbPath = join(d, "coverage.sqlite");
    const sim1 = await startSimulator({ port: 0, seed: SEED, key: KEY, release: 1 });
    const first = await runIn(d, { in: input, baseUrl: sim1.url }, env);
    await sim1.close();
    expect(first.exitCode).toBe(0);
    const versionsAfterFirst = 2 * postcodes.length;
    const versions = async () => (await storedTable(dbPath, "versions")).length;
    // per lookup, each release with its answers, and the last run's input postcodes on the newest
    const releaseStatus = () => withStore(dbPath, (store) => store.status.releases(Date.now()));
    expect(await versions()).toBe(versionsAfterFirst);

    const sim2 = await startSimulator({ port: 0, seed: SEED, key: KEY, release: 2 });
    try {
      // the input's postcodes whose answer is not on the lookup's newest release (every one has an answer of each lookup)
      const stale = async (lookup: Lookup) => {
        const input = (await releaseStatus()).find((s) => s.lookup === lookup)?.input;
        return input ? input.postcodes - input.onNewest : 0;
      };
      const releases = async (lookup: Lookup) => (await releaseStatus()).find((s) => s.lookup === lookup)?.releases.length ?? 0;
      // Run until both lookups are on release 2. Before each run: a lookup with older answers spends
      // exactly that many requests on them and no probe; one without spends its 20 probes.
      const detectedBy = { broadband: 0, mobile: 0 } as Record<Lookup, number>;
      let last = first;
      for (let night = 1; night <= 10; night++) {
        const expected: Record<Lookup, number> = { broadband: 0, mobile: 0 };
        for (const l of LOOKUPS) expected[l] = (await stale(l)) > 0 ? await stale(l) : 20;
        const sent = { ...sim2.counters.requests };
        // each night a day later: at most one probe round per lookup a day
        const clock = dayClock(night);
        const r = await runIn(d, { in: input, baseUrl: sim2.url }, env, { clock });
        expect(r.exitCode).toBe(0);
        last = r;
        for (const l of LOOKUPS) {
          expect(sim2.counters.requests[l] - sent[l], `${l} requests on night ${night}`).toBe(expected[l]);
          if (!detectedBy[l] && (await releases(l)) === 2) detectedBy[l] = night;
        }
        if (detectedBy.broadband && detectedBy.mobile && (await stale("broadband")) === 0 && (await stale("mobile")) === 0) break;
      }
      // the mobile DBName changes on every answer: the first night's probes see it
      expect(detectedBy.mobile).toBe(1);
      expect(detectedBy.broadband).toBeGreaterThan(0);
      expect(await stale("broadband")).toBe(0);
      expect(await stale("mobile")).toBe(0);
      const mobileReleases = (await releaseStatus()).find((s) => s.lookup === "mobile")!.releases;
      expect(mobileReleases.find((r) => r.name === releaseDbName(2))?.answers).toBe(postcodes.length);

      // an unchanged re-fetch adds no version: one new version per changed answer only
      const changedAnswers = postcodes.flatMap((p) => LOOKUPS.filter((l) => contentChanged(p, l))).length;
      expect(changedAnswers).toBeGreaterThan(10);
      expect(await versions()).toBe(versionsAfterFirst + changedAnswers);

      // changes.csv against each answer's previous version, and against run 1 (the same here)
      const expected = postcodes.flatMap(expectedChanges).sort();
      expect(expected.length).toBeGreaterThan(20);
      for (const since of [undefined, String(first.runId)]) {
        const out = join(d, `report-${since ?? "previous"}`);
        const db = await openStore(dbPath);
        try {
          const report = await writeReports(db, { outDir: out, since, now: () => new Date(last.clock.now()) });
          const rows = parse(readFileSync(join(out, "changes.csv")), { bom: true, columns: true }) as Record<string, string>[];
          expect(Object.keys(rows[0]!)).toEqual(["PostCode", "UPRN", "AddressShortDescription", "Lookup", "Change", "Before", "After", "BeforeRelease", "AfterRelease"]);
          expect(rows.map((r) => `${r.PostCode}|${r.UPRN}|${r.Lookup}|${r.Change}|${r.Before}|${r.After}`).sort()).toEqual(expected);
          const mobileRows = rows.filter((r) => r.Lookup === "mobile" && r.Change!.includes(" "));
          expect(new Set(mobileRows.map((r) => `${r.BeforeRelease}>${r.AfterRelease}`))).toEqual(new Set([`${releaseDbName(1)}>${releaseDbName(2)}`]));
          const c = report.summary.changes!;
          const tiers = rows.filter((r) => r.Change === "tier");
          const ladder = ["Gigabit", "Ultrafast", "Superfast", "Decent", "Below decent"];
          const ranked = tiers.filter((r) => ladder.includes(r.Before!) && ladder.includes(r.After!));
          expect(c.broadband!.upATier).toBe(ranked.filter((r) => ladder.indexOf(r.After!) < ladder.indexOf(r.Before!)).length);
          expect(c.broadband!.downATier).toBe(ranked.filter((r) => ladder.indexOf(r.After!) > ladder.indexOf(r.Before!)).length);
          expect(c.broadband!.upATier).toBeGreaterThan(c.broadband!.downATier);
          expect(c.broadband!.tiers.Gigabit.gained).toBe(tiers.filter((r) => r.After === "Gigabit").length);
          const closed = rows.filter((r) => r.Change === "ProvA indoor voice" && Number(r.After) >= GOOD).length;
          expect(c.mobile!.providers.ProvA!.indoorVoice.closed).toBe(closed);
        } finally {
          await db.close();
        }
      }

      // status: both lookups' releases, the whole input on the newest
      const status = await releaseStatus();
      const mobile = status.find((s) => s.lookup === "mobile")!;
      expect(mobile.releases.map((r) => r.name)).toEqual([releaseDbName(1), releaseDbName(2)]);
      expect(mobile.releases.map((r) => r.answers)).toEqual([0, postcodes.length]);
      expect(mobile.input).toMatchObject({ postcodes: postcodes.length, onNewest: postcodes.length });
    } finally {
      await sim2.close();
    }
  }, 60_000);
});

describe("--refresh resumes (issue 10.6)", () => {
  it("a refresh stopped by --max-requests counts what it did not fetch as pending, and the same command continues where it stopped", async () => {
    const postcodes = generatePostcodes(SEED + 1, 30);
    const d = dir();
    const input = writeCsv(d, "in.csv", ["postcode", ...postcodes]);
    const sim = await startSimulator({ port: 0, seed: SEED, key: KEY });
    try {
      expect((await runIn(d, { in: input, baseUrl: sim.url, probe: 0 }, env)).exitCode).toBe(0);
      const fetchedBy = new Map<number, number>();
      let total = 0;
      for (let i = 1; i <= 4; i++) {
        const r = await runIn(d, { in: input, baseUrl: sim.url, refresh: true, maxRequests: 25 }, env);
        total += r.counts!.requests;
        if (total < 60) {
          expect(r.exitCode).toBe(3);
          // the stored answers it did not re-fetch are not ok: the run needed them
          expect(r.counts!.pending).toBe(60 - total);
          expect(r.counts!.ok + r.counts!.notFound).toBe(total);
          // and the report says so too
          const summary = readSummaryJson<Summary>(join(d, "out", "summary.json"));
          expect(summary.broadband!.postcodes.pending + summary.mobile!.postcodes.pending).toBe(60 - total);
        } else {
          expect(r.exitCode).toBe(0);
          expect(r.counts!.pending).toBe(0);
          break;
        }
        fetchedBy.set(r.runId!, r.counts!.requests);
      }
      // every pair refreshed exactly once across the runs: none fetched twice, none left out
      expect(total).toBe(60);
      // the refresh is finished: the same command starts a new one
      const again = await runIn(d, { in: input, baseUrl: sim.url, refresh: true, maxRequests: 25 }, env);
      expect(again.counts!.requests).toBe(25);
    } finally {
      await sim.close();
    }
  }, 60_000);
});
