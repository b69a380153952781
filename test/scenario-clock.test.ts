// Every run of a scenario takes its time from one clock: the harness refuses a run on another time
// line than the database's earlier runs, and a run naming no clock continues on the scenario's.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { systemClock } from "../src/fetch/clock.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { dbArgument } from "./helpers/child-cli.js";
import { dayClock, FakeClock, instantSleepClock, onTimelineOf, timelineOf } from "./helpers/fake-clock.js";
import { onWallClock, scenarioClock, scenarioTimeline } from "./helpers/scenario-clock.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function db(): string {
  const d = tempDir("pcc-scenario-");
  dirs.push(d);
  return join(d, "coverage.sqlite");
}

describe("a scenario's clock", () => {
  it("a new scenario starts on the suite's replayed days, never the wall clock, and keeps to them", () => {
    const path = db();
    const first = scenarioClock(path, undefined, "first");
    expect(timelineOf(first)).toBe("suite days");
    // noon UTC, give or take the seconds the suite has run
    expect(new Date(first.now()).getUTCHours()).toBe(12);
    expect(scenarioClock(path, dayClock(1), "next night")).toBeDefined();
    // a run naming no clock continues on the last one: still tomorrow, not back at day 0
    expect(scenarioClock(path, undefined, "again").now()).toBeGreaterThan(first.now() + 23 * 3600_000);
    expect(() => scenarioClock(path, instantSleepClock, "a wall-clock run")).toThrow(/every run of a scenario takes its time from one clock/);
    expect(() => scenarioClock(path, systemClock, "a wall-clock run")).toThrow(/the wall clock, but the scenario's runs so far \(first\) ran on the suite days clock/);
    expect(() => scenarioClock(path, new FakeClock(), "a replay of its own")).toThrow(/one clock/);
  });

  it("a FakeClock scenario keeps its one FakeClock; a second FakeClock is refused", () => {
    const path = db();
    const clock = new FakeClock(Date.parse("2026-03-01T02:00:00Z"));
    scenarioClock(path, clock, "night 1");
    expect(scenarioClock(path, undefined, "night 2")).toBe(clock);
    expect(() => scenarioClock(path, new FakeClock(Date.parse("2026-03-02T02:00:00Z")), "night 3")).toThrow(/at 2026-03-02T02:00:00.000Z/);
  });

  it("a child process puts its database on the wall clock; a machine whose clock is off stays on it", () => {
    const path = db();
    onWallClock(path, "npm run batch");
    expect(scenarioTimeline(path)).toBe("wall");
    expect(scenarioClock(path, undefined, "resume")).toBe(instantSleepClock);
    const skewed = onTimelineOf({ now: () => Date.now() + 3600_000, sleep: systemClock.sleep }, systemClock);
    expect(scenarioClock(path, skewed, "a machine an hour ahead")).toBe(skewed);
    expect(() => scenarioClock(path, dayClock(0), "a replayed night")).toThrow(/one clock/);
    // a child on a database the harness replays is refused the same way
    const replayed = db();
    scenarioClock(replayed, undefined, "runIn");
    expect(() => onWallClock(replayed, "npm run status")).toThrow(/npm run status against .* runs on the wall clock/);
  });

  it("finds the database a command line names", () => {
    expect(dbArgument(["--in", "x.csv", "--db", "a.sqlite"])).toBe("a.sqlite");
    expect(dbArgument(["--db=postgres://h/db"])).toBe("postgres://h/db");
    expect(dbArgument(["--in", "x.csv"])).toBeUndefined();
  });

  it("runIn refuses a night on the wall clock after one on the replayed days, before it sends anything", async () => {
    const path = db();
    const d = join(path, "..");
    const input = writeCsv(d, "in.csv", ["postcode", "SW1A 2AA"]);
    const first = await runIn(d, { in: input, simulate: true, lookups: "broadband", reports: false }, {});
    expect(first.exitCode).toBe(0);
    expect(timelineOf(first.clock)).toBe("suite days");
    await expect(runIn(d, { in: input, simulate: true, lookups: "broadband", reports: false }, {}, { clock: instantSleepClock })).rejects.toThrow(/one clock/);
    const next = await runIn(d, { in: input, simulate: true, lookups: "broadband", reports: false }, {}, { clock: dayClock(1) });
    expect(next.exitCode).toBe(0);
  });
});
