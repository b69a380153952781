// The report set is replaced whole or not at all. Every file is written to a staging directory inside
// --out (so on the same filesystem), then swapped in: the previous files move aside, the new ones move
// in, and only then is the old set deleted. If anything fails, what was moved is moved back, so --out
// holds exactly the previous set, and the error names the file and the cause. A process killed
// mid-swap leaves a journal in its `.previous-*` directory; the next writer of the folder (holding
// its lock, out-lock.ts) rolls that swap back before anything else (out-debris.ts).
import { mkdir, mkdtemp, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { debrisPrefix, SWAP_JOURNAL, type SwapJournal } from "../../outputs/out-debris.js";
import { causeOf } from "../../outputs/output-error.js";
import { ReportError } from "./scope.js";

/** One file of the set. A new report is one more entry in the list given to writeReportSet. */
export interface ReportFile<C> {
  name: string;
  /** false: not part of this set (e.g. enriched.csv under --all); an old copy is removed with the old set */
  applies?: (context: C) => boolean;
  /** writes the whole file at `path` */
  write: (context: C, path: string) => Promise<unknown>;
}

/** A set that could not be written or put in place; --out is as it was. */
export class ReportSetError extends ReportError {}

/** Test and soak hook: called before each step of the swap (`aside NAME`, `in NAME`, `commit`). */
export type SwapStepHook = (step: string) => void | Promise<void>;

export interface ReportSetOptions {
  /** checked just before the swap: throws when this writer no longer holds --out (out-lock.ts), or its run its lease */
  beforeSwap?: () => void | Promise<void>;
  onStep?: SwapStepHook | undefined;
}

/** Writes the applicable files to staging and swaps the set into `outDir`. Returns the paths now in place. */
export async function writeReportSet<C>(
  outDir: string,
  files: readonly ReportFile<C>[],
  context: C,
  options: ReportSetOptions = {},
): Promise<string[]> {
  await prepareOut(outDir);
  const staging = await mkdtemp(join(outDir, debrisPrefix("staging")));
  const chosen = files.filter((f) => f.applies?.(context) ?? true);
  try {
    for (const file of chosen) {
      await options.onStep?.(`write ${file.name}`);
      try {
        await file.write(context, join(staging, file.name));
      } catch (err) {
        throw new ReportSetError(`cannot write the reports: ${file.name}: ${causeOf(err)}; ${outDir} keeps its previous reports`);
      }
    }
    await options.beforeSwap?.();
    await swapIn(outDir, staging, chosen.map((f) => f.name), files.map((f) => f.name), options.onStep);
  } finally {
    await rm(staging, { recursive: true, force: true }).catch(() => {});
  }
  return chosen.map((f) => join(outDir, f.name));
}

/** --out exists and is a directory (created if missing), or a ReportSetError naming it. */
export async function prepareOut(outDir: string): Promise<void> {
  try {
    await mkdir(outDir, { recursive: true });
    if (!(await stat(outDir)).isDirectory()) throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
  } catch (err) {
    throw new ReportSetError(`cannot write the reports to ${outDir}: ${causeOf(err)}`);
  }
}

/** Moves the old set aside, the new one in; on any failure puts the old set back. */
async function swapIn(outDir: string, staging: string, names: readonly string[], allNames: readonly string[], onStep?: SwapStepHook): Promise<void> {
  let previous = "";
  const movedAside: string[] = [];
  const movedIn: string[] = [];
  let current = "";
  try {
    previous = await mkdtemp(join(outDir, debrisPrefix("previous")));
    // Written before anything moves: what a rollback after a kill needs to know.
    const journal: SwapJournal = { staging: staging.split(/[\\/]/).pop()!, names: [...names] };
    await writeFile(join(previous, SWAP_JOURNAL), JSON.stringify(journal));
    for (const name of allNames) {
      current = name;
      if (await exists(join(outDir, name))) {
        await onStep?.(`aside ${name}`);
        await rename(join(outDir, name), join(previous, name));
        movedAside.push(name);
      }
    }
    for (const name of names) {
      current = name;
      await onStep?.(`in ${name}`);
      await rename(join(staging, name), join(outDir, name));
      movedIn.push(name);
    }
  } catch (err) {
    // back to staging rather than deleted: a new file is always in staging or in --out (out-debris.ts relies on it)
    for (const name of movedIn) await rename(join(outDir, name), join(staging, name)).catch(() => {});
    for (const name of movedAside) await rename(join(previous, name), join(outDir, name)).catch(() => {});
    if (previous) await rm(previous, { recursive: true, force: true }).catch(() => {});
    throw new ReportSetError(`cannot put the reports in place: ${current || outDir}: ${causeOf(err)}; ${outDir} keeps its previous reports`);
  }
  // The commit: once the journal's directory is renamed, the new set stands and a rollback never runs.
  await onStep?.("commit");
  const discard = previous.replace(/\.previous-([^/\\]*)$/, ".discard-$1");
  await rename(previous, discard);
  await rm(discard, { recursive: true, force: true }).catch(() => {});
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
