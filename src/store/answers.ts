// Writing final answers: each answer in the same transaction as its status row, replacing that
// postcode's earlier addresses (an address that disappears upstream disappears here). Answers that
// arrive in one turn of the event loop share a transaction: a commit per answer rewrote the same
// pages over and over and cost more than fetching. The group is committed before the loop waits
// for I/O again, so a kill loses at most the answers of one turn.
import { SPEED_FIELDS, mobileFields } from "../spec/fields.js";
import type { FinalRecord } from "../spec/records.js";
import type { Db } from "./db.js";
import { providerKey } from "./provider-key.js";
import { releaseBook, releaseOf } from "./releases.js";
import { answerRows, contentHash, versionStore, type VersionContent } from "./versions.js";

export interface AnswerWriter {
  /** Queues the record; it is committed with the others of this event-loop turn, before any I/O. */
  write(record: FinalRecord): void;
  /** Queues another write (a request's ledger row) to run in the same transaction as this turn's records. */
  alongside(write: () => void): void;
  /** Commits what is queued now; throws the failure of an earlier deferred commit, if any. */
  flush(): void;
}

export interface AnswerWriterOptions {
  /** the answers come from the bundled simulator (--simulate) */
  simulated?: boolean;
  /** hears of a deferred commit that failed (a full disk): the caller should stop fetching */
  onError?: (err: Error) => void;
  /** --release NAME: the release label of answers that do not name theirs (broadband) */
  release?: string | null | undefined;
}

export function answerWriter(db: Db, providers: readonly string[], options: AnswerWriterOptions = {}): AnswerWriter {
  const simulated = options.simulated ? 1 : 0;
  const onError = options.onError ?? (() => {});
  const upsertLookup = db.prepare(
    `INSERT INTO lookups (postcode, lookup, status, http_status, attempts, last_error, fetched_at, run_id, dataset, address_count, providers, simulated, version_id, release)
     VALUES (@postcode, @lookup, @status, @httpStatus, @attempts, @lastError, @fetchedAt, @runId, @dataset, @addressCount, @providers, @simulated, @versionId, @release)
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
  const deleteBroadband = db.prepare("DELETE FROM broadband_addresses WHERE postcode = ?");
  const deleteMobile = db.prepare("DELETE FROM mobile_addresses WHERE postcode = ?");
  const insertBroadband = db.prepare(
    `INSERT INTO broadband_addresses (postcode, uprn, address, ${SPEED_FIELDS.join(", ")})
     VALUES (?, ?, ?, ${SPEED_FIELDS.map(() => "?").join(", ")})`,
  );
  const ratingColumns = mobileFields(providers);
  const providerList = providerKey(providers);
  const insertMobile = db.prepare(
    `INSERT INTO mobile_addresses (postcode, uprn, address, ${ratingColumns.join(", ")})
     VALUES (?, ?, ?, ${ratingColumns.map(() => "?").join(", ")})`,
  );

  const versions = versionStore(db);
  const releases = releaseBook(db);
  const label = options.release ?? null;

  const writeOne = (r: FinalRecord) => {
    if (r.status === "failed") {
      recordFailure.run({ ...r, simulated });
      return;
    }
    const answer = r.status === "ok" ? r.answer : null;
    const content: VersionContent = {
      status: r.status === "ok" ? "ok" : "not_found",
      simulated: simulated === 1,
      providers: answer?.lookup === "mobile" ? providerList : null,
      rows: answer ? answerRows(answer) : [],
    };
    const hash = contentHash(content);
    const current = versions.current(r.postcode, r.lookup);
    const changed = current === null || versions.hashOf(r.postcode, r.lookup, current) !== hash;
    const release = releaseOf(releases, {
      lookup: r.lookup,
      dataset: answer?.dataset ?? null,
      label,
      // a real answer replacing a simulated one (or the reverse) is a first answer, not a new release
      changed: current !== null && changed && current.simulated === simulated,
      confirmed: current?.confirmed ?? null,
      at: r.fetchedAt,
      runId: r.runId,
    });
    let versionId: number;
    if (current && !changed) {
      // The same answer again: the address rows stand; only "last seen" and the release move.
      versionId = current.id;
      versions.seenAgain(current.id, r.fetchedAt);
    } else {
      if (current) versions.retire(r.postcode, r.lookup, current);
      versionId = versions.add({ postcode: r.postcode, lookup: r.lookup, content, hash, release, at: r.fetchedAt, runId: r.runId });
      if (r.lookup === "broadband") deleteBroadband.run(r.postcode);
      else deleteMobile.run(r.postcode);
      if (answer?.lookup === "broadband")
        for (const a of answer.addresses) insertBroadband.run(r.postcode, a.uprn, a.address, ...a.speeds);
      else if (answer?.lookup === "mobile")
        for (const a of answer.addresses) insertMobile.run(r.postcode, a.uprn, a.address, ...a.ratings);
    }
    upsertLookup.run({
      ...r,
      dataset: answer?.dataset ?? null,
      addressCount: answer?.addresses.length ?? 0,
      providers: answer?.lookup === "mobile" ? providerList : null,
      simulated,
      versionId,
      release,
    });
  };
  const writeGroup = db.transaction((group: readonly (FinalRecord | (() => void))[]) => {
    for (const item of group) {
      if (typeof item === "function") item();
      else writeOne(item);
    }
  });

  // Records and other writes, in the order they came: one transaction per event-loop turn.
  let queued: (FinalRecord | (() => void))[] = [];
  let scheduled = false;
  let failure: Error | null = null;
  const flush = () => {
    scheduled = false;
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
  const enqueue = (item: FinalRecord | (() => void)) => {
    if (failure) throw failure;
    queued.push(item);
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      try {
        flush();
      } catch (err) {
        onError(err as Error);
      }
    });
  };

  return { write: enqueue, alongside: enqueue, flush };
}
