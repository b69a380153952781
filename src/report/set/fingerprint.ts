// Whether the report set in --out is current: a fingerprint of everything the set is made from
// (the run's input rows, the report options, the scope's lookups and providers, a version of the
// stored answers, and the report code itself), written beside the set as .fingerprint and
// compared before a batch rewrites it. A nightly run that changed nothing then rewrites nothing.
// The run id is not in it: a re-run of the same input is the same set.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ReportSnapshot } from "../../store/snapshot.js";
import { writeAtomically } from "./atomic-file.js";

export const FINGERPRINT_FILE = ".fingerprint";

interface FingerprintFile {
  fingerprint: string;
  /**
   * the fingerprint of the same state with the options as given, before the mobile scale is decided
   * from the answers: the same state and options decide the same scale, so a batch that finds this
   * one unchanged keeps the set without deciding it again
   */
  given?: string;
  /** the set's files, relative to --out: all must still be there for the set to be current */
  files: string[];
  /**
   * each file's size, modification time and inode as written (a rename keeps all three): a set is
   * current only when every file is still the one this record was written with, so a set mixed from
   * two writers, or a file replaced by hand, is never kept
   */
  stamps?: Record<string, FileStamp>;
}

interface FileStamp {
  size: number;
  modified: number;
  inode: number;
}

function stampOf(path: string): FileStamp | null {
  try {
    const st = statSync(path);
    return { size: st.size, modified: st.mtimeMs, inode: st.ino };
  } catch {
    return null;
  }
}

/** Report options as they shape the files: values only (no directory, clock or callbacks); null is an option not given. */
export function optionsKey(options: Record<string, unknown>): Record<string, unknown> {
  // --all is in the scope's kind; the quota's pace is the ledger's state, as the clock is, not an option.
  const skip = new Set(["outDir", "runId", "all", "now", "onWarning", "files", "command", "answerPaces"]);
  return Object.fromEntries(
    Object.entries(options)
      .filter(([k, v]) => !skip.has(k) && v !== undefined && v !== null && typeof v !== "function")
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

/** What the set is made from besides its options: the database as it stands, hashed once for both fingerprints. */
export async function fingerprintState(snapshot: ReportSnapshot, options: { areaFile?: unknown }): Promise<string> {
  const scope = snapshot.scope;
  const hash = createHash("sha256");
  hash.update(
    JSON.stringify({
      code: reportCodeDigest(),
      scope: { kind: scope.kind, lookups: scope.lookups, providers: scope.providers, columns: scope.inputColumns, simulated: scope.runSimulated },
      answers: await snapshot.answersVersion(),
      // the stored release of Ofcom's open data (a new import is a new id)
      openData: scope.openData ? [scope.openData.id, scope.openData.premises] : null,
      // --area-file: its content is read, so its size and time are part of what the set is made from
      areaFile: typeof options.areaFile === "string" && existsSync(options.areaFile) ? fileStamp(options.areaFile) : null,
      // a run's answers it needed but did not fetch show as pending
      outcomes: await snapshot.outcomeCounts(),
    }),
  );
  // every input row of the run as stored (its line, cell text and verdict), in line order
  for await (const rows of snapshot.inputRows()) for (const row of rows) hash.update(`${row.join("\u001f")}\u001e`);
  return hash.digest("hex");
}

/** The fingerprint of the set that `options` would write from the `state` (fingerprintState). */
export function reportFingerprint(state: string, options: Record<string, unknown>): string {
  return createHash("sha256").update(JSON.stringify({ state, options: optionsKey(options) })).digest("hex");
}

function fileStamp(path: string): { size: number; modified: number } {
  const st = statSync(path);
  return { size: st.size, modified: st.mtimeMs };
}

let codeDigest: string | null = null;
/** The report code, the contract and figure definitions it reads and the store that computes its figures: a new version of any makes every set stale. */
function reportCodeDigest(): string {
  if (codeDigest !== null) return codeDigest;
  const hash = createHash("sha256");
  // this file is src/report/set/fingerprint.ts: the report code is its room's parent
  const report = join(dirname(fileURLToPath(import.meta.url)), "..");
  // every file below src/report, src/contract, src/figures and src/store (the snapshot's SQL counts
  // the figures: src/store/sql/report/)
  const add = (dir: string, prefix: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) add(path, `${prefix}${name}/`);
      else hash.update(prefix + name).update(readFileSync(path));
    }
  };
  add(report, "report/");
  add(join(report, "..", "contract"), "contract/");
  add(join(report, "..", "figures"), "figures/");
  add(join(report, "..", "store"), "store/");
  return (codeDigest = hash.digest("hex"));
}

/** True when --out holds a complete set with this fingerprint (`given`: of its options as given). */
export function isReportSetCurrent(outDir: string, fingerprint: string, which: "fingerprint" | "given" = "fingerprint"): boolean {
  let stored: FingerprintFile;
  try {
    stored = JSON.parse(readFileSync(join(outDir, FINGERPRINT_FILE), "utf8")) as FingerprintFile;
  } catch {
    return false;
  }
  if (stored[which] !== fingerprint || !Array.isArray(stored.files) || !stored.stamps) return false;
  const stamps = stored.stamps;
  return stored.files.every((f) => {
    const now = stampOf(join(outDir, f));
    const then = stamps[f];
    return now !== null && then !== undefined && now.size === then.size && now.modified === then.modified && now.inode === then.inode;
  });
}

/**
 * The set's record of what it was made from, written at `path` as the set's last file, beside the
 * files it names (the staging directory): their stamps are taken as written.
 */
export async function recordFingerprint(path: string, fingerprint: string, files: readonly string[], given?: string): Promise<void> {
  const stamps: Record<string, FileStamp> = {};
  for (const f of files) {
    const stamp = stampOf(join(dirname(path), f));
    if (stamp) stamps[f] = stamp;
  }
  const record: FingerprintFile = { fingerprint, ...(given === undefined ? {} : { given }), files: [...files], stamps };
  await writeAtomically(path, [JSON.stringify(record) + "\n"]);
}
