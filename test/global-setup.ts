// Once per `vitest run`: a folder where test files note a missing tool they skipped for
// (helpers/requires-tool.ts), and at the end one line per missing tool with its install command.
// Also the throwaway PostgreSQL server (helpers/postgres-server.ts), started once for the whole run
// when the package is installed: about 0.9 s here, against 0.9 s per file if each file started its own.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { postgresBinDir, startPostgresServer, type PostgresServer } from "./helpers/postgres-server.js";
import type {} from "./helpers/requires-tool.js"; // declares what is provided
import type {} from "./helpers/postgres.js";

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), "pcc-missing-tools-"));
  project.provide("missingToolsDir", dir);
  let server: PostgresServer | null = null;
  const binDir = postgresBinDir();
  if (binDir) {
    try {
      server = startPostgresServer(binDir);
      project.provide("postgres", { socketDir: server.socketDir, user: server.user, failure: null });
    } catch (err) {
      // installed but not startable: the tests that need it fail, naming why
      project.provide("postgres", { socketDir: "", user: "", failure: (err as Error).message });
    }
  }
  return () => {
    server?.stop();
    const lines = readdirSync(dir).sort().map((f) => readFileSync(join(dir, f), "utf8").trim());
    rmSync(dir, { recursive: true, force: true });
    for (const line of lines) console.log(`SKIPPED tests: ${line}`);
  };
}
