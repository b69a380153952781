// Pairs the figures of two trees measured in one bench run (the working tree and a named commit,
// alternating round by round) into ratios, and says which scenario got worse. Pure: the runs
// themselves are in bench/against.ts.
import type { Check, ScenarioResult } from "./scenario.js";
import { median, round } from "./stats.js";

/** One bench.json's scenarios, as each side wrote it. */
export interface BenchRun {
  scenarios: readonly Pick<ScenarioResult, "scenario" | "checks">[];
}

export interface PairedFigure {
  scenario: string;
  what: string;
  /** the median measured value of each side over its rounds */
  tree: number;
  commit: number;
  /** the median of the round-by-round ratios tree ÷ commit */
  ratio: number;
  /** whether a larger value is better (a target of ≥), so that a ratio below 1 is worse */
  higherIsBetter: boolean;
  /** worse beyond the noise allowance */
  worse: boolean;
}

/** Ratios within this share of 1 are taken as noise: a shared machine's rounds vary by about that much. */
export const NOISE = 0.05;

const key = (scenario: string, check: Pick<Check, "what">) => `${scenario}\u0000${check.what}`;

function measuredByKey(run: BenchRun): Map<string, { scenario: string; check: Check }> {
  const out = new Map<string, { scenario: string; check: Check }>();
  for (const s of run.scenarios) for (const c of s.checks) if (c.measured !== null) out.set(key(s.scenario, c), { scenario: s.scenario, check: c });
  return out;
}

/** Whether tree ÷ commit is worse than the noise allows, in the direction the check's target says. */
export function isWorse(ratio: number, higherIsBetter: boolean, noise = NOISE): boolean {
  return higherIsBetter ? ratio < 1 - noise : ratio > 1 + noise;
}

/**
 * Every check measured on both sides in every round, paired round by round (round i of the tree
 * with round i of the commit, run next to each other), as medians and the median ratio.
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
    const ratio = median(t.map((v, i) => (c[i] === 0 ? (v === 0 ? 1 : Infinity) : v / c[i]!)));
    const higherIsBetter = first.check.target.op === ">=";
    return { scenario: first.scenario, what: first.check.what, tree: median(t), commit: median(c), ratio: round(ratio), higherIsBetter, worse: isWorse(ratio, higherIsBetter, noise) };
  });
}

/** The comparison as a table: one row a figure, the worse ones marked. */
export function formatPaired(figures: readonly PairedFigure[], commit: string): string {
  const rows = [["scenario", "measures", "tree", commit, "tree ÷ commit", "better is", "verdict"]];
  for (const f of figures)
    rows.push([f.scenario, f.what, String(round(f.tree)), String(round(f.commit)), f.ratio.toFixed(3), f.higherIsBetter ? "higher" : "lower", f.worse ? "WORSE" : "same or better"]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => [...row[i]!].length)));
  return rows.map((row) => row.map((cell, i) => cell + " ".repeat(widths[i]! - [...cell].length)).join("  ").trimEnd()).join("\n");
}
