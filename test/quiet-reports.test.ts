// A --quiet night still says what became of the reports: written, or kept because nothing changed.
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/log/logger.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { generatePostcodes } from "../src/simulator/index.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("--quiet and the reports", () => {
  it("the first night says the reports were written, the next (nothing changed) that they were kept", async () => {
    const d = tempDir("pcc-quiet-reports-");
    dirs.push(d);
    const input = writeCsv(d, "in.csv", ["postcode", ...generatePostcodes(5, 6)]);
    const night = async () => {
      const lines: string[] = [];
      const logger = createLogger({ format: "text", quiet: true, write: (l) => lines.push(l) });
      const run = await runIn(d, { in: input, simulate: true, quiet: true }, {}, { logger });
      expect(run.exitCode).toBe(0);
      return lines.filter((l) => /^reports /.test(l));
    };
    const first = await night();
    expect(first).toHaveLength(1);
    expect(first[0]).toMatch(/^reports written to \S+: .*coverage\.xlsx/);
    const second = await night();
    expect(second).toHaveLength(1);
    expect(second[0]).toMatch(/^reports are current: \S+ already holds this set \(same input, options and answers\), kept as it is$/);
  }, 60_000);
});
