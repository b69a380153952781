// Final answers on PostgreSQL, with the SQLite engine's meaning (sqlite/answers.ts, versions.ts):
// each answer replaces the pair's latest answer in the transaction of its status row; an identical
// re-fetch only moves its version's "last seen"; a failure keeps the last good answer's addresses.
// The writer queues answers, ledger rows and quota blocks and commits each group (one event-loop
// turn's, or once answers come faster than that, a short window's: commit-group.ts) as one
// transaction, one group after another, so a kill loses at most one group.
import type pg from "pg";
import { expirePostgresAnswers } from "./expiry.js";
import type { Lookup } from "../../contract/fields.js";
import { LOOKUP_SPECS } from "../../contract/lookups.js";
import type { FinalRecord } from "../../contract/records.js";
import { heldReleaseBook, mayMeetProvisional, namingLookups, type ReleaseBook, type ReleaseRow } from "../shared/releases.js";
import { foldProvisionalSteps } from "../sql/releases.js";
import { runSteps } from "../sql/steps.js";
import { postgresSession } from "./session.js";
import { valueFields, type CurrentVersion } from "../shared/versions.js";
import {
  failureRowValues,
  failureUpsertSql,
  isVersioned,
  statusRowValues,
  statusUpsertSql,
  storedVersionHash,
  versionStep,
  writerSettings,
  writtenContent,
  type VersionStep,
  type WriterSettings,
} from "../shared/answer-writes.js";
import type { VersionRow } from "../snapshot.js";
import type { AnswerStore, AnswerWriter } from "../store.js";
import { LeaseLostError, type AnswerWriterOptions } from "../types.js";
import { inTransaction, rowOf, rowsOf, type Queryable } from "./connect.js";
import { databaseError } from "./errors.js";
import { assertLeaseLive, commitFence, lapsedAtCommit } from "./leases.js";
import { recordBlock, recordRequest } from "./ledger.js";
import { dropClaims } from "./claims.js";
import { ensurePostgresProviderColumns } from "./schema.js";
import { writeQueue } from "../commit-group.js";

/** Column names as stored: unquoted, so lower case (schema.ts). */
const columnsOf = (fields: readonly string[]): string[] => fields.map((f) => f.toLowerCase());

/** The rows of a pair's latest answer as the address tables hold them, sorted by UPRN. */
export async function storedRows(q: Queryable, postcode: string, lookup: Lookup, providers: string | null): Promise<VersionRow[]> {
  const columns = ["uprn", "address", ...columnsOf(valueFields(lookup, providers))];
  const result = await q.query({ text: `SELECT ${columns.join(", ")} FROM ${LOOKUP_SPECS[lookup].table} WHERE postcode = $1 ORDER BY uprn`, values: [postcode], rowMode: "array" });
  return result.rows as VersionRow[];
}

/**
 * The releases as a book the shared rule (releaseOf) reads synchronously: loaded at the start of a
 * group's transaction; a release first seen in it is inserted before the next record
 * (ON CONFLICT: another machine may have seen it at the same time).
 */
async function loadReleaseBook(client: pg.PoolClient): Promise<{ book: ReleaseBook; save(): Promise<void> }> {
  const held = heldReleaseBook(await rowsOf<ReleaseRow>(client, "SELECT id, lookup, name, run_id::int AS \"runId\" FROM releases ORDER BY id"));
  return {
    book: held.book,
    async save() {
      for (const r of held.renames.splice(0))
        for (const table of ["releases SET name", "lookups SET release", "answer_versions SET release"])
          await client.query(`UPDATE ${table} = $1 WHERE lookup = $2 AND ${table.endsWith("name") ? "name" : "release"} = $3`, [r.to, r.lookup, r.from]);
      for (const r of held.added.splice(0))
        await client.query("INSERT INTO releases (lookup, name, detected_at, run_id) VALUES ($1, $2, $3, $4) ON CONFLICT (lookup, name) DO NOTHING", [
          r.lookup,
          r.name,
          r.at,
          r.runId,
        ]);
    },
  };
}

/** Inserts address rows, many per statement (PostgreSQL takes at most 65,535 parameters). */
async function insertAddresses(client: pg.PoolClient, lookup: Lookup, postcode: string, fields: readonly string[], rows: readonly VersionRow[]): Promise<void> {
  const columns = ["postcode", "uprn", "address", ...columnsOf(fields)];
  const perStatement = Math.max(1, Math.floor(60_000 / columns.length));
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    const values: unknown[] = [];
    const tuples = chunk.map((row) => {
      const start = values.length;
      values.push(postcode, ...row);
      return `(${columns.map((_, j) => `$${start + j + 1}`).join(", ")})`;
    });
    await client.query(`INSERT INTO ${LOOKUP_SPECS[lookup].table} (${columns.join(", ")}) VALUES ${tuples.join(", ")}`, values);
  }
}

/** The first key of the pair locks (pg_advisory_xact_lock(class, pair)): a number of this program's. */
const PAIR_LOCK_CLASS = 7316;

const dollar = (i: number) => `$${i}`;
const UPSERT_STATUS = statusUpsertSql(dollar);
const UPSERT_FAILURE = failureUpsertSql(dollar);

/** The pair's current version, its status row locked until commit; null for a first answer. */
function currentVersion(client: pg.PoolClient, r: FinalRecord): Promise<CurrentVersion | null> {
  return rowOf<CurrentVersion>(
    client,
    `SELECT v.id, v.status, v.hash, v.simulated, v.providers, l.release AS confirmed
       FROM lookups l JOIN answer_versions v ON v.id = l.version_id WHERE l.postcode = $1 AND l.lookup = $2 FOR UPDATE OF l`,
    [r.postcode, r.lookup],
  );
}

/** The rows of a pair's current version, as the address tables hold them (none for a not-found). */
const rowsOfCurrent = (client: pg.PoolClient, r: FinalRecord, v: CurrentVersion): Promise<VersionRow[]> =>
  v.status === "ok" ? storedRows(client, r.postcode, r.lookup, v.providers) : Promise.resolve([]);

/** The current version's hash; a migrated version's is computed from its rows and stored. */
async function currentHash(client: pg.PoolClient, r: FinalRecord, v: CurrentVersion): Promise<string> {
  if (v.hash !== null) return v.hash;
  const hash = storedVersionHash(r.lookup, v, await rowsOfCurrent(client, r, v));
  await client.query("UPDATE answer_versions SET hash = $1 WHERE id = $2", [hash, v.id]);
  return hash;
}

/** Runs a version step (shared/answer-writes.ts): the id of the version the status row points at. */
async function applyVersion(client: pg.PoolClient, r: FinalRecord, step: VersionStep, providers: readonly string[]): Promise<number> {
  if (step.kind === "seen-again") {
    await client.query("UPDATE answer_versions SET last_seen = $1 WHERE id = $2", [r.fetchedAt, step.versionId]);
    return step.versionId;
  }
  const v = step.version;
  if (step.retire) await client.query("UPDATE answer_versions SET content = $1 WHERE id = $2", [JSON.stringify(await rowsOfCurrent(client, r, step.retire)), step.retire.id]);
  const { id } = (await rowOf<{ id: number }>(
    client,
    `INSERT INTO answer_versions (postcode, lookup, status, hash, release, first_seen, last_seen, run_id, simulated, address_count, providers)
     VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $8, $9, $10) RETURNING id`,
    [v.postcode, v.lookup, v.content.status, v.hash, v.release, v.at, v.runId, v.content.simulated ? 1 : 0, v.content.rows.length, v.content.providers],
  ))!;
  await client.query(`DELETE FROM ${LOOKUP_SPECS[v.lookup].table} WHERE postcode = $1`, [v.postcode]);
  await insertAddresses(client, v.lookup, v.postcode, LOOKUP_SPECS[v.lookup].valueFields(providers), v.content.rows);
  return id;
}

/** Writes one record: its version (reused or replaced, with its addresses) and its status row. */
async function writeRecord(client: pg.PoolClient, r: FinalRecord, book: ReleaseBook, s: WriterSettings, providers: readonly string[]): Promise<void> {
  // a failure keeps the last good answer's addresses, dataset and version: only its status row records it
  if (!isVersioned(r)) return void (await client.query(UPSERT_FAILURE, failureRowValues(r, s.simulated)));
  const written = writtenContent(r, s);
  const current = await currentVersion(client, r);
  const step = versionStep(r, s, written, current, current && (await currentHash(client, r, current)), book);
  const versionId = await applyVersion(client, r, step, providers);
  await client.query(UPSERT_STATUS, statusRowValues(r, written.content, s.simulated, versionId, step.release));
}

/**
 * Another machine may write one of these pairs at the same moment (a pair not claimed, or a claim
 * that lapsed): each pair is locked for the transaction, all in one order, so the two writes
 * follow each other (the second sees the first's version) and never deadlock.
 */
async function lockPairs(client: pg.PoolClient, records: readonly FinalRecord[]): Promise<void> {
  if (records.length === 0) return;
  await client.query(
    `SELECT pg_advisory_xact_lock(${PAIR_LOCK_CLASS}, h) FROM (SELECT DISTINCT hashtext(p) AS h FROM unnest($1::text[]) AS p ORDER BY h) AS ordered`,
    [records.map((r) => `${r.lookup}:${r.postcode}`)],
  );
}

/** The advisory lock (class, 0) of groups that may meet a provisional release: a number of this program's, beside the pair locks'. */
const RELEASE_LOCK_CLASS = 7317;

/**
 * While a lookup that names its release has no named release yet, or still a provisional one,
 * its groups take turns (before their pair locks, so no two wait on each other): the second of two
 * machines starting together then reads the first's release and moves what is provisional.
 */
async function takeReleaseTurn(client: pg.PoolClient, naming: readonly Lookup[]): Promise<void> {
  if (naming.length === 0) return;
  const rows = await rowsOf<{ lookup: string; name: string }>(client, "SELECT lookup, name FROM releases WHERE lookup = ANY($1::text[])", [naming]);
  if (mayMeetProvisional(naming, rows)) await client.query("SELECT pg_advisory_xact_lock($1, 0)", [RELEASE_LOCK_CLASS]);
}

type Queued = FinalRecord | ((client: pg.PoolClient) => Promise<void>);

/**
 * One group as one transaction: the lease fence (its row held FOR KEY SHARE until commit), the pair
 * locks, the writes in order, and the commit fence (the lease still holds at COMMIT).
 */
function groupCommitter(pool: pg.Pool, options: AnswerWriterOptions): (group: readonly Queued[]) => Promise<void> {
  const s = writerSettings(options);
  const lease = options.lease;
  return (group) =>
    inTransaction(pool, async (client) => {
      if (lease) await assertLeaseLive(client, lease.id, lease.now());
      const records = group.filter((item): item is FinalRecord => typeof item !== "function");
      const naming = namingLookups(records);
      await takeReleaseTurn(client, naming);
      await lockPairs(client, records);
      const releases = await loadReleaseBook(client);
      for (const item of group) {
        if (typeof item === "function") await item(client);
        else await writeRecord(client, item, releases.book, s, options.providers);
        await releases.save();
      }
      if (naming.length > 0) await runSteps(postgresSession(client, { inTransaction: true }), foldProvisionalSteps(naming));
    }, lease ? () => commitFence(lease.id, lease.now()) : undefined).catch((err: unknown) => {
      throw lease ? lapsedAtCommit(err, lease.id) : err;
    });
}

/** Groups commit one after another, in the order they were queued; a failure stops the writer. */
function answerWriter(pool: pg.Pool, options: AnswerWriterOptions, location: string): AnswerWriter {
  const onError = options.onError ?? (() => {});
  const commitGroup = groupCommitter(pool, options);
  let chain: Promise<void> = Promise.resolve();
  const commitQueued = (): void => {
    const group = queue.take();
    if (!group) return;
    chain = chain.then(async () => {
      if (queue.failure) return;
      try {
        await commitGroup(group);
      } catch (err) {
        onError(queue.fail(err instanceof LeaseLostError ? err : databaseError(err, location)));
      }
    });
  };
  const queue = writeQueue<Queued>(options.grouping, commitQueued);
  return {
    write: (r) => queue.push(r),
    request: (sent) => queue.push((client) => recordRequest(client, sent)),
    block: (b) => queue.push((client) => recordBlock(client, b)),
    releaseClaims: (leaseId, lookup, postcodes) => queue.push((client) => dropClaims(client, leaseId, lookup, [...postcodes])),
    async flush() {
      commitQueued();
      await chain;
      if (queue.failure) throw queue.failure;
    },
    close() {
      return this.flush();
    },
  };
}

/** The engine's own answer members; a pair's answer and its versions are read by the shared SQL (sql/answer-reads.ts). */
export function postgresAnswers(pool: pg.Pool, location: string): Omit<AnswerStore, "get" | "versions"> {
  return {
    openWriter: async (options) => answerWriter(pool, options, location),
    prepareProviders: (providers) => ensurePostgresProviderColumns(pool, providers),
    async holdsOtherKind(simulated) {
      return (await rowOf(pool, "SELECT 1 FROM lookups WHERE simulated <> $1 LIMIT 1", [simulated ? 1 : 0])) !== null;
    },
    expire: (before, at) => expirePostgresAnswers(pool, before, at),
    eraseExpired: async () => true,
  };
}
