// SQLite: a report reads the scale evidence the batch's recordScales counted, for the same answers
// at the same version, instead of counting every stored rating a second time; any change to an
// answer, or a store that did not count, counts afresh. Shown by a rating changed behind the
// store's back (no answer's version moves): only a fresh count sees it.
import { rmSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PROVIDERS } from "../src/contract/fields.js";
import { generatePostcodes, startSimulator } from "../src/simulator/index.js";
import { openStore } from "../src/store/open-store.js";
import type { Store } from "../src/store/store.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";

const KEY = "test-key-scale-memo";
let sim: Awaited<ReturnType<typeof startSimulator>>;
const dirs: string[] = [];

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 9, key: KEY });
});
afterAll(async () => {
  await sim.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function evidence(store: Store, runId: number, nowMs: number) {
  return store.snapshot({ runId, nowMs }, async (s) => {
    await s.preparePostcodes(null);
    return s.scaleEvidence();
  });
}

describe("SQLite scale evidence kept from recordScales", () => {
  it("is read by the report over the same answers, and counted afresh after any change", async () => {
    const dir = tempDir("pcc-scale-memo-");
    dirs.push(dir);
    const input = writeCsv(dir, "in.csv", ["postcode", ...generatePostcodes(9, 20)]);
    const run = await runIn(dir, { in: input, baseUrl: sim.url }, { COVERAGE_API_KEY: KEY });
    expect(run.exitCode).toBe(0);
    const path = join(dir, "coverage.sqlite");
    const nowMs = run.clock.now();
    const store = await openStore(path);
    const fresh = await openStore(path);
    const raw = new Database(path);
    try {
      const recorded = await store.releases.recordScales(DEFAULT_PROVIDERS);
      const counted = recorded.map(({ release, ratings, legacyRatings }) => ({ release, ratings, legacyRatings }));
      expect(counted.length).toBeGreaterThan(0);
      expect(counted.every((e) => e.legacyRatings === 0)).toBe(true);
      expect(await evidence(fresh, run.runId!, nowMs)).toEqual(counted);

      // a rating of 1 where there was none, with no answer's version raised
      raw.prepare("UPDATE mobile_addresses SET ProvAVoiceOutdoor = 1 WHERE (postcode, uprn) IN (SELECT postcode, uprn FROM mobile_addresses LIMIT 1)").run();
      expect(await evidence(store, run.runId!, nowMs)).toEqual(counted);
      const recount = await evidence(fresh, run.runId!, nowMs);
      expect(recount.reduce((n, e) => n + e.legacyRatings, 0)).toBe(1);

      // an answer changed: the store counts afresh
      raw.prepare("UPDATE lookups SET attempts = attempts + 1 WHERE lookup = 'mobile' AND postcode = (SELECT MIN(postcode) FROM lookups WHERE lookup = 'mobile')").run();
      expect(await evidence(store, run.runId!, nowMs)).toEqual(recount);
    } finally {
      raw.close();
      await store.close();
      await fresh.close();
    }
  });
});
