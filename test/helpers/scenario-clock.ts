// One clock per scenario. A scenario is a database and every run against it: the batches the
// harness runs in-process, the CLIs run as children, the test's own reads. Mixing two time lines in
// one scenario (a first night on the wall clock, the next on a replayed "tomorrow") makes a test
// pass or fail by the hour the suite runs, so the harness refuses it: the first run of a scenario
// fixes its time line, every later run must be on the same one, and a run that names no clock takes
// the scenario's.
import { resolve } from "node:path";
import type { Clock } from "../../src/fetch/clock.js";
import { dayClock, instantSleepClock, timelineOf, type Timeline } from "./fake-clock.js";

interface ScenarioTime {
  timeline: Timeline;
  /** the clock the last run used: a run naming none continues on it */
  last: Clock;
  /** what fixed the time line, for the refusal */
  by: string;
}

const scenarios = new Map<string, ScenarioTime>();

/** A database's identity: a file by its absolute path, a server database by its URL. */
export function scenarioKey(db: string): string {
  return /^[a-z]+:\/\//i.test(db) ? db : resolve(db);
}

function label(t: Timeline): string {
  return typeof t === "string" ? `the ${t} clock` : `a clock of its own (at ${new Date(t.now()).toISOString()})`;
}

/**
 * The clock a run against `db` takes: `requested` when it is on the scenario's time line (or the
 * scenario is new), else an error; without one, the clock the scenario's last run used, and for a
 * new scenario day 0 of the suite's replayed days (noon UTC of the day the suite started).
 */
export function scenarioClock(db: string, requested: Clock | undefined, what: string): Clock {
  const key = scenarioKey(db);
  const known = scenarios.get(key);
  const clock = requested ?? (known ? (known.timeline === "wall" ? instantSleepClock : known.last) : dayClock(0));
  const timeline = timelineOf(clock);
  if (known && known.timeline !== timeline)
    throw new Error(
      `${what} against ${db} runs on ${label(timeline)}, but the scenario's runs so far (${known.by}) ran on ${label(known.timeline)}: every run of a scenario takes its time from one clock`,
    );
  scenarios.set(key, { timeline, last: clock, by: known?.by ?? what });
  return clock;
}

/**
 * Declares that something outside the harness writes to `db` on the wall clock (a child process, a
 * helper script): the scenario is on the wall clock, and a harness run naming no clock takes it.
 */
export function onWallClock(db: string, what: string): void {
  scenarioClock(db, instantSleepClock, what);
}

/** The time line a scenario is on, if any run has fixed it (for tests of this module). */
export function scenarioTimeline(db: string): Timeline | undefined {
  return scenarios.get(scenarioKey(db))?.timeline;
}
