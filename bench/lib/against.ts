// Pairs the figures of two trees measured in one bench run (the working tree and a named commit,
// each scenario run for both back to back) into ratios, and says which figure got worse. Pure: the
// runs themselves are in bench/against.ts.
import type { Check, ScenarioResult } from "./scenario.js";
import { median, round } from "./stats.js";

/** One bench.json's scenarios, as each side wrote it. */
export interface BenchRun {
  scenarios: readonly (Pick<ScenarioResult, "scenario" | "checks"> & { figures?: Record<string, unknown> })[];
}

export interface PairedFigure {
  scenario: string;
  what: string;
  /** the median measured value of each side over its rounds */
  tree: number;
  commit: number;
  /** each round's ratio tree ÷ commit */
  ratios: number[];
  /** their median */
  ratio: number;
  /** whether a larger value is better (a target of ≥), so that a ratio below 1 is worse */
  higherIsBetter: boolean;
  verdict: Verdict;
}

/**
 * "worse": every round beyond the noise allowance on the wrong side, in enough rounds to tell;
 * "unclear": the median beyond it, but too few rounds or not every one (noise can do that);
 * "same or better": the median within it, or on the right side.
 */
export type Verdict = "worse" | "unclear" | "same or better";

/** Ratios within this share of 1 are taken as noise: a shared machine's rounds vary by about that much. */
export const NOISE = 0.05;

/**
 * The rounds a figure needs before it is called worse. On this project's 2-core machine a figure's
 * rounds swing widely with what else the machine does: the simulator's throughput, the same code on
 * both sides, measured from 7,500 to 20,000 requests/s in one run of six rounds. Three rounds were
 * not enough: a comparison of the tree with itself called two figures worse in all three. Where a
 * ratio's rounds spread by 30% (standard deviation), chance puts one beyond the allowance on the
 * wrong side about 43% of the time and five in a row about 1.5%; where they spread by 10%, a change
 * that truly costs 20% puts each round there about 93% of the time, all five about 70%.
 */
export const ROUNDS_TO_CALL_WORSE = 5;

/** A figure of a scenario's bench.json compared besides its checks; it has no target of its own. */
interface OwnFigure {
  scenario: string;
  what: string;
  higherIsBetter: boolean;
  read(figures: Record<string, unknown>): number | null;
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const field = (v: unknown, name: string): unknown => (typeof v === "object" && v !== null ? (v as Record<string, unknown>)[name] : undefined);

/** The median over the overhead scenario's rounds of a figure of its batch side. */
function overheadBatch(figures: Record<string, unknown>, of: (batch: unknown, postcodes: number) => number | null): number | null {
  const postcodes = num(figures.postcodes);
  if (postcodes === null || !Array.isArray(figures.rounds)) return null;
  const values = figures.rounds.map((r) => of(field(r, "batch"), postcodes)).filter((v): v is number => v !== null);
  return values.length === 0 ? null : median(values);
}

/**
 * The batch's own figures, compared besides the scenarios' ratios. A ratio to the bare loop moves
 * with the bare loop, the same code on both sides, which swings by half between rounds here; the
 * batch's own CPU per postcode moves far less, so a change to the batch shows in it first.
 */
export const OWN_FIGURES: readonly OwnFigure[] = [
  { scenario: "overhead", what: "the batch alone: CPU ms per postcode", higherIsBetter: false, read: (f) => overheadBatch(f, (b, n) => { const cpu = num(field(b, "cpuSeconds")); return cpu === null ? null : (cpu * 1000) / n; }) },
  { scenario: "overhead", what: "the batch alone: postcodes/s", higherIsBetter: true, read: (f) => overheadBatch(f, (b) => num(field(b, "postcodesPerSecond"))) },
  { scenario: "whole-job", what: "the whole batch alone: wall seconds", higherIsBetter: false, read: (f) => num(field(f.batch, "wallSeconds")) },
  { scenario: "whole-job", what: "the whole batch alone: CPU seconds", higherIsBetter: false, read: (f) => num(field(f.batch, "cpuSeconds")) },
];

const key = (scenario: string, check: Pick<Check, "what">) => `${scenario}\u0000${check.what}`;

/** A scenario's checks, and its own figures (OWN_FIGURES) as checks without a target. */
function comparedChecks(s: BenchRun["scenarios"][number]): Check[] {
  const own = OWN_FIGURES.filter((o) => o.scenario === s.scenario && s.figures).flatMap((o): Check[] => {
    const measured = o.read(s.figures!);
    return measured === null ? [] : [{ what: o.what, measured, shown: String(round(measured)), target: { op: o.higherIsBetter ? ">=" : "<=", value: NaN, text: "figures only" }, met: null }];
  });
  return [...s.checks, ...own];
}

function measuredByKey(run: BenchRun): Map<string, { scenario: string; check: Check }> {
  const out = new Map<string, { scenario: string; check: Check }>();
  for (const s of run.scenarios) for (const c of comparedChecks(s)) if (c.measured !== null) out.set(key(s.scenario, c), { scenario: s.scenario, check: c });
  return out;
}

/** Whether tree ÷ commit is worse than the noise allows, in the direction the check's target says. */
export function isWorse(ratio: number, higherIsBetter: boolean, noise = NOISE): boolean {
  return higherIsBetter ? ratio < 1 - noise : ratio > 1 + noise;
}

/** A figure's verdict from its rounds' ratios (tree ÷ commit). */
export function judge(ratios: readonly number[], higherIsBetter: boolean, noise = NOISE): Verdict {
  if (ratios.length === 0 || !isWorse(median(ratios), higherIsBetter, noise)) return "same or better";
  return ratios.length >= ROUNDS_TO_CALL_WORSE && ratios.every((r) => isWorse(r, higherIsBetter, noise)) ? "worse" : "unclear";
}

/**
 * Every check measured on both sides in every round, paired round by round (round i of the tree
 * with round i of the commit, run next to each other), as medians, each round's ratio and the verdict.
 */
export function pairFigures(tree: readonly BenchRun[], commit: readonly BenchRun[], noise = NOISE): PairedFigure[] {
  const rounds = Math.min(tree.length, commit.length);
  if (rounds === 0) return [];
  const treeRounds = tree.slice(0, rounds).map(measuredByKey);
  const commitRounds = commit.slice(0, rounds).map(measuredByKey);
  const keys = [...treeRounds[0]!.keys()].filter((k) => treeRounds.every((r) => r.has(k)) && commitRounds.every((r) => r.has(k)));
  return keys.map((k) => {
    const first = treeRounds[0]!.get(k)!;
    const t = treeRounds.map((r) => r.get(k)!.check.measured!);
    const c = commitRounds.map((r) => r.get(k)!.check.measured!);
    const ratios = t.map((v, i) => (c[i] === 0 ? (v === 0 ? 1 : Infinity) : v / c[i]!));
    const higherIsBetter = first.check.target.op === ">=";
    return {
      scenario: first.scenario,
      what: first.check.what,
      tree: median(t),
      commit: median(c),
      ratios: ratios.map((r) => round(r)),
      ratio: round(median(ratios)),
      higherIsBetter,
      verdict: judge(ratios, higherIsBetter, noise),
    };
  });
}

/** The comparison as a table: one row a figure, the worse ones marked. */
export function formatPaired(figures: readonly PairedFigure[], commit: string): string {
  const rows = [["scenario", "measures", "tree", commit, "tree ÷ commit", "each round", "better is", "verdict"]];
  for (const f of figures) {
    const rounds = f.ratios.map((r) => r.toFixed(2)).join(" ");
    rows.push([f.scenario, f.what, String(round(f.tree)), String(round(f.commit)), f.ratio.toFixed(3), rounds, f.higherIsBetter ? "higher" : "lower", f.verdict === "worse" ? "WORSE" : f.verdict]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => [...row[i]!].length)));
  return rows.map((row) => row.map((cell, i) => cell + " ".repeat(widths[i]! - [...cell].length)).join("  ").trimEnd()).join("\n");
}
