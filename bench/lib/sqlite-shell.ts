// The yardstick of the report scenario: the sqlite3 command-line shell's own CSV export.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, openSync } from "node:fs";

export const SQLITE3_INSTALL_HINT =
  "the sqlite3 command-line shell is not installed: `sudo apt-get install sqlite3` (Debian/Ubuntu), " +
  "`sudo dnf install sqlite` (Fedora), `brew install sqlite` (macOS)";

/** The shell's version line, or null when it is not on PATH. */
export function sqlite3Version(): string | null {
  const r = spawnSync("sqlite3", ["-version"], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** `sqlite3 -csv -header DB "SQL" > out`, timed; throws on a non-zero exit. */
export async function sqlite3CsvExport(dbPath: string, sql: string, outPath: string): Promise<number> {
  const out = openSync(outPath, "w");
  const started = performance.now();
  try {
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn("sqlite3", ["-readonly", "-csv", "-header", dbPath, sql], { stdio: ["ignore", out, "pipe"] });
      let stderr = "";
      child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
      child.once("error", reject);
      child.once("exit", (c) => resolve({ code: c, stderr }));
    });
    if (code !== 0) throw new Error(`sqlite3 exited ${code}: ${stderr.trim()}`);
    return (performance.now() - started) / 1000;
  } finally {
    closeSync(out);
  }
}
