// The bench's --against comparison: figures paired round by round, judged in the direction of
// their target, with a noise allowance.
import { describe, expect, it } from "vitest";
import { formatPaired, isWorse, pairFigures, type BenchRun } from "../bench/lib/against.js";
import { atLeast, atMost, check, type Check } from "../bench/lib/scenario.js";

const run = (checks: Record<string, Check[]>): BenchRun => ({ scenarios: Object.entries(checks).map(([scenario, c]) => ({ scenario, checks: c })) });
const speed = (v: number) => check("batch ÷ bare loop", v, String(v), atLeast(0.5));
const memory = (v: number) => check("peak MB", v, String(v), atMost(300));

describe("bench --against", () => {
  it("pairs round by round and takes the median ratio", () => {
    const tree = [run({ overhead: [speed(0.4)] }), run({ overhead: [speed(0.6)] }), run({ overhead: [speed(0.5)] })];
    const commit = [run({ overhead: [speed(0.4)] }), run({ overhead: [speed(0.5)] }), run({ overhead: [speed(0.5)] })];
    const [f] = pairFigures(tree, commit);
    expect(f).toMatchObject({ scenario: "overhead", what: "batch ÷ bare loop", tree: 0.5, commit: 0.5, ratio: 1, higherIsBetter: true, worse: false });
  });

  it("judges each figure in its target's direction, beyond the noise", () => {
    expect(isWorse(0.9, true)).toBe(true);
    expect(isWorse(0.97, true)).toBe(false);
    expect(isWorse(1.1, false)).toBe(true);
    expect(isWorse(0.8, false)).toBe(false);
    const [slower, leaner] = pairFigures([run({ overhead: [speed(0.3)], memory: [memory(200)] })], [run({ overhead: [speed(0.5)], memory: [memory(250)] })]);
    expect(slower).toMatchObject({ ratio: 0.6, worse: true });
    expect(leaner).toMatchObject({ ratio: 0.8, worse: false });
  });

  it("compares only what both sides measured in every round, and names the worse rows", () => {
    const skipped: Check = { ...speed(0), measured: null };
    const figures = pairFigures([run({ overhead: [speed(0.5)], team: [skipped] })], [run({ overhead: [speed(0.6)], startup: [speed(1)] })]);
    expect(figures.map((f) => f.scenario)).toEqual(["overhead"]);
    expect(formatPaired(figures, "1906dae")).toMatch(/overhead\s+batch ÷ bare loop\s+0\.5\s+0\.6\s+0\.833\s+higher\s+WORSE/);
  });
});
