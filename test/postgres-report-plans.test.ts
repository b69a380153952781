// The PostgreSQL report snapshot's plans: every statement it runs over its temporary tables finds a
// postcode's stored rows (lookups, addresses, open data, run rows, versions) through the stored
// table's index, whatever the database's default collation. A temporary postcode column of
// another collation than the stored one ("C" against the default) made the index useless: each
// postcode scanned a whole address table (a 50,000-postcode report was still in one UPDATE after
// 20 minutes; 65 s in all once fixed). Timing would be flaky, so the plans are read: each statement
// is EXPLAINed as the snapshot runs it, with hash and merge joins, materializing and sequential
// scans off, so that the planner must join by nested loop and a postcode is either an index
// condition or a filter over a whole table.
import pg from "pg";
import { afterEach, describe, expect, test } from "vitest";
import { DEFAULT_PROVIDERS, mobileFields } from "../src/contract/fields.js";
import { ratingPlaceFields } from "../src/contract/mobile-scales.js";
import { openPostgresStore } from "../src/store/postgres/postgres-store.js";
import { postgresSession } from "../src/store/postgres/session.js";
import type { Params, SqlSession } from "../src/store/sql/session.js";
import { SqlReportSnapshot } from "../src/store/sql/report/snapshot.js";
import type { AreaRowsInsert } from "../src/store/sql/report/area.js";
import type { AreaRow, GroupDimension, RowBatches } from "../src/store/snapshot.js";
import type { Store } from "../src/store/store.js";
import { dropPostgresDatabase, freshPostgresDatabase, postgresUrl, requiresPostgres } from "./helpers/postgres.js";

const { skip } = requiresPostgres();
const AT = "2026-11-23T02:17:00.000Z";
const PROVIDERS = [...DEFAULT_PROVIDERS];
/** The stored tables a report reads by postcode. */
const STORED = new Set(["lookups", "broadband_addresses", "mobile_addresses", "open_data", "run_rows", "run_needs", "answer_versions", "expired_answers"]);
/** A comparison of two postcodes (`postcode = s.postcode`, either way round, with or without casts). */
const POSTCODE_MATCH = /postcode\S*\s*=\s*\S*postcode/;

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  Alias?: string;
  "Index Cond"?: string;
  Filter?: string;
  "Join Filter"?: string;
  Plans?: PlanNode[];
}

/** Whether a plan finds rows by a postcode somewhere below `node` (an index condition on one). */
const seeksPostcode = (node: PlanNode): boolean => /postcode/.test(node["Index Cond"] ?? "") || (node.Plans ?? []).some(seeksPostcode);

/** Where a plan compares postcodes outside an index: a stored table's scan filtering on them, or a nested loop joining on them. */
function wholeScans(node: PlanNode): string[] {
  const found: string[] = [];
  const stored = node["Relation Name"] !== undefined && STORED.has(node["Relation Name"]);
  if (stored && POSTCODE_MATCH.test(node.Filter ?? "")) found.push(`${node["Node Type"]} on ${node["Relation Name"]} ${node.Alias ?? ""} filtering ${node.Filter}`);
  // a comparison left to the loop is a whole scan unless its inner side seeks a postcode itself (the planner repeats an implied equality)
  const inner = node.Plans?.[1];
  if (node["Node Type"] === "Nested Loop" && POSTCODE_MATCH.test(node["Join Filter"] ?? "") && inner && !seeksPostcode(inner))
    found.push(`Nested Loop joining on ${node["Join Filter"]}`);
  for (const child of node.Plans ?? []) found.push(...wholeScans(child));
  return found;
}

/** A session that EXPLAINs each statement it is given before running it. */
function explaining(inner: SqlSession, plans: { sql: string; plan: PlanNode }[]): SqlSession {
  const explain = async (sql: string, params?: Params): Promise<void> => {
    if (!/^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b/i.test(sql)) return;
    const [row] = await inner.all<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
    plans.push({ sql, plan: row!["QUERY PLAN"][0].Plan });
  };
  return {
    dialect: inner.dialect,
    async all<T>(sql: string, params?: Params): Promise<T[]> {
      await explain(sql, params);
      return inner.all<T>(sql, params);
    },
    async get<T>(sql: string, params?: Params): Promise<T | null> {
      await explain(sql, params);
      return inner.get<T>(sql, params);
    },
    async exec(sql: string, params?: Params): Promise<number> {
      await explain(sql, params);
      return inner.exec(sql, params);
    },
    async *stream(sql: string, params?: Params) {
      await explain(sql, params);
      yield* inner.stream(sql, params);
    },
  };
}

async function drain<T>(batches: RowBatches<T>): Promise<T[]> {
  const rows: T[] = [];
  for await (const batch of batches) rows.push(...batch);
  return rows;
}

async function* once<T>(rows: readonly T[]): AsyncIterable<readonly T[]> {
  yield rows;
}

/** Writes a run over `postcodes` (cells: postcode, ward, uprn) with both lookups' answers, one postcode's broadband failed; written twice, so that changes compare versions. */
async function fill(store: Store, postcodes: readonly string[], wards: readonly string[]): Promise<number> {
  await store.answers.prepareProviders(PROVIDERS);
  let runId = 0;
  for (const [round, at] of [AT, "2026-11-24T02:17:00.000Z"].entries()) {
    runId = await store.runs.create({ startedAt: at, simulated: false, inputName: "in.csv", args: {}, lookups: ["broadband", "mobile"], providers: PROVIDERS });
    await store.runs.setInput(runId, ["postcode", "ward", "uprn"], "postcode");
    const rows = await store.inputRows.openWriter(runId);
    for (const [i, p] of postcodes.entries()) await rows.add({ line: i + 2, value: p, postcode: p, reason: null, cells: [p, wards[i % wards.length]!, String(1000 + i)] });
    await rows.flush();
    const answers = await store.answers.openWriter({ providers: PROVIDERS });
    for (const [i, p] of postcodes.entries()) {
      const n = 3 + ((i + round) % 3);
      const base = { postcode: p, httpStatus: 200, attempts: 1, lastError: null, fetchedAt: at, runId };
      const speeds = (j: number) => [40 + j + round, 10, 40, 10, -1, -1, 40, 10];
      const broadband = Array.from({ length: n }, (_, j) => ({ uprn: 1000 + j, address: `${j} High St`, speeds: speeds(j) }));
      const mobile = Array.from({ length: n }, (_, j) => ({ uprn: 1000 + j, address: `${j} High St`, ratings: mobileFields(PROVIDERS).map((_f, k) => (j + k + round) % 5) }));
      if (i === 0) answers.write({ ...base, lookup: "broadband", status: "failed", httpStatus: 500, attempts: 3, lastError: "HTTP 500" });
      else answers.write({ ...base, lookup: "broadband", status: "ok", answer: { lookup: "broadband", dataset: null, addresses: broadband } });
      answers.write({ ...base, lookup: "mobile", status: "ok", answer: { lookup: "mobile", dataset: "r1", addresses: mobile } });
    }
    await answers.flush();
    const counts = { inputRows: postcodes.length, postcodes: postcodes.length, rejects: 0, ok: postcodes.length - 1, notFound: 0, failed: 1, pending: 0, requests: 0, retries: 0, throttled: 0 };
    await store.runs.finish(runId, { state: "completed", exitCode: 0, endedAt: at, message: null, counts });
  }
  return runId;
}

/** --area-file's rows as the engine puts them in (the first of a postcode wins, only postcodes in scope). */
function areaInsert(q: SqlSession): AreaRowsInsert {
  return async (table, batches) => {
    for await (const batch of batches)
      for (const r of batch)
        await q.exec(
          `INSERT INTO ${table} (postcode, cells, latitude, longitude) SELECT @postcode, @cells, @lat, @lon
            WHERE EXISTS (SELECT 1 FROM report_postcodes s WHERE s.postcode = @postcode) ON CONFLICT (postcode) DO NOTHING`,
          { postcode: r.postcode, cells: JSON.stringify(r.cells), lat: r.latitude, lon: r.longitude },
        );
  };
}

const DIMENSIONS: GroupDimension[] = [
  { source: "postcode", part: "district", index: 0 },
  { source: "input", index: 1 },
  { source: "area-file", index: 0 },
];

/** Every read of a report and an export through one snapshot, each statement EXPLAINed first; the plans and what came out. */
async function readEverything(url: string, runId: number, postcodes: readonly string[]) {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const client = await pool.connect();
  const plans: { sql: string; plan: PlanNode }[] = [];
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
    // nested loops only, and a stored table reached by index where one can serve
    for (const off of ["enable_hashjoin", "enable_mergejoin", "enable_material", "enable_seqscan"]) await client.query(`SET LOCAL ${off} = off`);
    const q = explaining(postgresSession(client, { inTransaction: true }), plans);
    const snapshot = await SqlReportSnapshot.open({ session: q, insertAreaRows: areaInsert(q) }, { runId, nowMs: Date.parse(AT) });
    await snapshot.preparePostcodes(3);
    const area: AreaRow[] = postcodes.map((p, i) => ({ postcode: p, cells: [`Region ${i % 2}`], latitude: 51 + i / 100, longitude: -0.1 }));
    await snapshot.loadArea(once(area));
    await snapshot.prepareGroups(DIMENSIONS);
    await snapshot.postcodeTotals(["Superfast"]);
    await snapshot.includesSimulatedData();
    await snapshot.releases("mobile");
    await snapshot.scaleEvidence();
    await snapshot.ratingCounts(mobileFields(PROVIDERS).slice(0, 2), [1, 2]);
    // the rating places' fields: summed from the answers' stored counts, the rest counted from their addresses
    await snapshot.ratingCounts(ratingPlaceFields(PROVIDERS), [0, 3, 4]);
    await snapshot.broadbandDistribution([10, 30]);
    const postcodeRows = await drain(snapshot.postcodeRows(["Addresses"]));
    await drain(snapshot.broadbandAddresses());
    await drain(snapshot.mobileAddresses());
    await drain(snapshot.enrichedRows(["Addresses"], { index: 2 }));
    await snapshot.uprnCandidates(2);
    const failures = await drain(snapshot.failureRows());
    const groups = await drain(snapshot.groupTotals(["Superfast"]));
    await drain(snapshot.changedVersions({ kind: "previous" }));
    await snapshot.anyAnswerCompared();
    for (const table of await snapshot.exportTables()) await drain(snapshot.exportRows(table, PROVIDERS));
    for (const table of ["broadband", "mobile", "postcodes", "versions"] as const) await drain(snapshot.exportPackedRows(table, PROVIDERS));
    return { plans, postcodeRows, failures, groups };
  } finally {
    await client.query("ROLLBACK");
    client.release();
    await pool.end();
  }
}

/** Enough postcodes that a whole scan of an address table costs the planner more than an index seek per postcode. */
const POSTCODES = ["AB101AA", "AB11AA", "AB11AB", "AB12AA", "B11AA", "SW1A1AA", ...Array.from({ length: 150 }, (_, i) => `CR${1 + (i % 20)}${Math.floor(i / 20)}AA`)];
const byteOrder = (texts: readonly string[]) => [...texts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const WARDS = ["beta", "Gamma", "alpha"];

describe.skipIf(skip)("the PostgreSQL report snapshot's plans", () => {
  const made: string[] = [];
  afterEach(async () => {
    for (const url of made.splice(0)) await dropPostgresDatabase(url);
  });

  /** A database of the store's schema holding two runs over POSTCODES. */
  async function database(url: string): Promise<number> {
    const store = await openPostgresStore(url, { isAlive: () => true });
    let runId: number;
    try {
      runId = await fill(store, POSTCODES, WARDS);
    } finally {
      await store.close();
    }
    // statistics, as autovacuum gathers them on a real database: without them the planner guesses each table's size
    const sql = new pg.Client({ connectionString: url });
    await sql.connect();
    await sql.query("ANALYZE").finally(() => sql.end());
    return runId;
  }

  /** A new database whose default collation is ICU's English, which sorts unlike bytes ("beta" before "Gamma"). */
  async function englishDatabase(): Promise<string> {
    const name = `t_${process.pid}_icu_${made.length}`;
    const admin = new pg.Client({ connectionString: postgresUrl("postgres") });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`);
    } finally {
      await admin.end();
    }
    return postgresUrl(name);
  }

  async function expectIndexedJoins(url: string) {
    made.push(url);
    const runId = await database(url);
    const read = await readEverything(url, runId, POSTCODES);
    // the statements that join the temporary tables to the stored ones were all seen
    expect(read.plans.filter((p) => /report_postcodes/.test(p.sql) && /_addresses|lookups/.test(p.sql)).length).toBeGreaterThan(8);
    const scans = read.plans.flatMap((p) => wholeScans(p.plan).map((s) => `${s}\n  in ${p.sql.replace(/\s+/g, " ").slice(0, 160)}`));
    expect(scans).toEqual([]);
    return read;
  }

  test("on a database of the C collation, every join of the snapshot's tables to the stored ones seeks the stored table's index", async () => {
    await expectIndexedJoins(await freshPostgresDatabase({ schema: true }));
  });

  test("on a database sorting by English rules, the joins seek the indexes too and the reports still sort byte by byte", async () => {
    const read = await expectIndexedJoins(await englishDatabase());
    const displays = read.postcodeRows.map((r) => r[0] as string);
    expect(displays.slice(0, 6)).toEqual(["AB1 1AA", "AB1 1AB", "AB1 2AA", "AB10 1AA", "B1 1AA", "CR1 0AA"]);
    expect(displays).toEqual(byteOrder(displays));
    expect(read.failures.map((r) => r[0])).toEqual(["AB10 1AA"]);
    const wards = read.groups.filter((g) => Number(g.dimension) === 1).map((g) => g.group);
    expect(wards).toEqual(["Gamma", "alpha", "beta"]);
    const districts = read.groups.filter((g) => Number(g.dimension) === 0).map((g) => g.group);
    expect(districts.slice(0, 6)).toEqual(["AB1", "AB10", "B1", "CR1", "CR10", "CR11"]);
    expect(districts).toEqual(byteOrder(districts));
  });
});
