// Independent checks (plain file reads, not the writers' code) that an output folder holds one whole
// report set, or whole export tables, and nothing a writer left behind; and the next writer's first step.
import { createHash } from "node:crypto";
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { join } from "node:path";
import { acquireOutLock } from "../src/outputs/out-lock.js";
import { clearDebris } from "../src/outputs/out-debris.js";

/** What the next writer of `dir` does first, alone: take its lock (a dead writer's is stale) and clear the debris. */
export function asNextWriter(dir: string): string[] {
  const lock = acquireOutLock(dir, { command: "soak" });
  try {
    return clearDebris(dir);
  } finally {
    lock.release();
  }
}

/** What is wrong with the report set in `dir`: empty when it is one writer's whole set. */
export function reportSetProblems(dir: string): string[] {
  const problems: string[] = [];
  let record: { files?: unknown; stamps?: Record<string, { size: number; modified: number; inode: number }> };
  try {
    record = JSON.parse(readFileSync(join(dir, ".fingerprint"), "utf8")) as typeof record;
  } catch {
    return [`${dir}: no readable .fingerprint`];
  }
  const files = Array.isArray(record.files) ? (record.files as string[]) : [];
  if (files.length === 0) problems.push(`${dir}/.fingerprint names no files`);
  for (const name of files) {
    const path = join(dir, name);
    const stamp = record.stamps?.[name];
    if (!existsSync(path)) problems.push(`${name} is missing`);
    else if (!stamp) problems.push(`${name} has no stamp in .fingerprint`);
    else {
      const st = statSync(path);
      if (st.size !== stamp.size || st.mtimeMs !== stamp.modified || st.ino !== stamp.inode)
        problems.push(`${name} is not the file its set's .fingerprint was written with`);
    }
  }
  for (const name of readdirSync(dir)) {
    if (name.startsWith(".")) {
      if (name !== ".fingerprint") problems.push(`${name} left behind`);
    } else if (!files.includes(name)) problems.push(`${name} is not part of the set`);
  }
  return problems;
}

/** Every file under `dir` (dot entries excluded at the top, symlinked tables followed) by relative path, with its SHA-256. */
export function exportTree(dir: string, prefix = ""): Map<string, string> {
  const tree = new Map<string, string>();
  for (const entry of readdirSync(join(dir, prefix)).sort()) {
    if (prefix === "" && entry.startsWith(".")) continue;
    const rel = prefix === "" ? entry : `${prefix}/${entry}`;
    const path = join(dir, rel);
    // statSync follows a symlink: a partitioned table is a link to its version folder
    if (statSync(path).isDirectory()) for (const [p, h] of exportTree(dir, rel)) tree.set(p, h);
    else tree.set(rel, createHash("sha256").update(readFileSync(path)).digest("hex"));
  }
  return tree;
}

/** Differences between two export trees, and anything a writer left: a dot entry at the top, or a table version nothing links to. */
export function exportProblems(dir: string, expected: Map<string, string>): string[] {
  const problems = readdirSync(dir).filter((n) => n.startsWith(".") && n !== ".tables").map((n) => `${n} left behind`);
  if (existsSync(join(dir, ".tables"))) {
    const linked = readdirSync(dir).filter((n) => lstatSync(join(dir, n)).isSymbolicLink()).map((n) => readlinkSync(join(dir, n)));
    for (const v of readdirSync(join(dir, ".tables"))) if (!linked.includes(`.tables/${v}`)) problems.push(`.tables/${v} left behind`);
  }
  const actual = exportTree(dir);
  for (const [path, hash] of expected) if (actual.get(path) !== hash) problems.push(`${path} ${actual.has(path) ? "differs" : "is missing"}`);
  for (const path of actual.keys()) if (!expected.has(path)) problems.push(`${path} is not part of the export`);
  return problems;
}
