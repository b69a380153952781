import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // notes tools a test file skipped for and names them at the end (test/helpers/requires-tool.ts)
    globalSetup: ["test/global-setup.ts"],
    // SUITE_CPU_LOG=FILE: each file's CPU, its own and its children's (test/helpers/suite-cpu.ts)
    setupFiles: process.env.SUITE_CPU_LOG ? ["test/helpers/suite-cpu.ts"] : [],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Each worker process runs its files one after another with the modules it has loaded: a fresh
    // process per file cost over a quarter of the suite's CPU in start-ups and imports. A file must
    // close what it opens (stores, servers, connections, child processes, signal handlers): what it
    // leaves open stays for the files after it in its worker.
    isolate: false,
    // Two files at once on a 2-core machine (vitest's default there is one): while one file waits on
    // its child processes or the browser, the other uses the core (the suite keeps both about 93%
    // busy; docs/development.md, "Where the suite's time goes"). As many workers at least
    // as at most: the pool ends a worker it finds idle, and with fewer at least it has ended one
    // still running a file (the run then fails with "Terminating worker thread").
    maxWorkers: 2,
    minWorkers: 2,
  },
});
