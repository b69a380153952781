// The soak's crash-point and disk-full steps (npm run soak -- --crash-points). A report writer and
// an export are SIGKILLed at each of their file writes and renames in turn (soak/crash-writer.ts);
// after each kill the next writer clears what was left, and --out must hold one whole set (the
// previous one, byte for byte) and the export whole tables. Run as root, the reports and the export
// are then written to a tmpfs too small for them: each must fail with one line naming the cause, no
// stack trace, and leave nothing behind.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generatePostcodes } from "../src/simulator/index.js";
import { asNextWriter, exportProblems, exportTree, reportSetProblems } from "./whole-set.js";

type Say = (line: string) => void;

function node(root: string, args: string[]) {
  return spawnSync(process.execPath, ["--import", "tsx", ...args], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
}

function contents(dir: string): Map<string, Buffer> {
  return new Map(readdirSync(dir).sort().map((f) => [f, readFileSync(join(dir, f))]));
}

function sameContents(a: Map<string, Buffer>, b: Map<string, Buffer>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k)?.equals(v) === true);
}

/** Runs the steps in `work`; returns the problems found (empty: passed). */
export function crashPointSteps(root: string, work: string, say: Say): string[] {
  const problems: string[] = [];
  const dir = join(work, "crash-points");
  mkdirSync(dir, { recursive: true });
  const db = join(dir, "coverage.sqlite");
  const out = join(dir, "out");
  const exp = join(dir, "export");
  const input = join(dir, "postcodes.csv");
  writeFileSync(input, ["postcode", ...generatePostcodes("crash-points", 30)].join("\n") + "\n");
  const batch = node(root, ["src/cli/batch.ts", "--in", input, "--simulate", "--rate", "60000", "--db", db, "--out", out, "--quiet"]);
  if (batch.status !== 0) return [`crash points: the batch that makes their database exited ${batch.status}: ${batch.stderr.trim().split("\n").pop()}`];

  for (const what of ["report", "export"] as const) {
    const target = what === "report" ? out : exp;
    // twice: the second run has a previous set or export to move aside
    node(root, ["soak/crash-writer.ts", what, db, target, "list"]);
    const list = node(root, ["soak/crash-writer.ts", what, db, target, "list"]);
    if (list.status !== 0) {
      problems.push(`crash points: ${what} did not run to the end: ${list.stderr.trim()}`);
      continue;
    }
    const steps = list.stdout.trim().split("\n");
    const before = what === "report" ? contents(out) : null;
    const tables = what === "export" ? exportTree(exp) : null;
    let killed = 0;
    for (const step of steps) {
      const run = node(root, ["soak/crash-writer.ts", what, db, target, step]);
      if (run.signal !== "SIGKILL") {
        problems.push(`crash points: ${what} was not killed at "${step}" (exit ${run.status})`);
        continue;
      }
      killed++;
      asNextWriter(target);
      const found = what === "report" ? reportSetProblems(out) : exportProblems(exp, tables!);
      // every step comes before the swap's commit: the previous set, byte for byte
      if (what === "report" && found.length === 0 && !sameContents(contents(out), before!)) found.push("not the previous set");
      for (const p of found) problems.push(`crash points: ${what} killed at "${step}": ${p}`);
    }
    say(`crash points: ${what} killed at each of its ${steps.length} steps (${killed} kills); after each, the next writer found ${what === "report" ? "the previous set whole" : "every table whole"}${problems.length ? " except as listed" : ""}`);
  }
  problems.push(...diskFullStep(root, dir, db, say));
  return problems;
}

/** As root only: the reports and the export onto a tmpfs too small for them. */
function diskFullStep(root: string, dir: string, db: string, say: Say): string[] {
  if (process.getuid?.() !== 0) {
    say("disk full: skipped (needs root to mount a tmpfs)");
    return [];
  }
  const problems: string[] = [];
  const small = join(dir, "small");
  mkdirSync(small);
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", small], { encoding: "utf8" });
  if (mounted.status !== 0) {
    say(`disk full: skipped (mount failed: ${mounted.stderr.trim()})`);
    return [];
  }
  try {
    for (const [what, args, cause] of [
      ["report", ["src/cli/report.ts", "--db", db, "--out", join(small, "out")], /^error: cannot write the reports: [^ ]+: no space left on the device; /],
      ["export", ["src/cli/export.ts", "--db", db, "--out", join(small, "export"), "--all"], /^error: cannot write the export to [^ ]+: no space left on the device; the previous export is kept$/],
    ] as const) {
      const run = node(root, [...args]);
      const errors = run.stderr.split("\n").filter((l) => l.startsWith("error:"));
      if (run.status !== 1) problems.push(`disk full: ${what} exited ${run.status}, not 1`);
      if (errors.length !== 1 || !cause.test(errors[0]!)) problems.push(`disk full: ${what} did not fail with one line naming the full disk: ${JSON.stringify(errors)}`);
      if (/\n\s+at /.test(run.stderr)) problems.push(`disk full: ${what} printed a stack trace`);
      const left = readdirSync(join(small, what === "report" ? "out" : "export"));
      if (left.length > 0) problems.push(`disk full: ${what} left ${left.join(", ")} behind`);
      say(`disk full: ${what} on a 256 KiB tmpfs: exit ${run.status}, ${errors[0] ?? "(no error line)"}`);
    }
  } finally {
    spawnSync("umount", [small]);
    rmSync(small, { recursive: true, force: true });
  }
  return problems;
}
