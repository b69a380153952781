// A mobile 404 names no release (DBName): answered before the run's first named answer it is stored
// on a provisional release that the run's first DBName takes over, so it is not on an "older
// release" the next night and fetched again (on main: it stayed on a release named by the date).
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generatePostcode, generatePostcodes } from "../src/simulator/index.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { query } from "./helpers/child-cli.js";
import { dayClock } from "./helpers/fake-clock.js";
import { freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";
import pg from "pg";

const SEED = 11;
const all = generatePostcodes(SEED, 200);
const unknown = all.filter((p) => generatePostcode(SEED, p) === null).slice(0, 3);
const known = all.filter((p) => generatePostcode(SEED, p) !== null).slice(0, 5);
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("a mobile 404 before the run's first DBName", () => {
  it("takes the release the run settles on, and is not fetched again the next night", async () => {
    expect(unknown).toHaveLength(3);
    const d = tempDir("pcc-release-404-");
    dirs.push(d);
    const input = writeCsv(d, "in.csv", ["postcode", ...unknown, ...known]);
    const flags = { in: input, simulate: true, concurrency: 1, lookups: "mobile" };
    const first = await runIn(d, flags, {}, { clock: dayClock(0), simulator: { seed: SEED } });
    expect(first.counts).toMatchObject({ notFound: 3, ok: 5 });
    const db = join(d, "coverage.sqlite");
    const releases = query<{ name: string }>(db, "SELECT name FROM releases WHERE lookup = 'mobile'");
    expect(releases).toHaveLength(1);
    expect(releases[0]!.name).not.toMatch(/^\d{4}-\d{2}-\d{2}/);
    expect(query(db, "SELECT DISTINCT release FROM lookups WHERE lookup = 'mobile'")).toEqual([{ release: releases[0]!.name }]);
    expect(query(db, "SELECT DISTINCT release FROM answer_versions WHERE lookup = 'mobile'")).toEqual([{ release: releases[0]!.name }]);
    const next = await runIn(d, { ...flags, probe: 0 }, {}, { clock: dayClock(1), simulator: { seed: SEED } });
    // on main: the three 404s were on an older release and fetched again
    expect(next.counts!.requests).toBe(0);
  });
});

describe.skipIf(requiresPostgres().skip)("the same on PostgreSQL", () => {
  it("the run's first DBName takes over the provisional release, answers and versions with it", async () => {
    const d = tempDir("pcc-release-404-pg-");
    dirs.push(d);
    const url = await freshPostgresDatabase();
    const input = writeCsv(d, "in.csv", ["postcode", ...unknown, ...known]);
    const flags = { in: input, simulate: true, concurrency: 1, lookups: "mobile", db: url };
    const first = await runIn(d, flags, {}, { clock: dayClock(0), simulator: { seed: SEED } });
    expect(first.counts).toMatchObject({ notFound: 3, ok: 5 });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const names = (await client.query("SELECT name FROM releases WHERE lookup = 'mobile'")).rows as { name: string }[];
      expect(names).toHaveLength(1);
      expect(names[0]!.name).not.toMatch(/^\d{4}-\d{2}-\d{2}/);
      const used = await client.query("SELECT DISTINCT release FROM lookups WHERE lookup = 'mobile' UNION SELECT DISTINCT release FROM answer_versions WHERE lookup = 'mobile'");
      expect(used.rows).toEqual([{ release: names[0]!.name }]);
    } finally {
      await client.end();
    }
    const next = await runIn(d, { ...flags, probe: 0 }, {}, { clock: dayClock(1), simulator: { seed: SEED } });
    expect(next.counts!.requests).toBe(0);
  });
});
