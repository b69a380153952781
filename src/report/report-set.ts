// The report set is replaced whole or not at all. Every file is written to a staging directory inside
// --out (so on the same filesystem), then swapped in: the previous files move aside, the new ones move
// in, and only then is the old set deleted. If anything fails, what was moved is moved back, so --out
// holds exactly the previous set, and the error names the file and the cause.
import { mkdir, mkdtemp, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
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

/** Writes the applicable files to staging and swaps the set into `outDir`. Returns the paths now in place. */
export async function writeReportSet<C>(outDir: string, files: readonly ReportFile<C>[], context: C): Promise<string[]> {
  await prepareOut(outDir);
  const staging = await mkdtemp(join(outDir, ".staging-"));
  const chosen = files.filter((f) => f.applies?.(context) ?? true);
  try {
    for (const file of chosen) {
      try {
        await file.write(context, join(staging, file.name));
      } catch (err) {
        throw new ReportSetError(`cannot write the reports: ${file.name}: ${causeOf(err)}; ${outDir} keeps its previous reports`);
      }
    }
    await swapIn(outDir, staging, chosen.map((f) => f.name), files.map((f) => f.name));
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return chosen.map((f) => join(outDir, f.name));
}

async function prepareOut(outDir: string): Promise<void> {
  try {
    await mkdir(outDir, { recursive: true });
    if (!(await stat(outDir)).isDirectory()) throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
  } catch (err) {
    throw new ReportSetError(`cannot write the reports to ${outDir}: ${causeOf(err)}`);
  }
}

/** Moves the old set aside, the new one in; on any failure puts the old set back. */
async function swapIn(outDir: string, staging: string, names: readonly string[], allNames: readonly string[]): Promise<void> {
  const previous = await mkdtemp(join(outDir, ".previous-"));
  const movedAside: string[] = [];
  const movedIn: string[] = [];
  let current = "";
  try {
    for (const name of allNames) {
      current = name;
      if (await exists(join(outDir, name))) {
        await rename(join(outDir, name), join(previous, name));
        movedAside.push(name);
      }
    }
    for (const name of names) {
      current = name;
      await rename(join(staging, name), join(outDir, name));
      movedIn.push(name);
    }
  } catch (err) {
    for (const name of movedIn) await rm(join(outDir, name), { force: true }).catch(() => {});
    for (const name of movedAside) await rename(join(previous, name), join(outDir, name)).catch(() => {});
    await rm(previous, { recursive: true, force: true }).catch(() => {});
    throw new ReportSetError(`cannot put the reports in place: ${current}: ${causeOf(err)}; ${outDir} keeps its previous reports`);
  }
  await rm(previous, { recursive: true, force: true });
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

function causeOf(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const known: Record<string, string> = {
    ENOSPC: "no space left on the device",
    EACCES: "permission denied",
    EPERM: "operation not permitted",
    EROFS: "read-only file system",
    ENOTDIR: "not a directory",
    EEXIST: "a file is in the way",
    EDQUOT: "disk quota exceeded",
  };
  return (e.code && known[e.code]) ?? e.message ?? String(err);
}
