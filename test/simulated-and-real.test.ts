// Issue 24.2: simulated answers (--simulate, npm run demo) and real ones never share a database.
// The demo keeps its own folder; a database that holds one kind refuses a run of the other with
// one line, before taking a run number; the quota ledger counts only requests to the real API.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePostcodes, startSimulator, type Simulator } from "../src/simulator/index.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { query } from "./helpers/child-cli.js";

const KEY = "Zt8-qq-W4y-apikey";
const SEED = 24;
const POSTCODES = generatePostcodes(SEED, 6);

let sim: Simulator;
const dirs: string[] = [];
beforeAll(async () => {
  // stands in for the real API: a run against a --base-url is a real run
  sim = await startSimulator({ port: 0, seed: SEED, key: KEY });
});
afterAll(async () => {
  await sim?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function workDir(): { dir: string; input: string; db: string } {
  const dir = tempDir("pcc-kinds-");
  dirs.push(dir);
  return { dir, input: writeCsv(dir, "in.csv", ["postcode", ...POSTCODES]), db: join(dir, "coverage.sqlite") };
}

const lines = (logs: string[]) => logs.map((l) => JSON.parse(l) as Record<string, unknown> & { level: string; message: string });

describe("simulated and real answers", () => {
  it("a database of simulated answers refuses a real run with one line, and takes no run number", async () => {
    const { dir, input, db } = workDir();
    expect((await runIn(dir, { in: input, simulate: true }, {})).exitCode).toBe(0);
    const real = await runIn(dir, { in: input, baseUrl: sim.url }, { COVERAGE_API_KEY: KEY });
    expect(real.exitCode).toBe(1);
    expect(real.runId).toBeNull();
    expect(lines(real.logs)).toEqual([
      expect.objectContaining({
        level: "error",
        message: `${db} holds simulated answers (--simulate, npm run demo); a real run must not mix with them: give it another --db, or delete ${db} if those answers are no longer wanted`,
        event: "refused",
        exitCode: 1,
        stopReason: "mixed_data",
      }),
    ]);
    expect(sim.counters.total).toBe(0);
    expect(query(db, "SELECT id, simulated FROM runs")).toEqual([{ id: 1, simulated: 1 }]);
    expect(query(db, "SELECT COUNT(*) AS n FROM leases")).toEqual([{ n: 0 }]);
  });

  it("a database of real answers refuses a simulated run the same way", async () => {
    const { dir, input, db } = workDir();
    expect((await runIn(dir, { in: input, baseUrl: sim.url }, { COVERAGE_API_KEY: KEY })).exitCode).toBe(0);
    const simulated = await runIn(dir, { in: input, simulate: true }, {});
    expect(simulated.exitCode).toBe(1);
    expect(lines(simulated.logs).map((l) => [l.level, l.stopReason, l.message])).toEqual([
      [
        "error",
        "mixed_data",
        `${db} holds answers from the real API; a simulated run (--simulate) must not mix its made-up answers with them: give it another --db (npm run demo uses demo/coverage.sqlite)`,
      ],
    ]);
    expect(query(db, "SELECT id, simulated FROM runs")).toEqual([{ id: 1, simulated: 0 }]);
  });

  it("the ledger counts the real API's requests, not the simulator's", async () => {
    const simulated = workDir();
    const s = await runIn(simulated.dir, { in: simulated.input, simulate: true }, {});
    expect(s.counts!.requests).toBe(2 * POSTCODES.length);
    expect(query(simulated.db, "SELECT COUNT(*) AS n FROM request_ledger")).toEqual([{ n: 0 }]);

    const real = workDir();
    const before = sim.counters.total;
    const r = await runIn(real.dir, { in: real.input, baseUrl: sim.url }, { COVERAGE_API_KEY: KEY });
    expect(r.counts!.requests).toBe(2 * POSTCODES.length);
    expect(sim.counters.total - before).toBe(2 * POSTCODES.length);
    expect(query(real.db, "SELECT lookup, COUNT(*) AS n FROM request_ledger GROUP BY lookup ORDER BY lookup")).toEqual([
      { lookup: "broadband", n: POSTCODES.length },
      { lookup: "mobile", n: POSTCODES.length },
    ]);
  });

  it("npm run demo keeps its database and reports in demo/, apart from a real run's output/", () => {
    const scripts = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { scripts: Record<string, string> }).scripts;
    expect(scripts.demo).toMatch(/ --simulate /);
    expect(scripts.demo).toMatch(/ --db demo\/coverage\.sqlite --out demo$/);
  });
});
