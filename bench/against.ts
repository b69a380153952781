// npm run bench -- --against COMMIT [--rounds N] [--quick] [--only LIST]: the same scenarios for
// the working tree and a named commit, in one run on one machine: a worktree of the commit beside
// this one (sharing node_modules), then round by round the tree's bench and the commit's, the
// order alternating, each in a child process writing its own bench.json, kept in output/against/
// (a ratio can move with its denominator: each side's own figures say which). Prints the paired
// ratios (bench/lib/against.ts); exits 1 when a figure got worse beyond the noise allowance.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { formatPaired, pairFigures, type BenchRun } from "./lib/against.js";
import { ROOT, scratchDir } from "./lib/paths.js";

export interface AgainstOptions {
  commit: string;
  rounds: number;
  /** the bench's own flags, passed to both sides (--quick, --only, --scale-postcodes) */
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

/** One side's bench in a child process; its bench.json. */
function benchOnce(tree: string, out: string, passOn: readonly string[]): BenchRun {
  const run = spawnSync(process.execPath, ["--import", "tsx", "bench/bench.ts", ...passOn, "--out", out], { cwd: tree, stdio: ["ignore", "ignore", "inherit"] });
  if (!existsSync(out)) throw new Error(`the bench in ${tree} wrote no figures (exit ${run.status ?? run.signal})`);
  return JSON.parse(readFileSync(out, "utf8")) as BenchRun;
}

/** Where each round's bench.json is kept: tree-<round>.json and commit-<round>.json, from round 1. */
export const AGAINST_ROUNDS_DIR = join(ROOT, "output", "against");

export function runAgainst(options: AgainstOptions): number {
  const scratch = scratchDir("against");
  let tree: string | null = null;
  rmSync(AGAINST_ROUNDS_DIR, { recursive: true, force: true });
  mkdirSync(AGAINST_ROUNDS_DIR, { recursive: true });
  try {
    tree = checkoutCommit(options.commit, scratch.dir, options.log);
    const mine: BenchRun[] = [];
    const theirs: BenchRun[] = [];
    for (let round = 0; round < options.rounds; round++) {
      // alternate which side goes first, so a machine that speeds up or slows down favours neither
      const sides = round % 2 === 0 ? (["tree", "commit"] as const) : (["commit", "tree"] as const);
      for (const side of sides) {
        options.log(`round ${round + 1} of ${options.rounds}: ${side === "tree" ? "the working tree" : options.commit}`);
        const result = benchOnce(side === "tree" ? ROOT : tree, join(AGAINST_ROUNDS_DIR, `${side}-${round + 1}.json`), options.passOn);
        (side === "tree" ? mine : theirs).push(result);
      }
    }
    const figures = pairFigures(mine, theirs);
    process.stdout.write(`\n${formatPaired(figures, options.commit)}\n\neach round's figures: ${AGAINST_ROUNDS_DIR}\n`);
    const worse = figures.filter((f) => f.worse);
    process.stdout.write(
      worse.length === 0
        ? `no figure worse than ${options.commit} beyond the noise allowance (${options.rounds} paired rounds)\n`
        : `worse than ${options.commit}: ${worse.map((f) => `${f.scenario} (${f.what}: ${f.ratio.toFixed(3)})`).join("; ")}\n`,
    );
    return worse.length === 0 ? 0 : 1;
  } finally {
    if (tree !== null) spawnSync("git", ["worktree", "remove", "--force", tree], { cwd: ROOT });
    scratch.remove();
  }
}
