// Where the bench runs from and writes to.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const OUTPUT_DIR = join(ROOT, "output");

/** A fresh scratch directory; remove it with the returned function. */
export function scratchDir(label: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `pcc-bench-${label}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
