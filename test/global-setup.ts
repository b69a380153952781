// Once per `vitest run`: a folder where test files note a missing tool they skipped for
// (helpers/requires-tool.ts), and at the end one line per missing tool with its install command.
// Also the throwaway PostgreSQL server (helpers/postgres-server.ts), started once for the whole run
// when the package is installed: about 0.9 s here, against 0.9 s per file if each file started its own.
// And the repository compiled for the tests' child processes (helpers/compiled-tree-build.ts).
// Every temporary folder of the run is made in one folder of its own (TMPDIR for the workers and
// their children), removed at the end: files that make a folder per test and leave it would
// otherwise leave tens of megabytes in /tmp at every run.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { buildCompiledTree } from "./helpers/compiled-tree-build.js";
import { postgresBinDir, startPostgresServer, type PostgresServer } from "./helpers/postgres-server.js";
import type {} from "./helpers/requires-tool.js"; // declares what is provided
import type {} from "./helpers/postgres.js";
import type {} from "./helpers/compiled-tree.js";

export default async function setup(project: TestProject): Promise<() => void> {
  const runTmp = mkdtempSync(join(tmpdir(), "pcc-run-"));
  // enterable by all: a test runs a CLI as another user on a database in a folder of its own in here
  chmodSync(runTmp, 0o755);
  const previousTmp = process.env.TMPDIR;
  process.env.TMPDIR = runTmp;
  let server: PostgresServer | null = null;
  // The server stopped and the run's folder (with the compiled tree and the server's files) removed:
  // by the teardown, or on exit when vitest is stopped early (Ctrl-C, SIGTERM: it then exits without
  // running the teardown, and the server, started apart by pg_ctl, would run on).
  const release = () => {
    process.off("exit", release);
    server?.stop();
    rmSync(runTmp, { recursive: true, force: true });
  };
  // first: vitest's own exit listener calls process.exit again, which ends the listeners after it
  process.prependOnceListener("exit", release);
  let compiled: string | null = null;
  try {
    compiled = await buildCompiledTree();
  } catch (err) {
    console.warn(`the tests' child processes start through tsx: the tree did not compile (${(err as Error).message.split("\n")[0]})`);
  }
  project.provide("compiledTree", compiled);
  const dir = mkdtempSync(join(tmpdir(), "pcc-missing-tools-"));
  project.provide("missingToolsDir", dir);
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
    const lines = readdirSync(dir).sort().map((f) => readFileSync(join(dir, f), "utf8").trim());
    release();
    for (const line of lines) console.log(`SKIPPED tests: ${line}`);
    if (previousTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previousTmp;
  };
}
