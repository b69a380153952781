// The bench's --against comparison: figures paired round by round, judged in the direction of
// their target, with a noise allowance, and called worse only when every one of enough rounds says so.
import { describe, expect, it } from "vitest";
import { formatPaired, isWorse, judge, pairFigures, ROUNDS_TO_CALL_WORSE, type BenchRun } from "../bench/lib/against.js";
import { atLeast, atMost, check, type Check } from "../bench/lib/scenario.js";

const run = (checks: Record<string, Check[]>): BenchRun => ({ scenarios: Object.entries(checks).map(([scenario, c]) => ({ scenario, checks: c })) });
const speed = (v: number) => check("batch ÷ bare loop", v, String(v), atLeast(0.5));
const memory = (v: number) => check("peak MB", v, String(v), atMost(300));

describe("bench --against", () => {
  it("pairs round by round and takes the median ratio", () => {
    const tree = [run({ overhead: [speed(0.4)] }), run({ overhead: [speed(0.6)] }), run({ overhead: [speed(0.5)] })];
    const commit = [run({ overhead: [speed(0.4)] }), run({ overhead: [speed(0.5)] }), run({ overhead: [speed(0.5)] })];
    const [f] = pairFigures(tree, commit);
    expect(f).toMatchObject({ scenario: "overhead", what: "batch ÷ bare loop", tree: 0.5, commit: 0.5, ratios: [1, 1.2, 1], ratio: 1, higherIsBetter: true, verdict: "same or better" });
  });

  it("judges each figure in its target's direction, beyond the noise", () => {
    expect(isWorse(0.9, true)).toBe(true);
    expect(isWorse(0.97, true)).toBe(false);
    expect(isWorse(1.1, false)).toBe(true);
    expect(isWorse(0.8, false)).toBe(false);
    const tree = run({ overhead: [speed(0.3)], memory: [memory(200)] });
    const commit = run({ overhead: [speed(0.5)], memory: [memory(250)] });
    const rounds = <T>(r: T) => Array.from({ length: ROUNDS_TO_CALL_WORSE }, () => r);
    const [slower, leaner] = pairFigures(rounds(tree), rounds(commit));
    expect(slower).toMatchObject({ ratio: 0.6, verdict: "worse" });
    expect(leaner).toMatchObject({ ratio: 0.8, verdict: "same or better" });
  });

  it("calls a figure worse only when every round, and enough of them, put it beyond the allowance", () => {
    expect(ROUNDS_TO_CALL_WORSE).toBe(5);
    // speed (higher is better)
    expect(judge([0.8, 0.9, 0.85, 0.7, 0.92], true)).toBe("worse");
    expect(judge([0.8, 0.9, 0.85, 0.7, 0.92, 0.9], true)).toBe("worse");
    expect(judge([0.8, 0.9, 0.85, 0.7, 0.97], true)).toBe("unclear"); // one round within the noise
    expect(judge([0.8, 0.9, 0.85, 0.7, 1.3], true)).toBe("unclear"); // one round better
    expect(judge([0.8], true)).toBe("unclear"); // one round tells nothing of the noise
    expect(judge([0.5, 0.65, 0.92], true)).toBe("unclear"); // three rounds of the tree against itself, on this machine
    expect(judge([0.8, 1.1, 1.2, 1, 0.7], true)).toBe("same or better");
    expect(judge([0.97, 0.96, 0.99, 0.98, 1], true)).toBe("same or better");
    // memory (lower is better), and a count that was nothing on the commit's side
    expect(judge([1.2, 1.1, 1.3, 1.2, 1.07], false)).toBe("worse");
    expect(judge([1.2, 1.1, 1.3, 1.2, 1.0], false)).toBe("unclear");
    expect(judge([Infinity, 1, Infinity, Infinity, Infinity], false)).toBe("unclear");
    expect(judge([0.5, 0.9, 1.2, 1, 1], false)).toBe("same or better");
  });

  it("compares only what both sides measured in every round, and names the worse rows", () => {
    const skipped: Check = { ...speed(0), measured: null };
    const figures = pairFigures([run({ overhead: [speed(0.5)], team: [skipped] })], [run({ overhead: [speed(0.6)], startup: [speed(1)] })]);
    expect(figures.map((f) => f.scenario)).toEqual(["overhead"]);
    expect(formatPaired(figures, "1906dae")).toMatch(/overhead\s+batch ÷ bare loop\s+0\.5\s+0\.6\s+0\.833\s+0\.83\s+higher\s+unclear/);
    const five = pairFigures([0.5, 0.45, 0.5, 0.5, 0.4].map((v) => run({ overhead: [speed(v)] })), [0.6, 0.6, 0.55, 0.6, 0.6].map((v) => run({ overhead: [speed(v)] })));
    expect(formatPaired(five, "1906dae")).toMatch(/overhead\s+batch ÷ bare loop\s+0\.5\s+0\.6\s+0\.833\s+0\.83 0\.75 0\.91 0\.83 0\.67\s+higher\s+WORSE/);
  });

  it("compares the batch's own figures too, read from each side's bench.json, which have no target", () => {
    const overhead = (cpu: number[], rate: number[], bareRatio: number): BenchRun => ({
      scenarios: [
        {
          scenario: "overhead",
          checks: [speed(bareRatio)],
          figures: { postcodes: 1000, rounds: cpu.map((c, i) => ({ batch: { cpuSeconds: c, postcodesPerSecond: rate[i] }, bare: {} })) },
        },
        { scenario: "whole-job", checks: [], figures: { batch: { wallSeconds: 20, cpuSeconds: 30 } } },
      ],
    });
    const rounds = (r: BenchRun) => Array.from({ length: ROUNDS_TO_CALL_WORSE }, () => r);
    // the ratio to the bare loop unchanged, the batch itself 20% dearer
    const figures = pairFigures(rounds(overhead([2.4, 2.6], [600, 640], 0.3)), rounds(overhead([2, 2.2], [750, 800], 0.3)));
    const by = (what: string) => figures.find((f) => f.what === what);
    expect(by("batch ÷ bare loop")).toMatchObject({ verdict: "same or better" });
    expect(by("the batch alone: CPU ms per postcode")).toMatchObject({ tree: 2.5, commit: 2.1, ratio: 1.19, higherIsBetter: false, verdict: "worse" });
    expect(by("the batch alone: postcodes/s")).toMatchObject({ tree: 620, commit: 775, ratio: 0.8, higherIsBetter: true, verdict: "worse" });
    expect(by("the whole batch alone: wall seconds")).toMatchObject({ ratio: 1, verdict: "same or better" });
    expect(by("the whole batch alone: CPU seconds")).toMatchObject({ ratio: 1, verdict: "same or better" });
    // a bench.json without figures (or of another shape) adds nothing
    expect(pairFigures([run({ overhead: [speed(0.3)] })], [run({ overhead: [speed(0.3)] })]).map((f) => f.what)).toEqual(["batch ÷ bare loop"]);
  });
});
