// Issue 23's probes that cost only what they must: the rule as a table (plan/probe-rule.ts), and
// the demo's run (input/sample-postcodes.csv against the bundled simulator) repeated: the second
// run the same evening sends no request; the next day one probe round per lookup, once; a list
// with a new postcode probes broadband only (the new mobile answer names its release).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeRule, type ProbeSituation } from "../src/plan/probe-rule.js";
import { orderNeeds, PROBE_MIN_AGE_MS } from "../src/plan/plan.js";
import type { Candidate } from "../src/store/types.js";
import { withStore } from "./helpers/stored.js";
import { generatePostcodes } from "../src/simulator/index.js";
import { dayClock } from "./helpers/fake-clock.js";
import { runIn, tempDir, type HarnessRun } from "./helpers/batch-harness.js";

const NOW = "2026-11-23T21:00:00.000Z";
const base: ProbeSituation = { lookup: "broadband", probe: 20, fresh: 300, fetching: 0, refetching: 0, replacingRelease: false, lastCheck: null, now: NOW };

describe("the probe rule", () => {
  it.each<[string, Partial<ProbeSituation>, { probes: number; check: "probes" | "answers" | null }]>([
    ["a list all fresh, never checked: one round", {}, { probes: 20, check: "probes" }],
    ["checked yesterday: one round", { lastCheck: "2026-11-22T21:30:00.000Z" }, { probes: 20, check: "probes" }],
    ["checked earlier today: none", { lastCheck: "2026-11-23T00:10:00.000Z" }, { probes: 0, check: null }],
    ["--probe 0: none, and no check", { probe: 0 }, { probes: 0, check: null }],
    ["fewer fresh answers than a round: all of them", { fresh: 5 }, { probes: 5, check: "probes" }],
    ["nothing fresh, new postcodes fetched: their answers are the check", { fresh: 0, fetching: 300 }, { probes: 0, check: "answers" }],
    ["nothing fresh, nothing fetched: nothing to check", { fresh: 0 }, { probes: 0, check: null }],
    ["mobile fetching one new postcode: its answer names the release", { lookup: "mobile", fetching: 1 }, { probes: 0, check: "answers" }],
    ["broadband fetching new postcodes only: they cannot show a change", { fetching: 40 }, { probes: 20, check: "probes" }],
    ["broadband re-fetching 20 answered postcodes: as good as a round", { fetching: 20, refetching: 20 }, { probes: 0, check: "answers" }],
    ["broadband re-fetching 5: the round tops up to 20", { fetching: 5, refetching: 5 }, { probes: 15, check: "probes" }],
    ["an older release being replaced: its re-fetches check", { replacingRelease: true, fetching: 3, refetching: 3 }, { probes: 0, check: "answers" }],
  ])("%s", (_name, situation, expected) => {
    expect(probeRule({ ...base, ...situation })).toMatchObject(expected);
  });
});

describe("the demo, run again", () => {
  let dir: string;
  const requests = (r: HarnessRun) => r.counts!.requests;
  // every run on a clock of its own day: the first two must not straddle midnight
  const day = dayClock;
  const demo = { in: "input/sample-postcodes.csv", simulate: true, rate: 6000 };

  beforeAll(() => {
    dir = tempDir("pcc-demo-twice-");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("sends no request the second time the same day; the next day one round per lookup, once", async () => {
    const first = await runIn(dir, demo, {}, { clock: day(0) });
    expect(first.exitCode).toBe(0);
    expect(requests(first)).toBe(600);
    const second = await runIn(dir, demo, {}, { clock: day(0) });
    expect(second.exitCode).toBe(0);
    expect(requests(second)).toBe(0);
    expect(second.logs.join("\n")).toMatch(/broadband: 0 to fetch \(nothing\), 300 fresh \(no probes: the release was checked today/);
    const checks = await withStore(join(dir, "coverage.sqlite"), async (store) => [await store.releaseChecks.lastCheck("broadband"), await store.releaseChecks.lastCheck("mobile")]);
    expect(checks.map((c) => c && { lookup: c.lookup, how: c.how, run_id: c.runId })).toEqual([
      { lookup: "broadband", how: "answers", run_id: first.runId },
      { lookup: "mobile", how: "answers", run_id: first.runId },
    ]);
    const nextDay = await runIn(dir, demo, {}, { clock: day(1) });
    expect(nextDay.stats!.broadband.requests).toBe(20);
    expect(nextDay.stats!.mobile.requests).toBe(20);
    expect(requests(await runIn(dir, demo, {}, { clock: day(1) }))).toBe(0);
  }, 60_000);

  it("a list with a new postcode probes broadband only: the new mobile answer names its release", async () => {
    const sample = readFileSync("input/sample-postcodes.csv", "utf8");
    const known = new Set(sample.toUpperCase().match(/[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}/g)!.map((p) => p.replace(" ", "")));
    const added = generatePostcodes(97, 50).find((p) => !known.has(p.replace(" ", "").toUpperCase()))!;
    // site_id,site_name,postcode,notes
    const input = join(dir, "more.csv");
    writeFileSync(input, `${sample.trimEnd()}\nS9999,New site,${added},\n`);
    const r = await runIn(dir, { ...demo, in: input }, {}, { clock: day(2) });
    expect(r.exitCode).toBe(0);
    expect(r.stats!.mobile.requests).toBe(1);
    expect(r.stats!.broadband.requests).toBe(21);
  }, 60_000);
});

describe("no probe for an answer younger than a day", () => {
  const fresh = (postcode: string, fetchedAt: string): Candidate => ({ postcode, line: 1, state: "fresh", fetchedAt, releaseRank: 1 });
  const rule = (situation: Pick<ProbeSituation, "fresh" | "probeable" | "fetching" | "refetching" | "replacingRelease">) =>
    probeRule({ ...base, ...situation, lastCheck: null }).probes;
  const probeBefore = new Date(Date.parse(NOW) - PROBE_MIN_AGE_MS).toISOString();

  it("a re-run 90 s after a Ctrl-C (the release never recorded as checked) sends no probe", () => {
    const justAsked = Array.from({ length: 30 }, (_, i) => fresh(`AB1${i}CD`, new Date(Date.parse(NOW) - 90_000).toISOString()));
    // on main: 20 probes for answers fetched 90 s earlier
    expect(orderNeeds(justAsked, rule, undefined, probeBefore).needs).toEqual([]);
    expect(probeRule({ ...base, fresh: 30, probeable: 0 })).toEqual({ probes: 0, check: null, why: "every fresh answer is younger than a day" });
  });

  it("last night's answers are still probed, the oldest first, and only they", () => {
    const lastNight = [fresh("AB11CD", "2026-11-22T21:40:00.000Z"), fresh("AB12CD", "2026-11-22T21:10:00.000Z")];
    const today = [fresh("AB13CD", "2026-11-23T20:58:00.000Z")];
    expect(orderNeeds([...today, ...lastNight], rule, undefined, probeBefore).needs.map((n) => n.postcode)).toEqual(["AB12CD", "AB11CD"]);
  });
});
