// A mobile 404 names no release: on a database with no release yet it goes on a provisional one
// named by the date. Once any machine learns the release's name (its first DBName), every answer
// on the provisional release is moved onto the named one in that machine's transaction, so nothing
// is left on "an older release" for the next night to fetch again; also when the machine that
// stored the 404s is not the one that learns the name.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generatePostcode, generatePostcodes } from "../src/simulator/index.js";
import { openStore } from "../src/store/open-store.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { dayClock } from "./helpers/fake-clock.js";
import { freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";
import { storedTable } from "./helpers/stored.js";

const SEED = 11;
const all = generatePostcodes(SEED, 300);
const unknown = all.filter((p) => generatePostcode(SEED, p) === null).slice(0, 6);
const known = all.filter((p) => generatePostcode(SEED, p) !== null).slice(0, 6);
const DATED = /^\d{4}-\d{2}-\d{2}(\.\d+)?$/;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The mobile releases, and the releases the mobile versions are on. */
async function mobileReleases(db: string): Promise<{ releases: string[]; used: string[] }> {
  const store = await openStore(db, { readonly: true });
  try {
    const releases = (await storedTable(store, "releases")).filter((r) => r.lookup === "mobile").map((r) => String(r.name));
    // the answers' own release (the planner's) shows in the next night's requests
    const versions = (await storedTable(store, "versions")).filter((r) => r.lookup === "mobile").map((r) => String(r.release));
    return { releases, used: [...new Set(versions)].sort() };
  } finally {
    await store.close();
  }
}

/**
 * Machine A stores only 404s (a provisional release of its run); machine B, the same night, learns
 * the name. `together` starts them at once (PostgreSQL); else A runs first, then B.
 */
async function night(dir: string, db: string, together: boolean) {
  const a = writeCsv(dir, "a.csv", ["postcode", ...unknown]);
  const b = writeCsv(dir, "b.csv", ["postcode", ...known]);
  const flags = { simulate: true, concurrency: 1, lookups: "mobile", db, reports: false };
  const run = (input: string, out: string) => runIn(dir, { ...flags, in: input, out: join(dir, out) }, {}, { clock: dayClock(0), simulator: { seed: SEED } });
  const [ra, rb] = together ? await Promise.all([run(a, "a"), run(b, "b")]) : [await run(a, "a"), await run(b, "b")];
  expect(ra.counts).toMatchObject({ notFound: unknown.length });
  expect(rb.counts).toMatchObject({ ok: known.length });
  const stored = await mobileReleases(db);
  expect(stored.releases).toHaveLength(1);
  expect(stored.releases[0]).not.toMatch(DATED);
  // on main: A's 404s stayed on the release named by the date, beside B's named one
  expect(stored.used).toEqual(stored.releases);
  const both = writeCsv(dir, "both.csv", ["postcode", ...unknown, ...known]);
  const next = await runIn(dir, { ...flags, in: both, out: join(dir, "next"), probe: 0 }, {}, { clock: dayClock(1), simulator: { seed: SEED } });
  expect(next.counts!.requests).toBe(0);
}

describe("a provisional release another run stored answers on", () => {
  it("SQLite: the run that learns the name moves the other run's 404s onto it; nothing is fetched again", async () => {
    expect(unknown).toHaveLength(6);
    const d = tempDir("pcc-provisional-");
    dirs.push(d);
    await night(d, join(d, "coverage.sqlite"), false);
  });
});

describe.skipIf(requiresPostgres().skip)("a provisional release on PostgreSQL", () => {
  it("one machine after the other: the second learns the name and takes the first's 404s", async () => {
    const d = tempDir("pcc-provisional-pg-");
    dirs.push(d);
    await night(d, await freshPostgresDatabase({ schema: true }), false);
  });

  it("two machines starting together on a fresh database: one named release, nothing fetched again", async () => {
    const d = tempDir("pcc-provisional-pg2-");
    dirs.push(d);
    await night(d, await freshPostgresDatabase({ schema: true }), true);
  });
});
