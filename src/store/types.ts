// What the store's interface (store.ts) takes and gives: plain records, the same for every engine.
// Engine-specific code (SQL, handles) lives under src/store/<engine>/.
import type { OutcomeCounts } from "../contract/counts.js";
import type { Lookup } from "../contract/fields.js";
import type { Premises } from "../contract/open-data.js";
import type { NormalisedPostcode } from "../contract/postcode.js";
import { UserError } from "../errors.js";
import type { CommitGrouping } from "./commit-group.js";

/** The database cannot be opened or used (not a database, a newer schema, a full disk): names it. */
export class DatabaseError extends UserError {}

/** Another batch holds the database (SQLite: one batch at a time). */
export class LockedError extends UserError {}

/**
 * The lease a write was made under is no longer the live one (it expired, or another batch took it
 * over): the write is refused whole, and its holder must stop.
 */
export class LeaseLostError extends Error {
  constructor(leaseId: number) {
    super(`lease ${leaseId} is no longer live (it expired or another batch took it over)`);
    this.name = "LeaseLostError";
  }
}

// ---- runs ----

export type RunState = "running" | "completed" | "failed" | "stopped" | "interrupted" | "abandoned";

export interface NewRun {
  startedAt: string;
  simulated: boolean;
  inputName: string;
  args: Record<string, unknown>;
  lookups: readonly string[];
  providers: readonly string[];
  /** the lease the run works under: the run is abandoned once that lease has expired */
  leaseId?: number | null | undefined;
}

export interface RunCounts extends OutcomeCounts {
  inputRows: number;
  postcodes: number;
  rejects: number;
  requests: number;
  retries: number;
  throttled: number;
}

export interface RunEnd {
  endedAt: string;
  state: RunState;
  exitCode: number;
  message: string | null;
  counts: RunCounts;
}

/** A run as readers see it: its state and what it asked for, lists parsed. */
export interface RunInfo {
  id: number;
  state: RunState;
  simulated: boolean;
  /** the input's header names, in order */
  inputColumns: string[];
  /** the column the postcodes were read from ("postcode" for a file without a header; "" before the input is read) */
  postcodeColumn: string;
  lookups: string[];
  providers: string[];
}

/** What a run did, as its row says. */
export interface RunFacts {
  id: number;
  state: string;
  startedAt: string;
  endedAt: string | null;
  requests: number;
  retries: number;
  throttled: number;
  message: string | null;
}

export interface LastRunSettings {
  runId: number;
  startedAt: string;
  simulated: boolean;
  providers: string[];
  /** the run's recorded options (runs.args): what `status` plans the next nights with */
  args: Record<string, unknown>;
}

// ---- input rows ----

export interface StoredRow {
  line: number;
  value: string;
  postcode: string | null;
  reason: string | null;
  cells: readonly string[];
}

/** A row as the input reads it (input's InputRow has this shape; store does not depend on input). */
export interface ReadRow {
  line: number;
  value: string;
  postcode: NormalisedPostcode;
  cells: readonly string[];
}

/** An input row as the store keeps it: the compact postcode, or why it was rejected. */
export function storedRow(row: ReadRow): StoredRow {
  return {
    line: row.line,
    value: row.value,
    postcode: row.postcode.ok ? row.postcode.compact : null,
    reason: row.postcode.ok ? null : row.postcode.reason,
    cells: row.cells,
  };
}

// ---- answers and versions ----

/** The stored state of one postcode × lookup pair (the latest answer). */
export interface StoredAnswer {
  postcode: string;
  lookup: Lookup;
  status: "ok" | "not_found" | "failed";
  /** the last attempt's time, a failure's included */
  fetchedAt: string;
  /** when the API last returned the answer (a failure never moves it): its age; null when it never did */
  returnedAt: string | null;
  runId: number;
  /** addresses of the last good answer (a failure keeps them) */
  addressCount: number;
  dataset: string | null;
  release: string | null;
  simulated: boolean;
  /** the version the addresses belong to; null for a failure that never had a good answer */
  versionId: number | null;
  lastError: string | null;
}

/** What the retention deleted: answers (with their addresses and versions), and older versions of answers it kept. */
export interface Expired {
  answers: number;
  versions: number;
  /**
   * No file of the database holds the deleted text any more; false while another connection's read
   * transaction holds SQLite's WAL from its checkpoint (AnswerStore.eraseExpired tries again).
   */
  erased: boolean;
}

/** One distinct answer of a pair, oldest first. */
export interface AnswerVersionInfo {
  id: number;
  status: "ok" | "not_found";
  hash: string | null;
  release: string;
  firstSeen: string;
  lastSeen: string;
  runId: number;
  addressCount: number;
}

export interface AnswerWriterOptions {
  /** mobile providers of this run: which rating fields the answers carry */
  providers: readonly string[];
  /** the answers come from the bundled simulator (--simulate) */
  simulated?: boolean;
  /** hears of a deferred commit that failed (a full disk): the caller should stop fetching */
  onError?: (err: Error) => void;
  /** --release NAME: the release label of answers that do not name theirs (broadband) */
  release?: string | null | undefined;
  /** when queued writes are committed; default: on the next event-loop turn (commit-group.ts) */
  grouping?: CommitGrouping | undefined;
  /**
   * The lease the writes are made under, with the clock its expiry is judged on: each group commits
   * only while the lease is still the live one, else the writer fails with LeaseLostError.
   */
  lease?: { id: number; now: () => number } | undefined;
  /**
   * How many answers the caller expects to write: a writer expecting many may store them on a thread
   * of its own (SQLite), off the caller's event loop. Writes, flushes and failures behave the same.
   */
  expected?: number | undefined;
}

/** A request sent, for the ledger: committed in the same transaction as the answers queued with it. */
export interface SentRequest {
  lookup: Lookup;
  /** HTTP status; null for a network failure */
  status: number | null;
  at: string;
  /** the quota period it counts in (plan/quota-plan.ts quotaPeriod) */
  period: string;
  runId: number;
  /** the lease whose reservation it spends (ledger.reserve); null when none was reserved */
  leaseId: number | null;
}

export interface QuotaBlock {
  lookup: Lookup;
  /** nothing is sent to the lookup before this ISO time */
  until: string;
  message: string;
  runId: number;
}

// ---- the planner ----

/** Why a postcode is fetched, in the planner's order of priority. */
/** `expiring`: an answer the retention deletes before the next night (src/plan/retention.ts). */
export type NeedReason = "new" | "failed" | "incomplete" | "refresh" | "expiring" | "release" | "age" | "probe";

export interface Candidate {
  postcode: string;
  /** the line of its first row in the input */
  line: number;
  /** what the stored answer needs; `fresh` needs nothing (a probe may still take it) */
  state: Exclude<NeedReason, "probe"> | "fresh";
  /** the stored answer's age: when the API last returned it (a failure without one: its attempt); null when none is stored */
  fetchedAt: string | null;
  /** detection order of the release the answer is confirmed on (0: none) */
  releaseRank: number;
  /** with open data: how many of the six speed bands the postcode's premises fall in (Ofcom's files); null when it is not listed */
  openDataBands?: number | null;
}

export interface CandidateQuery {
  runId: number;
  lookup: Lookup;
  /** answers fetched at or after this ISO time are fresh */
  freshSince: string;
  /** a --refresh in progress: answers fetched before this still need fetching */
  refreshSince: string | null;
  providers: readonly string[];
  simulated: boolean;
  /** read each postcode's speed bands from the stored open data of these premises */
  openData?: Premises | undefined;
}

// ---- ledger ----

export interface Reservation {
  /** how many of the n asked for were granted (0..n) */
  granted: number;
  /** what the period has left after this grant (never below 0) */
  left: number;
}

export interface LedgerFigures {
  /** requests per lookup counted in the period: recorded, plus live reservations not yet sent */
  used: Record<Lookup, number>;
  /** blocks in force */
  blocks: { lookup: Lookup; until: string }[];
}

// ---- leases ----

/** Who holds a lease: enough to tell, on the same host, whether the holder still runs. */
export interface LeaseHolder {
  host: string;
  pid: number;
  /** process identity (process-identity.ts): a reused pid is not the holder; null where unknown */
  process: string | null;
}

export interface Lease {
  id: number;
  holder: LeaseHolder;
  runId: number | null;
  takenAt: string;
  /** ISO; the holder renews it before then, or loses it */
  expiresAt: string;
}

export interface LeaseTaken {
  lease: Lease;
  /** the holder whose lease was taken over: it expired, or its process on this host is gone; null when none was */
  previous: { pid: number; host: string; runId: number | null; why: "expired" | "gone" } | null;
}

// ---- claims ----

export interface ClaimResult {
  /** pairs this lease now holds: fetch these */
  claimed: string[];
  /** pairs another live lease holds: leave them to it */
  heldElsewhere: string[];
  /** pairs another run fetched since `plannedAt`: reuse its answer */
  fetchedSince: string[];
}

// ---- release checks ----

export type CheckedBy = "probes" | "answers";

export interface ReleaseCheck {
  lookup: Lookup;
  at: string;
  how: CheckedBy;
  runId: number;
}

// ---- open data ----

export interface OpenDataImport {
  id: number;
  month: string;
  revision: number;
  source: string;
  fingerprint: string;
  importedAt: string;
  files: number;
  postcodes: number;
  residential: number;
}

export type OpenDataMeta = Omit<OpenDataImport, "id" | "postcodes" | "residential"> & { runId: number | null };

// ---- status ----

export interface RunSummary {
  id: number;
  started_at: string;
  ended_at: string | null;
  state: string;
  exit_code: number | null;
  simulated: number;
  input_name: string;
  input_rows: number;
  postcodes: number;
  rejects: number;
  ok: number;
  not_found: number;
  failed: number;
  pending: number;
  requests: number;
  retries: number;
  throttled: number;
  message: string | null;
}

export interface DatabaseStatus {
  /** the engine's own migration count: its numbers differ between engines, so the text compares it with schemaLatest */
  schemaVersion: number;
  /** this program's schema version for the engine: equal to schemaVersion when the database is up to date */
  schemaLatest: number;
  /** the version of this program that last wrote the database ("0.2.0"); null: one from before versions were recorded */
  writtenBy: string | null;
  runs: RunSummary[];
  lookups: { lookup: string; status: string; postcodes: number; oldest: string; newest: string }[];
  /** the commonest last errors of failed lookups, to see at a glance why they failed */
  failures: { lookup: string; last_error: string; postcodes: number }[];
  postcodes: number;
  addresses: Record<Lookup, number>;
  datasets: { dataset: string; postcodes: number }[];
  /** the oldest live lease, as a lock: alive says whether the holder still runs (null when it runs on another host) */
  lock: { pid: number; host: string; run_id: number | null; started_at: string; alive: boolean | null } | null;
  /** every lease not yet expired (one at most on SQLite) */
  leases: Lease[];
}

export interface RunningProgress {
  runId: number;
  startedAt: string;
  /** postcode x lookup pairs of the run's input */
  pairs: number;
  /** pairs the run planned to fetch (its needs): new, failed, stale, probes */
  toFetch: number;
  /** of those, answered by this run so far */
  fetched: number;
  /** pairs the run found fresh and did not need to fetch */
  reused: number;
  /** requests at the last checkpoint */
  requests: number;
}

export interface LookupReleases {
  lookup: Lookup;
  releases: {
    name: string;
    detected_at: string;
    answers: number;
    versions: number;
    /** a mobile release's stored rating scale (contract/mobile-scales.ts) and its evidence; null before it is recorded */
    scale: string | null;
    scale_ratings: number | null;
    scale_legacy_ratings: number | null;
  }[];
  newest: string | null;
  /** the last run's unique input postcodes, and how many of them have an answer confirmed on the newest release */
  input: { runId: number; postcodes: number; onNewest: number } | null;
}

/** How the store is opened (open-store.ts; each engine's opener takes the same). */
export interface OpenStoreOptions {
  /** read only: never creates, migrates or changes the store (status, report, export) */
  readonly?: boolean;
  /** with `readonly`: a database of an older schema is migrated first when its user may write it (report, export) */
  upgrade?: boolean;
  /** whether a lease holder on this host still runs (tests inject one; default: process-identity.ts) */
  isAlive?: ((holder: LeaseHolder) => boolean) | undefined;
  /** SQLite: answers expected from which the answer writer runs on a thread of its own (default WRITER_THREAD_FROM; tests lower it) */
  writerThreadFrom?: number | undefined;
}
