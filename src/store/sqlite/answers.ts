// Writing final answers: each answer in the same transaction as its status row, replacing that
// postcode's earlier addresses (an address that disappears upstream disappears here). Answers
// queued together share a transaction: a commit per answer rewrote the same pages over and over
// and cost more than fetching. A group is committed on the next turn of the event loop, or, once
// answers come faster than that, a short window after the last commit (commit-group.ts); a kill
// loses at most that group. What is decided is shared with PostgreSQL (shared/answer-writes.ts);
// here are the statements, prepared once per writer.
import type { Lookup } from "../../contract/fields.js";
import { LOOKUP_LIST, type LookupSpec } from "../../contract/lookups.js";
import type { FinalRecord } from "../../contract/records.js";
import type { Db } from "./db.js";
import type { AnswerWriterOptions, QuotaBlock, SentRequest } from "../types.js";
import { assertLeaseLive } from "./leases.js";
import { claimDropper } from "./claims.js";
import { ledgerWrites } from "./ledger.js";
import { releaseBook } from "./releases.js";
import { runStepsNow } from "./transact.js";
import { foldProvisionalSteps } from "../sql/releases.js";
import { namingLookups } from "../shared/releases.js";
import { versionStore } from "./versions.js";
import type { VersionRow } from "../snapshot.js";
import {
  failureRowValues,
  failureUpsertSql,
  isVersioned,
  statusRowValues,
  statusUpsertSql,
  versionStep,
  writerSettings,
  writtenContent,
  type VersionStep,
  type WriterSettings,
} from "../shared/answer-writes.js";
import { writeQueue } from "../commit-group.js";

export interface SqliteAnswerWriter {
  /** Queues the record; it is committed with the others of its group (commit-group.ts). */
  write(record: FinalRecord): void;
  /** Queues a request's ledger row in the same transaction as this turn's records. */
  request(sent: SentRequest): void;
  /** Queues a quota block in the same transaction as this turn's records. */
  block(block: QuotaBlock): void;
  /** Queues giving back the lease's claims on these pairs, in the same transaction as what came before. */
  releaseClaims(leaseId: number, lookup: Lookup, postcodes: readonly string[]): void;
  /** Commits what is queued now; throws the failure of an earlier deferred commit, if any. */
  flush(): void;
}

/** Replaces a postcode's rows in its lookup's address table (the registry names the table and its columns). */
function addressWriter(db: Db, providers: readonly string[]): (lookup: Lookup, postcode: string, rows: readonly VersionRow[]) => void {
  const statements = (spec: LookupSpec) => {
    const columns = spec.valueFields(providers);
    return {
      delete: db.prepare(`DELETE FROM ${spec.table} WHERE postcode = ?`),
      insert: db.prepare(`INSERT INTO ${spec.table} (postcode, uprn, address, ${columns.join(", ")}) VALUES (?, ?, ?, ${columns.map(() => "?").join(", ")})`),
    };
  };
  const byLookup = Object.fromEntries(LOOKUP_LIST.map((spec) => [spec.name, statements(spec)])) as Record<Lookup, ReturnType<typeof statements>>;
  return (lookup, postcode, rows) => {
    byLookup[lookup].delete.run(postcode);
    for (const row of rows) byLookup[lookup].insert.run(postcode, ...row);
  };
}

/** Writes one record: its version (reused or replaced, with its addresses) and its status row. */
function recordWriter(db: Db, options: SqliteWriterOptions): (r: FinalRecord) => void {
  const s: WriterSettings = writerSettings(options);
  const upsertStatus = db.prepare(statusUpsertSql(() => "?"));
  const upsertFailure = db.prepare(failureUpsertSql(() => "?"));
  const replaceAddresses = addressWriter(db, options.providers);
  const versions = versionStore(db);
  const releases = releaseBook(db);
  const applyVersion = (step: VersionStep, at: string): number => {
    if (step.kind === "seen-again") {
      versions.seenAgain(step.versionId, at);
      return step.versionId;
    }
    const v = step.version;
    if (step.retire) versions.retire(v.postcode, v.lookup, step.retire);
    const id = versions.add(v);
    replaceAddresses(v.lookup, v.postcode, v.content.rows);
    return id;
  };
  return (r) => {
    // a failure keeps the last good answer's addresses, dataset and version: only its status row records it
    if (!isVersioned(r)) return void upsertFailure.run(...failureRowValues(r, s.simulated));
    const written = writtenContent(r, s);
    const current = versions.current(r.postcode, r.lookup);
    const step = versionStep(r, s, written, current, current && versions.hashOf(r.postcode, r.lookup, current), releases);
    const versionId = applyVersion(step, r.fetchedAt);
    // positional: cheaper to bind than by name, on the batch's hot path
    upsertStatus.run(...statusRowValues(r, written.content, s.simulated, versionId, step.release));
  };
}

type Queued = FinalRecord | (() => void);

/**
 * The writer's options on SQLite: a lease is judged by its row alone (one batch per file, its row
 * gone once taken over), so only its id is needed, not its clock.
 */
export type SqliteWriterOptions = Omit<AnswerWriterOptions, "lease"> & { lease?: { id: number } | undefined };

export function answerWriter(db: Db, options: SqliteWriterOptions): SqliteAnswerWriter {
  const onError = options.onError ?? (() => {});
  const writeRecord = recordWriter(db, options);
  const lease = options.lease;
  // one IMMEDIATE transaction per group, fenced by the lease: the writes in the order they came
  const commitGroup = db.transaction((group: readonly Queued[]) => {
    if (lease) assertLeaseLive(db, lease.id);
    for (const item of group) {
      if (typeof item === "function") item();
      else writeRecord(item);
    }
    const naming = namingLookups(group.filter((item): item is FinalRecord => typeof item !== "function"));
    if (naming.length > 0) runStepsNow(db, foldProvisionalSteps(naming));
  });
  const flush = () => {
    const group = queue.take();
    if (queue.failure) throw queue.failure;
    if (!group) return;
    try {
      commitGroup.immediate(group);
    } catch (err) {
      throw queue.fail(err instanceof Error ? err : new Error(String(err)));
    }
  };
  const queue = writeQueue<Queued>(options.grouping, () => {
    try {
      flush();
    } catch (err) {
      onError(err as Error);
    }
  });
  const ledger = ledgerWrites(db);
  const dropClaims = claimDropper(db);
  return {
    write: (r) => queue.push(r),
    request: (sent) => queue.push(() => ledger.record(sent)),
    block: (b) => queue.push(() => ledger.block(b)),
    releaseClaims: (leaseId, lookup, postcodes) => queue.push(() => dropClaims(leaseId, lookup, postcodes)),
    flush,
  };
}
