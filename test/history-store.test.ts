// Versions and releases in the store: an identical re-fetch adds no version, a changed one keeps the
// old addresses as the previous version's content, releases are told apart; an older database migrates.
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { useTempDatabase } from "./helpers/temp-database.js";
import { answerWriter } from "../src/store/sqlite/answers.js";
import type { Answer, FinalRecord } from "../src/contract/records.js";
import { ensureProviderColumns, openDatabase } from "../src/store/sqlite/db.js";
import { MIGRATIONS } from "../src/store/sqlite/schema.js";
import { changedVersions } from "../src/store/sql/report/versions.js";
import { sqliteSession } from "../src/store/sqlite/session.js";
import { DEFAULT_PROVIDERS, mobileFields } from "../src/contract/fields.js";

const t = useTempDatabase("pcc-history-");

const record = (postcode: string, fetchedAt: string, answer: Answer): FinalRecord => ({
  postcode,
  lookup: answer.lookup,
  status: "ok",
  httpStatus: 200,
  attempts: 1,
  lastError: null,
  fetchedAt,
  runId: 1,
  answer,
});
const bb = (postcode: string, downs: number[], fetchedAt: string) =>
  record(postcode, fetchedAt, {
    lookup: "broadband",
    dataset: null,
    addresses: downs.map((d, i) => ({ uprn: 100 + i, address: `${i + 1}, HIGH STREET`, speeds: [5, 0.5, -1, -1, -1, -1, d, 1] })),
  });
const mob = (postcode: string, rating: number, dbName: string, fetchedAt: string) =>
  record(postcode, fetchedAt, { lookup: "mobile", dataset: dbName, addresses: [{ uprn: 100, address: "1, HIGH STREET", ratings: mobileFields().map(() => rating) }] });
const versions = () =>
  t.db.prepare("SELECT postcode, lookup, release, first_seen, last_seen, content IS NOT NULL AS retired FROM answer_versions ORDER BY id").all();
const releases = () => t.db.prepare("SELECT lookup, name FROM releases ORDER BY id").all();

describe("answer versions", () => {
  it("an identical re-fetch only moves last seen; a change adds a version and keeps the old addresses", () => {
    const w = answerWriter(t.db, { providers: DEFAULT_PROVIDERS });
    w.write(bb("AB11AA", [20, 25], "2026-01-01T10:00:00.000Z"));
    w.write(bb("AB11AB", [20], "2026-01-01T10:00:00.000Z"));
    w.flush();
    w.write(bb("AB11AA", [20, 25], "2026-01-05T10:00:00.000Z"));
    w.flush();
    expect(versions()).toEqual([
      { postcode: "AB11AA", lookup: "broadband", release: "2026-01-01", first_seen: "2026-01-01T10:00:00.000Z", last_seen: "2026-01-05T10:00:00.000Z", retired: 0 },
      { postcode: "AB11AB", lookup: "broadband", release: "2026-01-01", first_seen: "2026-01-01T10:00:00.000Z", last_seen: "2026-01-01T10:00:00.000Z", retired: 0 },
    ]);
    // a changed answer of a postcode confirmed on the newest release reveals a new release
    w.write(bb("AB11AA", [20, 500], "2026-02-01T10:00:00.000Z"));
    w.flush();
    expect(releases()).toEqual([
      { lookup: "broadband", name: "2026-01-01" },
      { lookup: "broadband", name: "2026-02-01" },
    ]);
    const old = t.db.prepare("SELECT content FROM answer_versions WHERE postcode = 'AB11AA' ORDER BY id LIMIT 1").pluck().get() as string;
    expect(JSON.parse(old).map((r: unknown[]) => r[8])).toEqual([20, 25]);
    expect(t.db.prepare("SELECT MaxPredictedDown FROM broadband_addresses WHERE postcode = 'AB11AA' ORDER BY uprn").pluck().all()).toEqual([20, 500]);
    expect(t.db.prepare("SELECT release FROM lookups ORDER BY postcode").pluck().all()).toEqual(["2026-02-01", "2026-01-01"]);
    // the other postcode catching up, changed or not, joins the newest release instead of starting another
    w.write(bb("AB11AB", [900], "2026-02-02T10:00:00.000Z"));
    w.flush();
    expect(releases()).toHaveLength(2);
    expect(t.db.prepare("SELECT release FROM answer_versions WHERE postcode = 'AB11AB' ORDER BY id").pluck().all()).toEqual(["2026-01-01", "2026-02-01"]);
  });

  it("a mobile DBName names the release; the same ratings under a new DBName are no new version", () => {
    const w = answerWriter(t.db, { providers: DEFAULT_PROVIDERS });
    w.write(mob("AB11AA", 3, "Mob-1", "2026-01-01T10:00:00.000Z"));
    w.flush();
    w.write(mob("AB11AA", 3, "Mob-2", "2026-02-01T10:00:00.000Z"));
    w.flush();
    expect(versions()).toHaveLength(1);
    expect(t.db.prepare("SELECT release FROM lookups").pluck().get()).toBe("Mob-2");
    w.write(mob("AB11AA", 2, "Mob-2", "2026-02-02T10:00:00.000Z"));
    w.flush();
    expect(t.db.prepare("SELECT release FROM answer_versions ORDER BY id").pluck().all()).toEqual(["Mob-1", "Mob-2"]);
    expect(releases()).toEqual([
      { lookup: "mobile", name: "Mob-1" },
      { lookup: "mobile", name: "Mob-2" },
    ]);
  });

  it("a real answer replacing a simulated one is no new release and no change", async () => {
    const sim = answerWriter(t.db, { providers: DEFAULT_PROVIDERS, simulated: true });
    sim.write(bb("AB11AA", [20], "2026-01-01T10:00:00.000Z"));
    sim.flush();
    const real = answerWriter(t.db, { providers: DEFAULT_PROVIDERS });
    real.write(bb("AB11AA", [900], "2026-01-02T10:00:00.000Z"));
    real.flush();
    expect(versions()).toHaveLength(2);
    expect(releases()).toEqual([{ lookup: "broadband", name: "2026-01-01" }]);
    const pairs = [];
    for await (const batch of changedVersions(sqliteSession(t.db), { runId: null, lookups: ["broadband"] }, { kind: "previous" })) pairs.push(...batch);
    expect(pairs).toEqual([]);
  });

  it("--release NAME labels broadband answers", () => {
    const w = answerWriter(t.db, { providers: DEFAULT_PROVIDERS, release: "spring-2026" });
    w.write(bb("AB11AA", [20], "2026-01-01T10:00:00.000Z"));
    w.flush();
    expect(releases()).toEqual([{ lookup: "broadband", name: "spring-2026" }]);
  });
});

describe("migration of a database from before history", () => {
  it("turns each stored answer into its first version, and a later identical fetch adds none", () => {
    t.db.close();
    const path = join(t.dir, "old.sqlite");
    const old = new Database(path);
    old.exec(MIGRATIONS[0]!);
    old.exec(MIGRATIONS[1]!);
    old.pragma("user_version = 2");
    old.exec(`INSERT INTO runs (id, started_at, state, input_name, input_columns, postcode_column, args, lookups, providers)
              VALUES (1, '2025-12-01T00:00:00.000Z', 'completed', 'x', '[]', 'pc', '{}', '["broadband"]', '[]')`);
    old.exec(`INSERT INTO lookups (postcode, lookup, status, attempts, fetched_at, run_id, address_count)
              VALUES ('AB11AA', 'broadband', 'ok', 1, '2025-12-01T00:00:00.000Z', 1, 2),
                     ('AB11AB', 'broadband', 'not_found', 1, '2025-12-02T00:00:00.000Z', 1, 0)`);
    old.exec(`INSERT INTO broadband_addresses (postcode, uprn, address, MaxBbPredictedDown, MaxBbPredictedUp, MaxSfbbPredictedDown, MaxSfbbPredictedUp,
                MaxUfbbPredictedDown, MaxUfbbPredictedUp, MaxPredictedDown, MaxPredictedUp)
              VALUES ('AB11AA', 100, '1, HIGH STREET', 5, 0.5, -1, -1, -1, -1, 20, 1), ('AB11AA', 101, '2, HIGH STREET', 5, 0.5, -1, -1, -1, -1, 25, 1)`);
    old.close();
    t.db = openDatabase(path);
    ensureProviderColumns(t.db, DEFAULT_PROVIDERS);
    expect(versions()).toEqual([
      { postcode: "AB11AA", lookup: "broadband", release: "2025-12-01", first_seen: "2025-12-01T00:00:00.000Z", last_seen: "2025-12-01T00:00:00.000Z", retired: 0 },
      { postcode: "AB11AB", lookup: "broadband", release: "2025-12-01", first_seen: "2025-12-02T00:00:00.000Z", last_seen: "2025-12-02T00:00:00.000Z", retired: 0 },
    ]);
    const w = answerWriter(t.db, { providers: DEFAULT_PROVIDERS });
    w.write(bb("AB11AA", [20, 25], "2026-01-01T10:00:00.000Z"));
    w.flush();
    expect(versions()).toHaveLength(2);
    expect(t.db.prepare("SELECT last_seen FROM answer_versions WHERE postcode = 'AB11AA'").pluck().get()).toBe("2026-01-01T10:00:00.000Z");
  });
});

describe("migration to the time the API last returned each answer", () => {
  it("takes it from the current version's last seen: a failed refresh's row keeps its answer's time, a pair never answered has none", () => {
    t.db.close();
    const path = join(t.dir, "before-returned.sqlite");
    const old = new Database(path);
    // the schema just before the migration that added returned_at
    const before = MIGRATIONS.findIndex((m) => m.includes("ADD COLUMN returned_at"));
    for (const m of MIGRATIONS.slice(0, before)) old.exec(m);
    old.pragma(`user_version = ${before}`);
    old.exec(`INSERT INTO runs (id, started_at, state, input_name, input_columns, postcode_column, args, lookups, providers)
              VALUES (1, '2026-12-01T00:00:00.000Z', 'completed', 'x', '[]', 'pc', '{}', '["broadband"]', '[]')`);
    old.exec(`INSERT INTO answer_versions (id, postcode, lookup, status, release, first_seen, last_seen, run_id)
              VALUES (1, 'AB11AA', 'broadband', 'ok', 'r', '2026-12-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z', 1),
                     (2, 'AB11AB', 'broadband', 'ok', 'r', '2026-12-01T00:00:00.000Z', '2026-12-21T00:00:00.000Z', 1)`);
    old.exec(`INSERT INTO lookups (postcode, lookup, status, attempts, fetched_at, run_id, address_count, version_id)
              VALUES ('AB11AA', 'broadband', 'failed', 1, '2026-12-21T00:00:00.000Z', 1, 2, 1),
                     ('AB11AB', 'broadband', 'ok', 1, '2026-12-21T00:00:00.000Z', 1, 2, 2),
                     ('AB11AC', 'broadband', 'failed', 1, '2026-12-21T00:00:00.000Z', 1, 0, NULL)`);
    old.close();
    t.db = openDatabase(path);
    expect(t.db.prepare("SELECT postcode, fetched_at, returned_at FROM lookups ORDER BY postcode").all()).toEqual([
      { postcode: "AB11AA", fetched_at: "2026-12-21T00:00:00.000Z", returned_at: "2026-12-01T00:00:00.000Z" },
      { postcode: "AB11AB", fetched_at: "2026-12-21T00:00:00.000Z", returned_at: "2026-12-21T00:00:00.000Z" },
      { postcode: "AB11AC", fetched_at: "2026-12-21T00:00:00.000Z", returned_at: null },
    ]);
  });
});
