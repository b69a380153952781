// Issue 24.5: a run refused for its configuration takes no run number. Report options naming a
// column the input lacks are found once the input's header is read; the run is then forgotten
// (its rows and its row), and the next run takes the number.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generatePostcodes } from "../src/simulator/index.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { query } from "./helpers/child-cli.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("a run refused for its report options", () => {
  it("keeps no run number and no input rows; the next run is run 1", async () => {
    const d = tempDir("pcc-refused-");
    dirs.push(d);
    const db = join(d, "coverage.sqlite");
    const input = writeCsv(d, "in.csv", ["id,postcode", ...generatePostcodes(5, 3).map((p, i) => `${i},${p}`)]);
    const bad = await runIn(d, { in: input, simulate: true, groupBy: "regoin" }, {});
    expect(bad.exitCode).toBe(1);
    expect(bad.runId).toBeNull();
    const lines = bad.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l.level === "error")).toEqual([
      expect.objectContaining({ event: "refused", exitCode: 1, stopReason: "options", message: expect.stringMatching(/^--group-by "regoin": no such column/) }),
    ]);
    expect(query(db, "SELECT COUNT(*) AS n FROM runs")).toEqual([{ n: 0 }]);
    expect(query(db, "SELECT COUNT(*) AS n FROM run_rows")).toEqual([{ n: 0 }]);
    expect(query(db, "SELECT COUNT(*) AS n FROM leases")).toEqual([{ n: 0 }]);

    const good = await runIn(d, { in: input, simulate: true, reports: false }, {});
    expect(good.exitCode).toBe(0);
    expect(good.runId).toBe(1);
  });
});
