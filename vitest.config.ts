import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // notes tools a test file skipped for and names them at the end (test/helpers/requires-tool.ts)
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Most test time is waiting on child processes, loopback HTTP and the browser, not CPU: two
    // files at once on a 2-core machine (vitest's default there is one).
    maxWorkers: 2,
    minWorkers: 1,
  },
});
