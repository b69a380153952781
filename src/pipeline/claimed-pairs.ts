// Team mode's share of the work: a run fetches only the pairs it has claimed under its
// lease, a chunk at a time as its workers ask, so that machines working through the same list take
// turns rather than one taking it all. A pair another live run holds is looked at again until that
// claim goes (then its answer is reused) or lapses with a killed machine's lease (then this run
// fetches it); a pair another run fetched since this run planned is reused, not fetched. On
// SQLite, one batch per database, every claim succeeds.
import type { Clock } from "../fetch/clock.js";
import type { Lookup } from "../contract/fields.js";
import type { AnswerWriter, Store } from "../store/store.js";
import type { ClaimResult } from "../store/types.js";
import type { LeaseFence } from "./lease-fence.js";
import type { PostcodeSource } from "../fetch/fetch-lookup.js";

/** Pairs claimed at a time: few enough that machines share a list evenly, enough to cost few transactions. */
export const CLAIM_CHUNK = 100;

/** How often pairs held elsewhere are looked at again: a tenth of the lease's time to live, at most 2 s. */
export function claimPollMs(leaseTtlMs: number): number {
  return Math.min(2_000, Math.max(20, Math.floor(leaseTtlMs / 10)));
}

export interface ClaimedPairsOptions {
  store: Pick<Store, "claims" | "plan">;
  /** gives the claims back with the answers, in one commit: another machine must find the answer once the claim is gone */
  writer: Pick<AnswerWriter, "releaseClaims" | "flush">;
  leaseId: number;
  runId: number;
  lookup: Lookup;
  /** when the run planned (ISO): what another run fetched after it is reused */
  plannedAt: string;
  clock: Clock;
  pollMs: number;
  signal: AbortSignal;
  /** the run's hold on its lease: once lost, no pair more is handed out, claimed or committed */
  fence?: LeaseFence;
}

const NO_CLAIM: ClaimResult = { claimed: [], heldElsewhere: [], fetchedSince: [] };

export class ClaimedPairs implements PostcodeSource {
  /** pairs another run fetched, reused instead of fetched */
  reused = 0;
  /** pairs found held by another live run, and of those, claimed here once that claim had lapsed */
  waitedFor = 0;
  private waitingListener: (() => void) | undefined;
  takenOver = 0;
  private finished: string[] = [];

  constructor(
    private readonly toFetch: readonly string[],
    private readonly o: ClaimedPairsOptions,
  ) {}

  /** The pair's final record went to the writer: its claim goes back at the next release. */
  done(postcode: string): void {
    this.finished.push(postcode);
  }

  /**
   * Gives the finished pairs' claims back in the same commit as their answers (not once the lease
   * is lost: the writer refuses then). On SQLite the writer's thread commits it; the batch's own
   * connection, waiting there for the writer's lock, would hold up the event loop.
   */
  async releaseFinished(): Promise<void> {
    if (this.finished.length === 0 || this.stopped) return;
    const list = this.finished.splice(0);
    await this.guard(async () => {
      this.o.writer.releaseClaims(this.o.leaseId, this.o.lookup, list);
      await this.o.writer.flush();
    }, undefined);
  }

  /** Told each time the pairs wait on other runs' claims. */
  onWaiting(listener: () => void): void {
    this.waitingListener = listener;
  }

  /** Scheduling stopped, or the lease is lost: nothing more is handed out. */
  private get stopped(): boolean {
    return this.o.signal.aborted || this.o.fence?.lost === true;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<string> {
    let waiting: string[] = [];
    for (let i = 0; i < this.toFetch.length && !this.stopped; i += CLAIM_CHUNK) {
      await this.releaseFinished();
      const r = await this.claim(this.toFetch.slice(i, i + CLAIM_CHUNK));
      waiting.push(...r.heldElsewhere);
      this.waitedFor += r.heldElsewhere.length;
      yield* this.handOut(r.claimed);
    }
    while (waiting.length > 0 && !this.stopped) {
      // ours first: two machines each waiting for the other's finished pairs would wait for ever
      await this.releaseFinished();
      // and the fetch's: a postcode it holds for the outage monitor keeps its claim until judged
      this.waitingListener?.();
      await this.o.clock.sleep(this.o.pollMs, this.o.signal);
      if (this.stopped) return;
      const r = await this.claim(waiting);
      waiting = r.heldElsewhere;
      this.takenOver += r.claimed.length;
      yield* this.handOut(r.claimed);
    }
  }

  /** The chunk's pairs one at a time, each only while the run still holds its lease. */
  private *handOut(pairs: readonly string[]): Generator<string> {
    for (const pair of pairs) {
      if (this.stopped) return;
      yield pair;
    }
  }

  private guard<T>(work: () => Promise<T>, fallback: T): Promise<T> {
    return this.o.fence ? this.o.fence.guard(work, fallback) : work();
  }

  private async claim(postcodes: readonly string[]): Promise<ClaimResult> {
    const { store, leaseId, runId, lookup, plannedAt, clock } = this.o;
    const r = await this.guard(() => store.claims.claim({ leaseId, runId, lookup, postcodes, plannedAt, nowMs: clock.now() }), NO_CLAIM);
    if (r.fetchedSince.length > 0) {
      await store.plan.dropNeeds(runId, lookup, r.fetchedSince);
      this.reused += r.fetchedSince.length;
    }
    return r;
  }
}
