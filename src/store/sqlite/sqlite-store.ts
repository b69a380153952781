// The SQLite store: the Store interface over one better-sqlite3 handle. better-sqlite3 is
// synchronous, so each member does its work at once and returns a settled Promise. The SQL written
// once for both engines (src/store/sql/) runs over its session, and its transactions synchronously
// (transact.ts); the modules beside this one hold what is SQLite's own. One batch at a time per
// database (an exclusive lease).
import { hostname } from "node:os";
import type { OpenStoreOptions } from "../types.js";
import { memoryPace } from "../memory-pace.js";
import { processAlive } from "../process-identity.js";
import type { ScopeRequest, ReportSnapshot } from "../snapshot.js";
import type { AnswerWriter, InputRowWriter, OpenDataWriter, Store } from "../store.js";
import type { AnswerWriterOptions, LeaseHolder } from "../types.js";
import { answerWriter } from "./answers.js";
import { threadedAnswerWriter } from "./writer-thread.js";
import { eraseDeleted, expireAnswers } from "./expiry.js";
import { hidingExpired } from "./report/expiry-views.js";
import { claimPairs, releaseClaims } from "./claims.js";
import { answersOfOtherKind } from "./data-kind.js";
import { connect, ensureProviderColumns, namingPath, openDatabase, type Db } from "./db.js";
import { keepRenewal, liveLeaseIds, liveLeases, releaseLease, renewLease, takeLease, type IsAlive } from "./leases.js";
import { giveBack, ledgerFigures, ledgerUsed, quotaBlocked, reserve } from "./ledger.js";
import { currentOpenData, openDataWriter } from "./open-data.js";
import { openForReport, openReadOnly } from "./read-only.js";
import { readFailure, sqliteSnapshotSource } from "./report/source.js";
import { rowWriter } from "./run-rows.js";
import { inputRowCountsSteps } from "../sql/run-reads.js";
import { namingFailures } from "../sql/naming.js";
import { sqlPlan } from "../sql/plan.js";
import { sqlAnswerReads } from "../sql/answer-reads.js";
import { sqlReleaseChecks, sqlReleases } from "../sql/releases.js";
import { abandonOrphansSteps, sqlRuns } from "../sql/runs.js";
import { SQLITE_DIALECT } from "./dialect.js";
import { sqliteSession } from "./session.js";
import { runStepsNow, sqliteTransact } from "./transact.js";
import { databaseStatus, releaseStatus } from "./status.js";
import { runningProgressSteps } from "../sql/status.js";
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

/**
 * Answers expected from which a writer stores on a thread of its own. Handing each answer over costs
 * the batch more CPU than the storing it moves away, and on 2 cores the thread wins back no time
 * until the list is large: with the simulator, 10,000 and 30,000 postcodes of both lookups took the
 * same time either way and a fifth more CPU on the thread; 100,000 took 178 s on it and 207 s
 * without (docs/bench.md).
 */
export const WRITER_THREAD_FROM = 100_000;

export class SqliteStore implements Store {
  readonly engine = "sqlite" as const;
  private readonly here = hostname();
  private readonly isAlive: IsAlive;
  private readonly run: <T>(work: () => T) => Promise<T>;
  readonly runs: Store["runs"];
  readonly plan: Store["plan"];
  readonly releases: Store["releases"];
  readonly releaseChecks: Store["releaseChecks"];
  readonly sample: Store["sample"];
  private readonly answerReads: Pick<Store["answers"], "get" | "versions">;

  constructor(
    /** the handle: only this folder sees it */
    readonly db: Db,
    readonly location: string,
    private readonly closeHandle: () => void,
    isAlive: IsAlive | undefined,
    private readonly writerThreadFrom = WRITER_THREAD_FROM,
  ) {
    this.isAlive = isAlive ?? ((h: LeaseHolder) => processAlive(h.pid, h.process));
    this.run = (work) => settle(location, work);
    const q = sqliteSession(db);
    const transact = sqliteTransact(db);
    const named = <T extends object>(part: T): T =>
      namingFailures(part, (err) => {
        throw namingPath(err, location);
      });
    this.runs = named({
      ...sqlRuns(q, transact),
      abandonOrphans: (at, nowMs) =>
        this.run(() => liveLeaseIds(db, nowMs, this.here, this.isAlive)).then((live) => transact(abandonOrphansSteps(SQLITE_DIALECT, at, live))),
    });
    this.plan = named(sqlPlan(q, transact));
    this.releases = named(sqlReleases(q, transact));
    this.releaseChecks = named(sqlReleaseChecks(q));
    this.answerReads = named(sqlAnswerReads(q));
    this.sample = named(sqlSampleStore(q));
  }

  snapshot<T>(request: ScopeRequest, work: (snapshot: ReportSnapshot) => Promise<T>, options?: { onWarning?: (message: string) => void }): Promise<T> {
    return sqliteSnapshotSource(this.db).snapshot(request, work, options).catch((err: unknown) => Promise.reject(readFailure(err, this.location)));
  }

  async close(): Promise<void> {
    const threads = [...this.writerThreads];
    this.writerThreads.clear();
    await Promise.all(threads.map((t) => t.close()));
    return this.run(() => {
      this.leaseDb?.close();
      this.leaseDb = null;
      this.closeHandle();
    });
  }

  /**
   * The connection renewals go through: a file's own, opened at the first renewal. On the store's
   * handle a renewal would fail while a report streams rows from it (better-sqlite3 runs nothing
   * beside an open cursor), and inside the report's read transaction it would not be committed
   * until the report ends: a large list's reports outlast the lease. In WAL the report's reads do
   * not hold this connection's write back.
   */
  private leaseDb: Db | null = null;
  private renewalHandle(): Db {
    if (this.location === ":memory:" || this.importing) return this.db;
    return (this.leaseDb ??= connect(this.location));
  }

  /**
   * While an open-data import holds the database's one write transaction on the store's handle
   * (across the turns of the event loop its files are read in), a renewal on any other connection
   * would wait for a lock this thread holds: it fails ("database is locked") after blocking the
   * thread for the busy timeout, every time, until the import ends. So renewals join the import's
   * transaction: no other connection can write, or take the lease over, until it ends; its commit
   * makes them seen, and a rollback (`importEnded`) keeps the last of them.
   */
  private importing = false;
  private renewedInImport: { leaseId: number; expiresMs: number } | null = null;

  private renew(leaseId: number, nowMs: number, ttlMs: number): boolean {
    const renewed = renewLease(this.renewalHandle(), leaseId, nowMs, ttlMs);
    if (renewed && this.importing) this.renewedInImport = { leaseId, expiresMs: nowMs + ttlMs };
    return renewed;
  }

  private importEnded(rolledBack: boolean): void {
    const renewed = this.renewedInImport;
    this.importing = false;
    this.renewedInImport = null;
    if (rolledBack && renewed) keepRenewal(this.db, renewed.leaseId, renewed.expiresMs);
  }

  readonly inputRows: Store["inputRows"] = {
    openWriter: (runId) =>
      this.run((): InputRowWriter => {
        const writer = rowWriter(this.db, runId);
        return {
          add: (row) => this.run(() => writer.add(row)),
          flush: () => this.run(() => writer.flush()),
          accept: (lease) => this.run(() => writer.flush(lease)),
          discard: () => this.run(() => writer.discard()),
        };
      }),
    counts: (runId) => this.run(() => runStepsNow(this.db, inputRowCountsSteps(runId))),
  };

  /** answer writers on threads of their own, ended (their queues committed) when the store closes */
  private readonly writerThreads = new Set<AnswerWriter>();

  private async openAnswerWriter(options: AnswerWriterOptions): Promise<AnswerWriter> {
    if (this.location !== ":memory:" && (options.expected ?? 0) >= this.writerThreadFrom) {
      const threaded = await threadedAnswerWriter(this.location, options);
      this.writerThreads.add(threaded);
      return threaded;
    }
    return this.run((): AnswerWriter => {
      const writer = answerWriter(this.db, options);
      const flush = () => this.run(() => writer.flush());
      return { write: writer.write, request: writer.request, block: writer.block, releaseClaims: writer.releaseClaims, flush, close: flush };
    });
  }

  readonly answers: Store["answers"] = {
    openWriter: (options) => this.openAnswerWriter(options),
    prepareProviders: (providers) => this.run(() => ensureProviderColumns(this.db, providers)),
    holdsOtherKind: (simulated) => this.run(() => answersOfOtherKind(this.db, simulated)),
    get: (postcode, lookup) => this.answerReads.get(postcode, lookup),
    versions: (postcode, lookup) => this.answerReads.versions(postcode, lookup),
    expire: (before, at) => this.run(() => expireAnswers(this.db, before, at)),
    eraseExpired: () => this.run(() => eraseDeleted(this.db)),
  };

  readonly ledger: Store["ledger"] = {
    reserve: (r) => this.run(() => reserve(this.db, r)),
    giveBack: (r) => this.run(() => giveBack(this.db, r)),
    used: (lookup, period) => this.run(() => ledgerUsed(this.db, lookup, period)),
    figures: (period, nowMs) => this.run(() => ledgerFigures(this.db, period, nowMs)),
    blocked: (lookup, now) => this.run(() => quotaBlocked(this.db, lookup, now)),
  };

  readonly leases: Store["leases"] = {
    take: (holder, nowMs, ttlMs) => this.run(() => takeLease(this.db, holder, nowMs, ttlMs, this.here, this.isAlive)),
    renew: (leaseId, nowMs, ttlMs) => this.run(() => this.renew(leaseId, nowMs, ttlMs)),
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

  readonly openData: Store["openData"] = {
    current: () => this.run(() => currentOpenData(this.db)),
    startImport: () =>
      this.run((): OpenDataWriter => {
        const writer = openDataWriter(this.db);
        this.importing = true;
        return {
          row: writer.row,
          commit: (meta) =>
            this.run(() => {
              const imported = writer.commit(meta);
              this.importEnded(false);
              return imported;
            }),
          rollback: () =>
            this.run(() => {
              try {
                writer.rollback();
              } finally {
                if (this.importing) this.importEnded(true);
              }
            }),
        };
      }),
  };

  readonly status: Store["status"] = {
    database: (recentRuns, nowMs) => this.run(() => hidingExpired(this.db, nowMs, () => databaseStatus(this.db, recentRuns, nowMs, this.here, this.isAlive))),
    running: () => this.run(() => runStepsNow(this.db, runningProgressSteps())),
    releases: (nowMs) => this.run(() => hidingExpired(this.db, nowMs, () => releaseStatus(this.db))),
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
    return new SqliteStore(reader.db, path, () => reader.close(), options.isAlive, options.writerThreadFrom);
  }
  const db = openDatabase(path);
  return new SqliteStore(db, path, () => db.close(), options.isAlive, options.writerThreadFrom);
}
