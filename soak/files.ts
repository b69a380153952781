// File reads for the soak's checks: the reports a run wrote, and a search for the API key.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { FINGERPRINT_FILE } from "../src/report/set/fingerprint.js";

/**
 * Every file of a reports directory, by name (empty when the directory does not exist). The set's
 * fingerprint is left out: it records the history of the answers, which a chaos run's differs from.
 */
export function readReports(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return files;
  }
  for (const name of names.sort())
    if (name !== FINGERPRINT_FILE && statSync(join(dir, name)).isFile()) files.set(name, readFileSync(join(dir, name)));
  return files;
}

/** Files under dir whose bytes contain the secret: logs, databases with their WAL, reports. */
export function findSecret(dir: string, secret: string): string[] {
  const needle = Buffer.from(secret);
  const hits: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const path = join(dir, entry);
    if (statSync(path).isFile() && readFileSync(path).includes(needle)) hits.push(relative(dir, path));
  }
  return hits;
}
