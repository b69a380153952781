// The SQLite store: the Store interface over one better-sqlite3 handle. better-sqlite3 is
// synchronous, so each member does its work at once and returns a settled Promise; the modules
// beside this one hold the SQL. One batch at a time per database (an exclusive lease).
import { recordReleaseScales } from "./release-scales.js";
import { hostname } from "node:os";
import type { OpenStoreOptions } from "../open-store.js";
import { memoryPace } from "../memory-pace.js";
import { processAlive } from "../process-identity.js";
import type { ScopeRequest, ReportSnapshot } from "../snapshot.js";
import type { AnswerWriter, InputRowWriter, OpenDataWriter, Store } from "../store.js";
import type { LeaseHolder } from "../types.js";
import { answerVersions, storedAnswer } from "./answer-reads.js";
import { answerWriter } from "./answers.js";
import { expireAnswers } from "./expiry.js";
import { hidingExpired } from "./report/expiry-views.js";
import { claimPairs, releaseClaims } from "./claims.js";
import { finalCounts } from "./counts.js";
import { answersOfOtherKind } from "./data-kind.js";
import { ensureProviderColumns, namingPath, openDatabase, type Db } from "./db.js";
import { liveLeaseIds, liveLeases, releaseLease, renewLease, takeLease, type IsAlive } from "./leases.js";
import { giveBack, lastRunSettings, ledgerFigures, ledgerUsed, quotaBlocked, reserve } from "./ledger.js";
import { currentOpenData, openDataWriter } from "./open-data.js";
import { closeRefreshMarks, dropAnsweredElsewhere, dropNeeds, planCandidates, recordNeeds, refreshMark } from "./plan-queries.js";
import { openForReport, openReadOnly } from "./read-only.js";
import { readFailure, sqliteSnapshotSource } from "./report/source.js";
import { lastReleaseCheck, recordReleaseCheck, runStoredNamedRelease } from "./release-checks.js";
import { releaseStatus } from "./release-status.js";
import { releaseBook } from "./releases.js";
import { runningProgress } from "./run-progress.js";
import { inputRowCounts, rowWriter } from "./run-rows.js";
import { abandonOrphans, checkpointRun, createRun, finishRun, forgetRun, readRun, readRunFacts, setRunExit, setRunInput } from "./runs.js";
import { databaseStatus } from "./status.js";
import { sqliteSession } from "./session.js";
import { sqlSampleStore } from "../sql/sample.js";

/**
 * Runs `work` now and hands its result, or its failure named after the database, back as a
 * Promise: a caller awaiting an SQLite failure gets the DatabaseError a one-line message needs.
 */
function settle<T>(path: string, work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (err) {
    return Promise.reject(namingPath(err, path));
  }
}

export class SqliteStore implements Store {
  readonly engine = "sqlite" as const;
  private readonly here = hostname();
  private readonly isAlive: IsAlive;
  private readonly run: <T>(work: () => T) => Promise<T>;

  constructor(
    /** the handle: only this folder sees it */
    readonly db: Db,
    readonly location: string,
    private readonly closeHandle: () => void,
    isAlive: IsAlive | undefined,
  ) {
    this.isAlive = isAlive ?? ((h: LeaseHolder) => processAlive(h.pid, h.process));
    this.run = (work) => settle(location, work);
  }


  snapshot<T>(request: ScopeRequest, work: (snapshot: ReportSnapshot) => Promise<T>, options?: { onWarning?: (message: string) => void }): Promise<T> {
    return sqliteSnapshotSource(this.db).snapshot(request, work, options).catch((err: unknown) => Promise.reject(readFailure(err, this.location)));
  }


  close(): Promise<void> {
    return this.run(() => this.closeHandle());
  }

  readonly runs: Store["runs"] = {
    create: (run) => this.run(() => createRun(this.db, run)),
    setInput: (runId, columns, postcodeColumn) => this.run(() => setRunInput(this.db, runId, columns, postcodeColumn)),
    finish: (runId, end) => this.run(() => finishRun(this.db, runId, end)),
    setExit: (runId, exitCode, message, state) => this.run(() => setRunExit(this.db, runId, exitCode, message, state)),
    forget: (runId) => this.run(() => forgetRun(this.db, runId)),
    checkpoint: (runId, counts) => this.run(() => checkpointRun(this.db, runId, counts)),
    abandonOrphans: (at, nowMs) => this.run(() => abandonOrphans(this.db, at, liveLeaseIds(this.db, nowMs, this.here, this.isAlive))),
    finalCounts: (runId, lookups) => this.run(() => finalCounts(this.db, runId, lookups)),
    read: (which) => this.run(() => readRun(this.db, which)),
    facts: (runId) => this.run(() => readRunFacts(this.db, runId)),
    lastSettings: () => this.run(() => lastRunSettings(this.db)),
  };

  readonly inputRows: Store["inputRows"] = {
    openWriter: (runId) =>
      this.run((): InputRowWriter => {
        const writer = rowWriter(this.db, runId);
        return { add: (row) => this.run(() => writer.add(row)), flush: () => this.run(() => writer.flush()) };
      }),
    counts: (runId) => this.run(() => inputRowCounts(this.db, runId)),
  };

  readonly answers: Store["answers"] = {
    openWriter: (options) =>
      this.run((): AnswerWriter => {
        const writer = answerWriter(this.db, options);
        return { write: writer.write, request: writer.request, block: writer.block, flush: () => this.run(() => writer.flush()) };
      }),
    prepareProviders: (providers) => this.run(() => ensureProviderColumns(this.db, providers)),
    holdsOtherKind: (simulated) => this.run(() => answersOfOtherKind(this.db, simulated)),
    get: (postcode, lookup) => this.run(() => storedAnswer(this.db, postcode, lookup)),
    versions: (postcode, lookup) => this.run(() => answerVersions(this.db, postcode, lookup)),
    expire: (before, at) => this.run(() => expireAnswers(this.db, before, at)),
  };

  readonly releases: Store["releases"] = {
    newest: (lookup) => this.run(() => releaseBook(this.db).newest(lookup)),
    recordScales: (providers) => this.run(() => recordReleaseScales(this.db, providers)),
  };

  readonly plan: Store["plan"] = {
    candidates: (query) => this.run(() => planCandidates(this.db, query)),
    recordNeeds: (runId, lookup, needs) => this.run(() => recordNeeds(this.db, runId, lookup, needs)),
    dropNeeds: (runId, lookup, postcodes) => this.run(() => dropNeeds(this.db, runId, lookup, postcodes)),
    dropAnsweredElsewhere: (runId, lookup, since) => this.run(() => dropAnsweredElsewhere(this.db, runId, lookup, since)),
    refreshMark: (lookup, now, runId) => this.run(() => refreshMark(this.db, lookup, now, runId)),
    closeRefreshMarks: (runId, lookups) => this.run(() => closeRefreshMarks(this.db, runId, lookups)),
  };

  readonly ledger: Store["ledger"] = {
    reserve: (r) => this.run(() => reserve(this.db, r)),
    giveBack: (leaseId) => this.run(() => giveBack(this.db, leaseId)),
    used: (lookup, period) => this.run(() => ledgerUsed(this.db, lookup, period)),
    figures: (period, nowMs) => this.run(() => ledgerFigures(this.db, period, nowMs)),
    blocked: (lookup, now) => this.run(() => quotaBlocked(this.db, lookup, now)),
  };

  readonly leases: Store["leases"] = {
    take: (holder, nowMs, ttlMs) => this.run(() => takeLease(this.db, holder, nowMs, ttlMs, this.here, this.isAlive)),
    renew: (leaseId, nowMs, ttlMs) => this.run(() => renewLease(this.db, leaseId, nowMs, ttlMs)),
    release: (leaseId) => this.run(() => releaseLease(this.db, leaseId)),
    live: (nowMs) => this.run(() => liveLeases(this.db, nowMs, this.here, this.isAlive)),
    serverNow: () => Promise.resolve(null),
  };

  readonly claims: Store["claims"] = {
    claim: (c) => this.run(() => claimPairs(this.db, c)),
    release: (leaseId, lookup, postcodes) => this.run(() => releaseClaims(this.db, leaseId, lookup, postcodes)),
  };

  /** One batch at a time holds an SQLite database: its pace can live in the process. */
  readonly pace: Store["pace"] = memoryPace();

  readonly releaseChecks: Store["releaseChecks"] = {
    last: (lookup) => this.run(() => lastReleaseCheck(this.db, lookup)),
    record: (check) => this.run(() => recordReleaseCheck(this.db, check)),
    runStoredNamedRelease: (runId, lookup) => this.run(() => runStoredNamedRelease(this.db, runId, lookup)),
  };

  readonly openData: Store["openData"] = {
    current: () => this.run(() => currentOpenData(this.db)),
    startImport: () =>
      this.run((): OpenDataWriter => {
        const writer = openDataWriter(this.db);
        return { row: writer.row, commit: (meta) => this.run(() => writer.commit(meta)), rollback: () => this.run(() => writer.rollback()) };
      }),
  };

  get sample(): Store["sample"] { return sqlSampleStore(sqliteSession(this.db)); }

  readonly status: Store["status"] = {
    database: (recentRuns, nowMs) => this.run(() => hidingExpired(this.db, nowMs, () => databaseStatus(this.db, recentRuns, nowMs, this.here, this.isAlive))),
    running: () => this.run(() => runningProgress(this.db)),
    releases: () => this.run(() => hidingExpired(this.db, Date.now(), () => releaseStatus(this.db))),
  };
}

/**
 * Opens the SQLite store at `path`: a writer creates and migrates it; a reader (`readonly`) never
 * changes it, reading a private copy when SQLite cannot read it in place (read-only.ts).
 */
export function openSqliteStore(path: string, options: OpenStoreOptions = {}): SqliteStore {
  if (options.readonly) {
    let reader;
    try {
      // `upgrade`: a database of an older schema is migrated first when its user may write it
      reader = options.upgrade ? openForReport(path) : openReadOnly(path);
    } catch (err) {
      throw readFailure(err, path);
    }
    return new SqliteStore(reader.db, path, () => reader.close(), options.isAlive);
  }
  const db = openDatabase(path);
  return new SqliteStore(db, path, () => db.close(), options.isAlive);
}
