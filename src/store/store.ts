// The store: everything the batch, the planner, status, soak and bench read and write, as one
// asynchronous interface with one implementation per engine (src/store/sqlite/ and
// src/store/postgres/); what both engines say the same way is written once over a dialect
// (src/store/sql/). Nothing else in src holds a handle on the database or a query of it: the SQL
// beside the postcode rules (displayPostcodeSql) is the SQLite dialect's to use, and the export's
// is DuckDB's, over rows the snapshot gives it (the soak reads a database with its own SQL on
// purpose, to check it independently). Records are in
// types.ts. The times the store records and compares are passed in (ISO text or epoch ms), never
// read from this process's clock, so tests drive them; the one clock it reads is the database
// server's, when asked (`leases.serverNow`), and commit grouping times only when a write commits.
// `openStore` (open-store.ts) picks the engine from the location; the contract suite
// (test/store-contract/) runs the same cases on every engine.
//
// Writers (answers, input rows, open data) queue synchronously and commit asynchronously: the
// batch's hot path writes a group of answers (commit-group.ts), with their ledger rows, in one
// transaction, which a Promise per answer would defeat.
import type { MobileScale, ScaleEvidence } from "../contract/mobile-scales.js";
import type { OutcomeCounts } from "../contract/counts.js";
import type { Lookup } from "../contract/fields.js";
import type { FinalRecord } from "../contract/records.js";
import type { Premises } from "../contract/open-data.js";
import type { SnapshotSource } from "./snapshot.js";
import type {
  AnswerVersionInfo,
  AnswerWriterOptions,
  Candidate,
  CandidateQuery,
  ClaimResult,
  DatabaseStatus,
  Expired,
  LastRunSettings,
  Lease,
  LeaseHolder,
  LeaseTaken,
  LedgerFigures,
  LookupReleases,
  NeedReason,
  NewRun,
  OpenDataImport,
  OpenDataMeta,
  QuotaBlock,
  ReleaseCheck,
  Reservation,
  RunCounts,
  RunEnd,
  RunFacts,
  RunInfo,
  RunState,
  RunningProgress,
  SentRequest,
  StoredAnswer,
  StoredRow,
} from "./types.js";

export type StoreEngine = "sqlite" | "postgres";

export interface Store extends SnapshotSource {
  readonly engine: StoreEngine;
  /** where the store is, for messages: a path, or a URL without its password */
  readonly location: string;
  readonly runs: RunStore;
  readonly inputRows: InputRowStore;
  readonly answers: AnswerStore;
  readonly releases: ReleaseStore;
  readonly plan: PlanStore;
  readonly ledger: LedgerStore;
  readonly leases: LeaseStore;
  readonly claims: ClaimStore;
  readonly pace: PaceStore;
  readonly releaseChecks: ReleaseCheckStore;
  readonly openData: OpenDataStore;
  readonly status: StatusStore;
  /** the sample order's stored seed and its strata (sql/sample.ts) */
  readonly sample: import("./sql/sample.js").SampleStore;
  /** Closes the store; writers must have been flushed. */
  close(): Promise<void>;
}

/** One row per batch: its arguments (never keys), counts, exit code, and the lease it runs under. */
export interface RunStore {
  /** Records a new run in state 'running' under `run.leaseId`; returns its id. */
  create(run: NewRun): Promise<number>;
  /** The input's header names and which of them holds the postcode. */
  setInput(runId: number, columns: readonly string[], postcodeColumn: string): Promise<void>;
  /** The run's final state, exit code, message and counts. */
  finish(runId: number, end: RunEnd): Promise<void>;
  /** The exit a finished run really ended with, when a later stage (the reports) changed it; `state` too when given (a signal then). */
  setExit(runId: number, exitCode: number, message: string | null, state?: RunState): Promise<void>;
  /** Removes a run refused for its options before it fetched anything (rows and row), so the next run takes its number. */
  forget(runId: number): Promise<void>;
  /** Requests so far, written every few seconds while the run is 'running': a killed run's row still says what it spent. */
  checkpoint(runId: number, counts: Pick<RunCounts, "requests" | "retries" | "throttled">): Promise<void>;
  /**
   * Marks 'abandoned' every running run whose lease is no longer live (expired, released, or its
   * holder on this host is gone), with its counts as they stand; returns how many. On PostgreSQL
   * `nowMs` is the server's time (`leases.serverNow`): the clock every lease was written on.
   */
  abandonOrphans(at: string, nowMs: number): Promise<number>;
  /** Final state of the run's postcode × lookup pairs: what it needed but did not fetch is pending. */
  finalCounts(runId: number, lookups: readonly Lookup[]): Promise<OutcomeCounts>;
  /** The run with this id, or the last run that read its input; null when there is none. */
  read(which: number | "last"): Promise<RunInfo | null>;
  /** What a run did, as its row says; null when there is no such run. */
  facts(runId: number): Promise<RunFacts | null>;
  /** The last run that read an input: its options say how the nightly job is set up. */
  lastSettings(): Promise<LastRunSettings | null>;
}

/** The rows of a run's input, rejects included, in input order. */
export interface InputRowStore {
  /**
   * A writer that stages rows outside the run's rows (a temporary table: an input refused, or read
   * by a run that lost its lease, leaves nothing in the database) until `flush` or `accept`.
   */
  openWriter(runId: number): Promise<InputRowWriter>;
  /** How many rows a run's input had, and how many of them held no valid postcode. */
  counts(runId: number): Promise<{ input: number; invalid: number }>;
}

export interface InputRowWriter {
  /** Stages the row; a full batch is written to the staging table before the Promise settles. */
  add(row: StoredRow): Promise<void>;
  /** Commits what is staged to the run's rows, in one transaction. */
  flush(): Promise<void>;
  /**
   * As `flush`, in a transaction that checks the lease is still live on `now` (the team's clock), on
   * PostgreSQL again as it commits: otherwise LeaseLostError, and nothing staged is committed (it is
   * dropped).
   */
  accept(lease: { id: number; now: () => number }): Promise<void>;
  /** Drops what is staged (a refused input, a lost lease); safe to call at any time, more than once. */
  discard(): Promise<void>;
}

/** Final answers and their versions: the latest answer per pair, every distinct answer as a version. */
export interface AnswerStore {
  /**
   * The batch's writer: each record replaces the pair's latest answer in the transaction of its
   * status row; an identical re-fetch only moves the version's "last seen"; a failure keeps the
   * last good answer's addresses. Records, ledger rows and quota blocks queued in one event-loop
   * turn are committed together before the loop waits for I/O again.
   */
  openWriter(options: AnswerWriterOptions): Promise<AnswerWriter>;
  /** Makes room for these mobile providers' ratings (SQLite: columns), before a writer writes them. */
  prepareProviders(providers: readonly string[]): Promise<void>;
  /** Whether the store holds an answer of the other kind (simulated vs real) than this run's. */
  holdsOtherKind(simulated: boolean): Promise<boolean>;
  /** The pair's stored state; null when never fetched. */
  get(postcode: string, lookup: Lookup): Promise<StoredAnswer | null>;
  /** The pair's versions, oldest first. */
  versions(postcode: string, lookup: Lookup): Promise<AnswerVersionInfo[]>;
  /**
   * Deletes every answer last returned before `before` (ISO), with its address rows and versions
   * (a failed refresh since does not keep it), leaving a tombstone (postcode, lookup, `at`) so
   * reports show it as expired, and every older version last returned before then; returns how
   * many answers and versions.
   */
  expire(before: string, at: string): Promise<Expired>;
  /**
   * Tries again, without waiting, to take what expire deleted out of every file of the database
   * (SQLite: the WAL checkpointed into the main file and truncated); false while a reader holds it
   * back. PostgreSQL: true (docs/retention.md says what its files keep).
   */
  eraseExpired(): Promise<boolean>;
}

export interface AnswerWriter {
  /** Queues a final record; committed with the others of its group (AnswerWriterOptions.grouping). */
  write(record: FinalRecord): void;
  /** Queues a request's ledger row (spending one of its lease's reservation) in the same transaction. */
  request(sent: SentRequest): void;
  /** Queues the service's "quota spent until" answer in the same transaction. */
  block(block: QuotaBlock): void;
  /**
   * Queues giving back the lease's claims on these pairs, committed with what was queued before it:
   * once a claim is gone, another machine finds the pair's answer stored.
   */
  releaseClaims(leaseId: number, lookup: Lookup, postcodes: readonly string[]): void;
  /** Commits what is queued now; rejects with the failure of an earlier deferred commit, if any. */
  flush(): Promise<void>;
  /** Commits what is queued and lets go of what the writer holds (its thread); nothing is written after. */
  close(): Promise<void>;
  /** true when the writes are stored on a thread of their own (AnswerWriterOptions.expected) */
  readonly ownThread?: boolean;
}

/** Dataset releases per lookup, numbered in the order they were first seen. */
export interface ReleaseStore {
  /** The lookup's newest release; null before any. */
  newest(lookup: Lookup): Promise<{ id: number; name: string } | null>;
  /**
   * Counts each mobile release's stored ratings and those that are 1 or 2, and records them with
   * the release and its scale (scaleOfRatings); returns what it recorded, oldest release first.
   */
  recordScales(providers: readonly string[]): Promise<StoredScale[]>;
}

/** A mobile release's scale as stored with it, and the evidence. */
export interface StoredScale extends ScaleEvidence {
  scale: MobileScale;
}

/** What the planner reads and records, so that src/plan decides without SQL of its own. */
export interface PlanStore {
  /** Every unique postcode of the run's input, in input order, with the state of its stored answer for one lookup. */
  candidates(query: CandidateQuery): Promise<Candidate[]>;
  /** What the run needs to fetch: what it does not fetch counts as pending. */
  recordNeeds(runId: number, lookup: Lookup, needs: readonly { postcode: string; reason: NeedReason }[]): Promise<void>;
  /** Pairs the run needed that another run fetched meanwhile (team mode): reused, so no longer the run's to fetch. */
  dropNeeds(runId: number, lookup: Lookup, postcodes: readonly string[]): Promise<void>;
  /**
   * Drops the run's needs that another run answered after `since` (ISO): a run that lost its lease
   * counts the pairs the batch that took over answered as answered, not pending. Returns how many.
   */
  dropAnsweredElsewhere(runId: number, lookup: Lookup, since: string): Promise<number>;
  /** The start of the --refresh in progress for the lookup (an unfinished one continues), else `now`, recorded. */
  refreshMark(lookup: Lookup, now: string, runId: number): Promise<string>;
  /** Ends the refresh of each lookup of which the run left nothing it needed unfetched. */
  closeRefreshMarks(runId: number, lookups: readonly Lookup[]): Promise<void>;
  /**
   * Whether the lookup's product has ever answered: an answer or not-found stored or expired since,
   * or a release seen. A product that did and now refuses has closed.
   */
  productAnswered(lookup: Lookup): Promise<boolean>;
}

/**
 * The request ledger, per lookup and quota period: requests recorded (AnswerWriter.request) plus
 * unspent reservations. Reserving is atomic: stores on one database reserving at once never grant
 * more than the limit together. A reservation belongs to a lease: what a run reserved but did not
 * send stops counting when it gives it back (giveBack, by count); what is left unspent was taken,
 * perhaps sent without a ledger row (a failed write, a dead holder), and keeps counting, also once
 * its lease is released or taken over.
 */
export interface LedgerStore {
  reserve(r: { leaseId: number; lookup: Lookup; period: string; n: number; limit: number; nowMs: number }): Promise<Reservation>;
  /**
   * Reduces the lease's unspent reservations for the lookup by `n` requests never sent: only
   * `period`'s when named (a grant of a period that has turned), else the newest period's first.
   */
  giveBack(r: { leaseId: number; lookup: Lookup; n: number; period?: string | undefined }): Promise<void>;
  /** Requests counted in the period: recorded plus unspent reservations. */
  used(lookup: Lookup, period: string, nowMs: number): Promise<number>;
  /** Per-lookup figures of the period, and the blocks in force at `nowMs`, for the plan and `status`. */
  figures(period: string, nowMs: number): Promise<LedgerFigures>;
  /** The service's block in force at `now` (ISO), if any. */
  blocked(lookup: Lookup, now: string): Promise<{ until: string; message: string } | null>;
}

/**
 * Leases replace the batch lock: a holder, an expiry, renewed by its process on a timer
 * (lease-keeper.ts). A run is abandoned only once its lease is no longer live. SQLite makes a lease
 * exclusive (one batch per database: `take` throws LockedError while another is live); PostgreSQL
 * lets every batch process hold its own.
 */
export interface LeaseStore {
  /**
   * Takes a lease for `ttlMs` from `nowMs`. A lease whose time ran out, or whose holder on this
   * host is gone, is no longer live; SQLite takes it over and names it in `previous`.
   */
  take(holder: LeaseHolder, nowMs: number, ttlMs: number): Promise<LeaseTaken>;
  /** Extends the lease to `nowMs + ttlMs`; false when it is no longer held (it expired and was taken over). */
  renew(leaseId: number, nowMs: number, ttlMs: number): Promise<boolean>;
  /** Ends the lease with its claims; its unspent reservations stay counted (giveBack gives back the unsent). */
  release(leaseId: number): Promise<void>;
  /** Leases live at `nowMs`. */
  live(nowMs: number): Promise<Lease[]>;
  /**
   * The database server's time (epoch ms), the team's one clock: every machine on a PostgreSQL
   * database judges leases, pace and quota on it. null on SQLite (one machine: its own clock).
   */
  serverNow(): Promise<number | null>;
}

/**
 * Postcode-lookup pairs a run will fetch, claimed under its lease (team mode: no pair fetched by
 * two machines at once). A claim lapses with its lease.
 */
export interface ClaimStore {
  /**
   * Claims what no other live lease holds and no other run fetched since `plannedAt` (ISO); says
   * which pairs are held elsewhere and which were fetched meanwhile.
   */
  claim(c: { leaseId: number; runId: number; lookup: Lookup; postcodes: readonly string[]; plannedAt: string; nowMs: number }): Promise<ClaimResult>;
  /** Gives the lease's claims of these pairs back (fetched, or given up). */
  release(leaseId: number, lookup: Lookup, postcodes: readonly string[]): Promise<void>;
}

/** A slot from the shared pace: when this request may start, or that the key is blocked. */
export interface PaceSlot {
  startAtMs: number;
  /** a quota block in force: nothing may be sent before this (epoch ms); null when none */
  blockedUntilMs: number | null;
}

/**
 * One pace per lookup and key, shared by every holder of the key (`keyId`: key-id.ts, a one-way
 * digest, never the key). SQLite runs one batch at a time, so its pace lives in the process.
 */
export interface PaceStore {
  /** Takes the next start slot at least `intervalMs` after the last one given for this lookup and key. */
  nextSlot(lookup: Lookup, keyId: string, intervalMs: number, nowMs: number): Promise<PaceSlot>;
  /** A 429: nobody with this key starts a request of the lookup before `untilMs`. */
  slowDown(lookup: Lookup, keyId: string, untilMs: number): Promise<void>;
  /** A 403 "quota replenished in": the key is blocked for the lookup until `untilMs`. */
  block(lookup: Lookup, keyId: string, untilMs: number): Promise<void>;
}

/** When each lookup's release was last checked (a probe round, or answers that tell as much). */
export interface ReleaseCheckStore {
  /** The last check (ISO); null when none. */
  last(lookup: Lookup): Promise<string | null>;
  record(check: ReleaseCheck): Promise<void>;
  /** Whether the run stored an ok answer of the lookup that names its release. */
  runStoredNamedRelease(runId: number, lookup: Lookup): Promise<boolean>;
  /** The last check as recorded (when, by probes or answers, which run); null when none. */
  lastCheck(lookup: Lookup): Promise<ReleaseCheck | null>;
}

/** The store's copy of Ofcom's open postcode data: one release at a time. */
export interface OpenDataStore {
  /** The import the stored rows belong to; null when none. */
  current(): Promise<OpenDataImport | null>;
  /** Starts replacing the stored release; nothing changes for readers until `commit`. */
  startImport(): Promise<OpenDataWriter>;
}

export interface OpenDataWriter {
  /** Queues one postcode's figures (values in OPEN_DATA_COLUMNS order); a failure surfaces at commit. */
  row(premises: Premises, postcode: string, values: readonly (number | null)[]): void;
  /** Replaces the stored release with the rows written, records the import, and returns it. */
  commit(meta: OpenDataMeta): Promise<OpenDataImport>;
  /** Drops what was written: the stored release stays. */
  rollback(): Promise<void>;
}

/** What `npm run status` reads. */
export interface StatusStore {
  /** A running run whose lease is not live at `nowMs` (on PostgreSQL the server's time) is shown abandoned, as the next batch records it. */
  database(recentRuns: number, nowMs: number): Promise<DatabaseStatus>;
  /** The newest run still running, with counts from its plan and answers; null when none. */
  running(): Promise<RunningProgress | null>;
  /** Per lookup, each release with its answers and versions, and the last run's share on the newest; expired answers hidden at `nowMs`. */
  releases(nowMs: number): Promise<LookupReleases[]>;
}
