// --quiet (cron) keeps what a log must say while a run is under way: the plan when it is made and
// each reason to stop when it happens, so a run that hangs afterwards still leaves a telling log.
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/log/logger.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { generatePostcodes } from "../src/simulator/index.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("--quiet", () => {
  it("writes the plan and the stop reason as they happen, then the results", async () => {
    const d = tempDir("pcc-quiet-");
    dirs.push(d);
    const input = writeCsv(d, "in.csv", ["postcode", ...generatePostcodes(3, 10)]);
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({ format: "json", quiet: true, write: (l) => lines.push(JSON.parse(l) as Record<string, unknown>) });
    const run = await runIn(d, { in: input, simulate: true, maxRequests: 4, concurrency: 1, quiet: true, reports: false }, {}, { logger });
    expect(run.exitCode).toBe(3);
    expect(lines.map((l) => [l.level, l.event])).toEqual([
      ["info", "plan"],
      ["warn", "stop"],
      ["result", "summary"],
    ]);
    expect(lines[1]).toMatchObject({ stopReason: "max_requests", message: "stopped after --max-requests 4 requests; re-run resumes" });
    expect(lines[2]).toMatchObject({ exitCode: 3, stopReason: "max_requests" });
  });

  it("drops the other info and warning lines", () => {
    const lines: string[] = [];
    const logger = createLogger({ format: "text", quiet: true, write: (l) => lines.push(l) });
    logger.info("progress");
    logger.warn("a warning");
    logger.milestone("info", "the plan");
    logger.milestone("warn", "why it stops");
    logger.result("the summary");
    expect(lines).toEqual(["the plan", "warning: why it stops", "the summary"]);
  });
});
