// A signal that arrives while the reports are written is recorded as what it was: the run's state,
// its exit code and the summary's stop reason agree (on main: exit 0, state completed, stopReason SIGHUP).
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/log/logger.js";
import { generatePostcodes, startSimulator } from "../src/simulator/index.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { query } from "./helpers/child-cli.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("a signal during the reports", () => {
  it.each([
    ["SIGHUP", 129],
    ["SIGTERM", 143],
  ] as const)("%s: exit %i, state interrupted, stop reason the signal, in the runs table and the summary alike", async (signal, code) => {
    const d = tempDir("pcc-late-signal-");
    dirs.push(d);
    const input = writeCsv(d, "in.csv", ["postcode", ...generatePostcodes(5, 6)]);
    const logs: string[] = [];
    const logger = createLogger({
      format: "json",
      quiet: false,
      verbose: true,
      write: (l) => {
        logs.push(l);
        if (l.includes('"event":"reports-start"')) process.emit(signal, signal);
      },
    });
    const r = await runIn(d, { in: input, simulate: true }, { COVERAGE_API_KEY: "late-signal-key-000" }, { logger, handleSignals: true });
    const summary = JSON.parse(logs.find((l) => l.includes('"event":"summary"'))!) as Record<string, unknown>;
    expect(summary.stopReason).toBe(signal);
    expect(r.exitCode).toBe(code);
    expect(summary.exitCode).toBe(code);
    expect(query(join(d, "coverage.sqlite"), "SELECT state, exit_code FROM runs")).toEqual([{ state: "interrupted", exit_code: code }]);
  });
});

describe("a failed cleanup after the run's end", () => {
  it("its line carries event, exitCode and stopReason, the run's own", async () => {
    const d = tempDir("pcc-cleanup-failed-");
    dirs.push(d);
    const input = writeCsv(d, "in.csv", ["postcode", ...generatePostcodes(5, 4)]);
    const sim = await startSimulator({ seed: 5, key: "zq7-test-key-4455xy", port: 0 });
    const api = async () => ({
      baseUrl: new URL(sim.url),
      key: "zq7-test-key-4455xy",
      description: "a simulator whose closing fails",
      close: async () => {
        await sim.close();
        throw new Error("Connection terminated unexpectedly");
      },
    });
    const r = await runIn(d, { in: input, simulate: true }, {}, { api });
    const last = JSON.parse(r.logs.at(-1)!) as Record<string, unknown>;
    // on main: {"level":"error","message":"cleanup failed: …"} with no event, exit code or stop reason
    expect(last).toMatchObject({ event: "cleanup_failed", exitCode: r.exitCode, stopReason: null });
    expect(String(last.message)).toMatch(/^cleanup failed: .*Connection terminated unexpectedly/);
  });
});
