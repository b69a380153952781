// Writing final answers: each answer in the same transaction as its status row, replacing that
// postcode's earlier addresses (an address that disappears upstream disappears here). Answers
// queued together share a transaction: a commit per answer rewrote the same pages over and over
// and cost more than fetching. A group is committed on the next turn of the event loop, or, once
// answers come faster than that, a short window after the last commit (commit-group.ts); a kill
// loses at most that group.
import type { Lookup } from "../../spec/fields.js";
import { LOOKUP_LIST, type LookupSpec } from "../../spec/lookups.js";
import type { FinalRecord } from "../../spec/records.js";
import type { Db } from "./db.js";
import type { AnswerWriterOptions, QuotaBlock, SentRequest } from "../types.js";
import { assertLeaseLive } from "./leases.js";
import { ledgerWrites } from "./ledger.js";
import { providerKey } from "../provider-key.js";
import { releaseBook } from "./releases.js";
import { answerRelease } from "../shared/releases.js";
import { versionStore } from "./versions.js";
import { contentHash, recordContent, statusRowValues } from "../shared/versions.js";
import { commitScheduler, EACH_TURN } from "../commit-group.js";

export interface SqliteAnswerWriter {
  /** Queues the record; it is committed with the others of its group (commit-group.ts). */
  write(record: FinalRecord): void;
  /** Queues a request's ledger row in the same transaction as this turn's records. */
  request(sent: SentRequest): void;
  /** Queues a quota block in the same transaction as this turn's records. */
  block(block: QuotaBlock): void;
  /** Commits what is queued now; throws the failure of an earlier deferred commit, if any. */
  flush(): void;
}

export function answerWriter(db: Db, options: AnswerWriterOptions): SqliteAnswerWriter {
  const providers = options.providers;
  const simulated = options.simulated ? 1 : 0;
  const onError = options.onError ?? (() => {});
  const upsertLookup = db.prepare(
    `INSERT INTO lookups (postcode, lookup, status, http_status, attempts, last_error, fetched_at, run_id, dataset, address_count, providers, simulated, version_id, release)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (postcode, lookup) DO UPDATE SET
       status = excluded.status, http_status = excluded.http_status, attempts = excluded.attempts,
       last_error = excluded.last_error, fetched_at = excluded.fetched_at, run_id = excluded.run_id,
       dataset = excluded.dataset, address_count = excluded.address_count, providers = excluded.providers,
       simulated = excluded.simulated, version_id = excluded.version_id, release = excluded.release`,
  );
  // A failure keeps the last good answer's addresses and its dataset: a flaky night must not
  // wipe out data fetched before. Only the status row records the failure.
  const recordFailure = db.prepare(
    `INSERT INTO lookups (postcode, lookup, status, http_status, attempts, last_error, fetched_at, run_id, dataset, address_count, simulated)
     VALUES (@postcode, @lookup, 'failed', @httpStatus, @attempts, @lastError, @fetchedAt, @runId, NULL, 0, @simulated)
     ON CONFLICT (postcode, lookup) DO UPDATE SET
       status = 'failed', http_status = excluded.http_status, attempts = excluded.attempts,
       last_error = excluded.last_error, fetched_at = excluded.fetched_at, run_id = excluded.run_id`,
  );
  // Per lookup, its address table's statements (the registry names the table and its columns).
  const addressStatements = (spec: LookupSpec) => {
    const columns = spec.valueFields(providers);
    return {
      delete: db.prepare(`DELETE FROM ${spec.table} WHERE postcode = ?`),
      insert: db.prepare(
        `INSERT INTO ${spec.table} (postcode, uprn, address, ${columns.join(", ")}) VALUES (?, ?, ?, ${columns.map(() => "?").join(", ")})`,
      ),
    };
  };
  const addresses = Object.fromEntries(LOOKUP_LIST.map((spec) => [spec.name, addressStatements(spec)])) as Record<Lookup, ReturnType<typeof addressStatements>>;
  const providerList = providerKey(providers);

  const versions = versionStore(db);
  const releases = releaseBook(db);
  const label = options.release ?? null;

  const writeOne = (r: FinalRecord) => {
    if (r.status === "failed") {
      recordFailure.run({ ...r, simulated });
      return;
    }
    const answer = r.status === "ok" ? r.answer : null;
    const content = recordContent(r, simulated === 1, providerList);
    const hash = contentHash(content);
    const current = versions.current(r.postcode, r.lookup);
    const changed = current === null || versions.hashOf(r.postcode, r.lookup, current) !== hash;
    const release = answerRelease(releases, r, { dataset: answer?.dataset ?? null, label, simulated, changed, current });
    let versionId: number;
    if (current && !changed) {
      // The same answer again: the address rows stand; only "last seen" and the release move.
      versionId = current.id;
      versions.seenAgain(current.id, r.fetchedAt);
    } else {
      if (current) versions.retire(r.postcode, r.lookup, current);
      versionId = versions.add({ postcode: r.postcode, lookup: r.lookup, content, hash, release, at: r.fetchedAt, runId: r.runId });
      addresses[r.lookup].delete.run(r.postcode);
      // the content's rows, sorted by UPRN: the order of the table's key
      if (answer) for (const row of content.rows) addresses[answer.lookup].insert.run(r.postcode, ...row);
    }
    // positional: cheaper to bind than by name, on the batch's hot path
    upsertLookup.run(...statusRowValues(r, content, simulated, versionId, release));
  };
  const lease = options.lease;
  const writeGroup = db.transaction((group: readonly (FinalRecord | (() => void))[]) => {
    if (lease) assertLeaseLive(db, lease.id);
    for (const item of group) {
      if (typeof item === "function") item();
      else writeOne(item);
    }
  });

  // Records and other writes, in the order they came: one transaction per group.
  let queued: (FinalRecord | (() => void))[] = [];
  let failure: Error | null = null;
  const flush = () => {
    scheduler.committed();
    if (failure) throw failure;
    if (queued.length === 0) return;
    const group = queued;
    queued = [];
    try {
      writeGroup.immediate(group);
    } catch (err) {
      failure = err instanceof Error ? err : new Error(String(err));
      throw failure;
    }
  };
  const scheduler = commitScheduler(options.grouping ?? EACH_TURN, () => {
    try {
      flush();
    } catch (err) {
      onError(err as Error);
    }
  });
  const enqueue = (item: FinalRecord | (() => void)) => {
    if (failure) throw failure;
    queued.push(item);
    scheduler.queued(queued.length);
  };

  const ledger = ledgerWrites(db);
  return {
    write: enqueue,
    request: (sent) => enqueue(() => ledger.record(sent)),
    block: (b) => enqueue(() => ledger.block(b)),
    flush,
  };
}
