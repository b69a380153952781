// npm run bench -- --against COMMIT [--rounds N] [--quick] [--only LIST]: the same scenarios for
// the working tree and a named commit, in one run on one machine: a worktree of the commit beside
// this one (sharing node_modules), then round by round, scenario by scenario, the tree's and the
// commit's bench of that one scenario back to back, the order alternating, each in a child process
// writing its own bench.json, kept in output/against/ (a ratio can move with its denominator: each
// side's own figures say which). A pair measured a minute apart shares more of the machine's weather
// than one measured a whole bench apart. Prints the paired ratios and verdicts (bench/lib/against.ts);
// exits 1 when a figure is worse in every round beyond the noise allowance.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { formatPaired, pairFigures, ROUNDS_TO_CALL_WORSE, type BenchRun, type PairedFigure } from "./lib/against.js";
import { ROOT, scratchDir } from "./lib/paths.js";

export interface AgainstOptions {
  commit: string;
  rounds: number;
  /** the scenarios, in the bench's order */
  scenarios: readonly string[];
  /** those that measure only the CLIs they run: the commit's side runs this tree's bench with the commit's CLIs (--cli-root) */
  drivesClis?: readonly string[];
  /** the bench's own flags, passed to both sides (--quick, --scale-postcodes) */
  passOn: readonly string[];
  log(message: string): void;
}

function git(args: readonly string[], cwd = ROOT): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/** A detached worktree of `commit`, using this tree's node_modules (the lockfiles must match for a fair run). */
function checkoutCommit(commit: string, dir: string, log: (m: string) => void): string {
  const sha = git(["rev-parse", "--verify", `${commit}^{commit}`]);
  const tree = join(dir, "tree");
  git(["worktree", "add", "--detach", tree, sha]);
  symlinkSync(join(ROOT, "node_modules"), join(tree, "node_modules"));
  if (spawnSync("git", ["diff", "--quiet", sha, "--", "package-lock.json"], { cwd: ROOT }).status !== 0)
    log(`package-lock.json differs between the tree and ${commit}: both run on the tree's node_modules`);
  return tree;
}

/** One side's bench of one scenario in a child process; its bench.json, or null when it wrote none (a commit from before the scenario). */
function benchOnce(tree: string, out: string, scenario: string, passOn: readonly string[], cliRoot?: string): BenchRun | null {
  const cli = cliRoot === undefined ? [] : ["--cli-root", cliRoot];
  spawnSync(process.execPath, ["--import", "tsx", "bench/bench.ts", ...passOn, ...cli, "--only", scenario, "--out", out], { cwd: tree, stdio: ["ignore", "ignore", "inherit"] });
  // a scenario that could not run is in bench.json with its error and no checks: nothing to pair
  return existsSync(out) ? (JSON.parse(readFileSync(out, "utf8")) as BenchRun) : null;
}

/** Where each round's bench.json is kept: <side>-<round>-<scenario>.json, from round 1. */
export const AGAINST_ROUNDS_DIR = join(ROOT, "output", "against");

/** One round: each scenario for both sides back to back, the first side alternating; each side's figures. */
function runRound(options: AgainstOptions, commitTree: string, round: number, missing: Set<string>): Record<Side, BenchRun> {
  const runs: Record<Side, BenchRun["scenarios"][number][]> = { tree: [], commit: [] };
  options.scenarios.forEach((scenario, i) => {
    if (missing.has(scenario)) return;
    // alternate which side goes first, so a machine that speeds up or slows down favours neither
    const sides: readonly Side[] = (round + i) % 2 === 0 ? ["tree", "commit"] : ["commit", "tree"];
    for (const side of sides) {
      if (missing.has(scenario)) continue;
      options.log(`round ${round + 1} of ${options.rounds}, ${scenario}: ${side === "tree" ? "the working tree" : options.commit}`);
      const out = join(AGAINST_ROUNDS_DIR, `${side}-${round + 1}-${scenario}.json`);
      // a scenario that measures only CLIs runs this tree's harness on both sides, each side's CLIs
      const harness = side === "tree" || options.drivesClis?.includes(scenario) ? ROOT : commitTree;
      const result = benchOnce(harness, out, scenario, options.passOn, side === "commit" && harness === ROOT ? commitTree : undefined);
      if (result === null) {
        options.log(`${side === "tree" ? "the working tree" : options.commit} wrote no figures for ${scenario}: not compared`);
        missing.add(scenario);
      } else runs[side].push(...result.scenarios);
    }
  });
  return { tree: { scenarios: runs.tree }, commit: { scenarios: runs.commit } };
}

type Side = "tree" | "commit";

/** The closing lines: what is worse, what the rounds could not tell. */
function verdictLines(figures: readonly PairedFigure[], options: AgainstOptions): string {
  const named = (fs: readonly PairedFigure[]) => fs.map((f) => `${f.scenario} (${f.what}: ${f.ratios.map((r) => r.toFixed(2)).join(", ")})`).join("; ");
  const worse = figures.filter((f) => f.verdict === "worse");
  const unclear = figures.filter((f) => f.verdict === "unclear");
  const lines = [
    worse.length === 0
      ? `no figure worse than ${options.commit} in every round beyond the noise allowance (${options.rounds} paired rounds)`
      : `worse than ${options.commit} in every round: ${named(worse)}`,
  ];
  if (unclear.length > 0)
    lines.push(
      `not shown either way (${options.rounds < ROUNDS_TO_CALL_WORSE ? `fewer than ${ROUNDS_TO_CALL_WORSE} rounds` : "the rounds disagree"}; more rounds can tell): ${named(unclear)}`,
    );
  return lines.join("\n") + "\n";
}

export function runAgainst(options: AgainstOptions): number {
  const scratch = scratchDir("against");
  let tree: string | null = null;
  rmSync(AGAINST_ROUNDS_DIR, { recursive: true, force: true });
  mkdirSync(AGAINST_ROUNDS_DIR, { recursive: true });
  try {
    tree = checkoutCommit(options.commit, scratch.dir, options.log);
    const missing = new Set<string>();
    const rounds = Array.from({ length: options.rounds }, (_, round) => runRound(options, tree!, round, missing));
    const figures = pairFigures(
      rounds.map((r) => r.tree),
      rounds.map((r) => r.commit),
    );
    process.stdout.write(`\n${formatPaired(figures, options.commit)}\n\neach round's figures: ${AGAINST_ROUNDS_DIR}\n`);
    process.stdout.write(verdictLines(figures, options));
    return figures.some((f) => f.verdict === "worse") ? 1 : 0;
  } finally {
    if (tree !== null) spawnSync("git", ["worktree", "remove", "--force", tree], { cwd: ROOT });
    scratch.remove();
  }
}
