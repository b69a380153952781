// Fetches one lookup for a list of postcodes: `concurrency` workers over one shared list, each
// attempt paced, classified, judged by decide() and the outage monitor, and its final record handed
// to the store. Decisions live in decide.ts and outage.ts; this file only carries them out.
import type { Lookup } from "../contract/fields.js";
import { API_KEY_HEADER, lookupPath } from "../contract/types.js";
import type { FinalRecord } from "../contract/records.js";
import type { BackoffPolicy } from "./backoff.js";
import type { RequestBudget } from "./budget.js";
import { classify } from "./classify.js";
import type { Clock } from "./clock.js";
import { boundWait, decide, ledgerEntry, type AttemptState, type Decision, type LedgerEntry } from "./decide.js";
import { HeldPostcodes, Slots } from "./held.js";
import { NetworkError, type HttpClient } from "./http-client.js";
import { DEFAULT_OUTAGE_THRESHOLDS, NetworkRetries, OutageMonitor, type FailureSignature, type Health } from "./outage.js";
import type { Outcome } from "./outcome.js";
import type { Pacer } from "./pacer.js";
import type { StopControl } from "./stop.js";

export interface FetchStats {
  requests: number;
  retries: number;
  throttled: number;
  ok: number;
  notFound: number;
  failed: number;
}

export function emptyStats(): FetchStats {
  return { requests: 0, retries: 0, throttled: 0, ok: 0, notFound: 0, failed: 0 };
}

export interface LookupFetchOptions {
  lookup: Lookup;
  baseUrl: URL;
  key: string;
  providers: readonly string[];
  concurrency: number;
  retries: number;
  backoff: BackoffPolicy;
  /** how long the API may stay down before the lookup stops (ms) */
  outageLimitMs: number;
  runId: number;
  http: HttpClient;
  pacer: Pacer;
  clock: Clock;
  random: () => number;
  budget: RequestBudget;
  stop: StopControl;
  stats: FetchStats;
  /** masks keys in answer bodies before any text of them is kept */
  redact: (text: string) => string;
  /** whether a body holds a key or a piece of one: valid answers are redacted only then */
  holdsSecret?: (text: string) => boolean;
  onFinal: (record: FinalRecord) => void;
  /** hears of every request sent on a connection to the server, and its answer when it got one (the request ledger) */
  onRequest?: (r: LedgerEntry) => void;
  /** this lookup's own cap (what --monthly-quota leaves); when spent the lookup stops as on a quota answer */
  lookupBudget?: { take(): Promise<boolean>; putBack(): void } | undefined;
  /** the product answered before (the store remembers it, also once its answers expired): a gateway 404/410 or a rejected key then means it closed (decide.ts) */
  productKnown?: boolean | undefined;
  /** a note for the log: retries at debug, outages at warn; never keys */
  onEvent?: (event: { level: "debug" | "warn"; message: string }) => void;
}

/** One attempt's result as the loop needs it. */
interface Attempt {
  outcome: Outcome;
  httpStatus: number | null;
  failure: FailureSignature | null;
  /** the request went out on a connection to the server: only such a request can count against the quota */
  reached: boolean;
}

/** A request the run abandoned in flight (a second Ctrl-C; a rejected key, a wrong URL or lost lease elsewhere): no answer to judge. */
interface Abandoned {
  outcome: null;
  httpStatus: null;
  reached: boolean;
}

/**
 * Postcodes to fetch: a list, or (team mode) an asynchronous source that claims them as the
 * workers ask. `onWaiting`, when the source has one, tells of a wait on something outside this
 * run (other runs' claimed postcodes): nothing sent here settles it.
 */
export interface PostcodeSource extends AsyncIterable<string> {
  onWaiting?(listener: () => void): void;
}

/** `postcodes`: see PostcodeSource; `onFinal` is called for each before its slot is given back. */
export async function fetchLookup(postcodes: PostcodeSource, o: LookupFetchOptions): Promise<void> {
  const fetcher = new LookupFetcher(o);
  // One pool: `concurrency` slots; the next postcode is taken from one shared iterator (the run's
  // claimed pairs, a chunk at a time), one ahead of a free slot, so 100,000 postcodes queue no more
  // work than 100 do. The iterator is read without a slot held: a postcode held for the outage
  // monitor's judgement, given its slot up meanwhile, can take one back while the source waits.
  const next = postcodes[Symbol.asyncIterator]();
  postcodes.onWaiting?.(() => fetcher.sourceWaiting());
  const running = new Set<Promise<void>>();
  const errors: unknown[] = [];
  try {
    for (;;) {
      let r: IteratorResult<string> | null = null;
      if (!fetcher.schedule.aborted && errors.length === 0) r = await next.next();
      fetcher.sourceGave();
      if (!r || r.done) break;
      await fetcher.slots.acquire();
      const task: Promise<void> = fetcher
        .fetchPostcode(r.value)
        .catch((err: unknown) => void errors.push(err))
        .finally(() => running.delete(task));
      running.add(task);
    }
  } finally {
    fetcher.sourceFinished();
    while (running.size > 0) await Promise.all(running);
  }
  if (errors.length > 0) throw errors[0];
}

/** One postcode's attempts so far: what its final record carries. */
interface PostcodeAttempts {
  postcode: string;
  url: URL;
  state: AttemptState;
  network: NetworkRetries;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
}

/** What a judged attempt leaves the postcode's loop to do: end, try again at once, or sleep first. */
type NextStep = "done" | "again" | { sleepMs: number };

/** One lookup's postcodes share it: the key's headers, the slots, the outage monitor and gate, whether the product answered before. */
class LookupFetcher {
  readonly schedule: AbortSignal;
  readonly slots: Slots;
  private readonly held = new HeldPostcodes();
  /** no postcode more will come: once nothing holds a slot, no attempt is left to judge the held ones by */
  private sourceDone = false;
  /** the source waits on other runs: while it does, as when it is done, nothing of this run's settles the monitor */
  private sourceIdle = false;
  private known: boolean;
  /** the lookup answered (200) in this run: a gateway 404 after that is no wrong base path */
  private answered = false;
  private readonly headers: Record<string, string>;
  private readonly base: string;
  private readonly monitor: OutageMonitor;
  private readonly outage: OutageGate;
  private readonly policy: { retries: number; backoff: BackoffPolicy; random: () => number };

  constructor(private readonly o: LookupFetchOptions) {
    this.schedule = o.stop.signalFor(o.lookup);
    this.known = o.productKnown ?? false;
    this.headers = { [API_KEY_HEADER]: o.key };
    this.base = o.baseUrl.href.replace(/\/+$/, "");
    this.monitor = new OutageMonitor({ ...DEFAULT_OUTAGE_THRESHOLDS, url: o.baseUrl.href });
    this.outage = new OutageGate(o, this.monitor);
    this.policy = { retries: o.retries, backoff: o.backoff, random: o.random };
    this.slots = new Slots(Math.max(1, o.concurrency));
  }

  /** The list is done: the held postcodes are judged once nothing else is in flight. */
  sourceFinished(): void {
    this.sourceDone = true;
    this.releaseIfQuiet();
  }

  /**
   * The source waits on other runs' postcodes: held ones are judged once nothing else is in flight,
   * for another run may be waiting on them (each machine's last run would wait for the other's).
   */
  sourceWaiting(): void {
    this.sourceIdle = true;
    this.releaseIfQuiet();
  }

  /** The source gave a postcode (or ended): it no longer waits. */
  sourceGave(): void {
    this.sourceIdle = false;
  }

  private releaseSlot(): void {
    this.slots.release();
    this.releaseIfQuiet();
  }

  /** Nothing in flight and nothing more to send: no attempt can settle the monitor, so the held failures count as they are. */
  private releaseIfQuiet(): void {
    if ((this.sourceDone || this.sourceIdle) && this.slots.idle && this.held.size > 0) this.held.releaseAll(this.monitor.settleQuiet());
  }

  /**
   * Holds the postcode, its slot given up, until the monitor's judgement is settled (or nothing is
   * left that could settle it): the health it settled on, or null if the lookup stopped meanwhile.
   * The slot is taken again either way, for the caller to give back.
   */
  private async holdUntilJudged(): Promise<Health | null> {
    const released = this.held.wait(this.schedule);
    this.releaseSlot();
    const judged = await released;
    await this.slots.acquire();
    return judged;
  }

  /** Attempts one postcode until its answer is final, the lookup stops, or the run does; gives back the slot it was started in. */
  async fetchPostcode(postcode: string): Promise<void> {
    try {
      await this.attemptPostcode(postcode);
    } finally {
      this.releaseSlot();
    }
  }

  private async attemptPostcode(postcode: string): Promise<void> {
    const { o, schedule } = this;
    const p: PostcodeAttempts = {
      postcode,
      url: new URL(this.base + lookupPath(o.lookup, postcode)),
      state: { retriesUsed: 0, throttles: 0 },
      network: new NetworkRetries(),
      attempts: 0,
      lastStatus: null,
      lastError: null,
    };
    for (;;) {
      const turn = await this.outage.turn(schedule);
      if (turn === "stopped") return;
      try {
        if (schedule.aborted) return;
        // this lookup's own cap first (a reservation in the store can take a while, and a pace slot,
        // once given, is used at once): a request it may not send takes nothing from --max-requests
        if (o.lookupBudget && !(await o.lookupBudget.take())) {
          o.stop.stopLookup({ kind: "quota", lookup: o.lookup, message: "what --monthly-quota leaves this period is spent" });
          return;
        }
        // a request taken from the quota and not sent gives its grant back: the ledger counts what was sent
        const unsent = () => o.lookupBudget?.putBack();
        const slot = await o.pacer.acquire(schedule);
        if (slot === "blocked") {
          unsent();
          o.stop.stopLookup({ kind: "quota", lookup: o.lookup, message: "the service said this key's quota is spent (seen by another batch using it)" });
          return;
        }
        if (!slot) {
          unsent();
          return;
        }
        if (!o.budget.take()) {
          unsent();
          o.stop.stopAll({ kind: "max_requests", limit: o.budget.limit ?? 0 });
          return;
        }
        p.attempts++;
        o.stats.requests++;
        const attempt = await this.send(p.url, postcode);
        const entry = ledgerEntry(attempt.reached, attempt.httpStatus, attempt.outcome);
        if (entry) o.onRequest?.(entry);
        else unsent();
        if (attempt.outcome === null) return;
        let decision = this.judge(p, attempt);
        if (decision === "unjudged") {
          const settled = await this.holdUntilJudged();
          if (settled === null) return;
          decision = this.decideNow(p, attempt, settled);
        }
        const step = this.carryOut(p, attempt, decision);
        if (step === "done") return;
        if (step !== "again") await o.clock.sleep(step.sleepMs, schedule);
      } finally {
        if (turn === "probe") this.outage.probed();
      }
    }
  }

  /** One request, classified, or abandoned in flight by the run. */
  private async send(url: URL, postcode: string): Promise<Attempt | Abandoned> {
    const { o } = this;
    try {
      const res = await o.http.get(url, this.headers, o.stop.inFlightSignal);
      const outcome = classify({
        lookup: o.lookup,
        requested: postcode,
        providers: o.providers,
        status: res.status,
        headers: res.headers,
        body: res.body,
        now: o.clock.now(),
        redact: o.redact,
        holdsSecret: o.holdsSecret,
      });
      return { outcome, httpStatus: res.status, failure: signatureOf(res.status, outcome), reached: true };
    } catch (err) {
      if (!(err instanceof NetworkError)) throw err;
      if (o.stop.inFlightSignal.aborted) return { outcome: null, httpStatus: null, reached: err.reached };
      const message = o.redact(err.message);
      const wrongAddress = err.failure === "refused" || err.failure === "dns" || err.failure === "tls";
      // a body past the limit is the server answering, not the network failing: it spends a retry as
      // a bad answer does (a "network" failure not yet judged an outage is let off, which a server
      // that always sends too much would turn into attempts past --retries)
      const group = err.failure === "too_large" ? "too_large" : "network";
      return { outcome: { kind: "retryable", message }, httpStatus: null, failure: { what: err.failure, group, wrongAddress, throttled: false }, reached: err.reached };
    }
  }

  /**
   * The attempt goes to the outage monitor; a network failure it cannot judge yet is "unjudged"
   * (held, not counted), anything else goes to decideNow(). Every attempt may settle the held ones.
   */
  private judge(p: PostcodeAttempts, attempt: Attempt): Decision | "unjudged" {
    const { o, monitor } = this;
    p.lastStatus = attempt.httpStatus;
    monitor.record(p.postcode, attempt.failure, o.clock.now());
    if (attempt.outcome.kind === "throttled" && attempt.outcome.retryAfterMs !== null) this.outage.retryAfterMs = attempt.outcome.retryAfterMs;
    if (monitor.unjudged(attempt.failure)) return "unjudged";
    this.held.releaseAll(monitor.health);
    return this.decideNow(p, attempt, monitor.health);
  }

  /** decide() on the API's health (as the monitor judged it for this attempt), then the outage limit. */
  private decideNow(p: PostcodeAttempts, attempt: Attempt, health: Health): Decision {
    const { o, monitor } = this;
    p.state.retriesUsed -= p.network.refund(monitor);
    const now = o.clock.now();
    const left = (monitor.failingSince ?? now) + o.outageLimitMs - now;
    const asked = attempt.outcome.kind === "throttled" ? attempt.outcome.asked : undefined;
    const ok = attempt.outcome.kind === "ok";
    const judged = decide(o.lookup, attempt.outcome, p.state, health, this.policy, this.known || ok, this.answered || ok);
    if (ok) [this.known, this.answered] = [true, true];
    return boundWait(o.lookup, judged, left, o.outageLimitMs, asked);
  }

  /** Carries out the decision: a final record, a stop, a pause for a 429, a hold, or a retry after its backoff. */
  private carryOut(p: PostcodeAttempts, attempt: Attempt, decision: Decision): NextStep {
    const { o } = this;
    switch (decision.kind) {
      case "final":
        p.lastError = decision.lastError;
        if (decision.status === "ok") o.pacer.succeeded();
        o.stats[decision.status === "ok" ? "ok" : decision.status === "not_found" ? "notFound" : "failed"]++;
        o.onFinal(this.finalRecord(p, attempt, decision.status));
        return "done";
      case "stop":
        if (decision.scope === "all") o.stop.stopAll(decision.reason);
        else o.stop.stopLookup(decision.reason);
        return "done";
      case "wait":
        p.lastError = decision.lastError;
        p.state.throttles++;
        o.stats.throttled++;
        o.pacer.throttled(o.clock.now() + decision.waitMs);
        o.onEvent?.({ level: "debug", message: `${o.lookup}: 429 from the server, pausing ${Math.ceil(decision.waitMs / 1000)} s` });
        return "again";
      case "hold":
        p.lastError = decision.lastError;
        if (attempt.outcome.kind === "throttled") o.stats.throttled++;
        return "again";
      case "retry":
        p.lastError = decision.lastError;
        p.network.spend(attempt.failure, p.state, o.clock.now());
        o.stats.retries++;
        o.onEvent?.({ level: "debug", message: `${o.lookup} ${p.postcode}: ${decision.lastError}; retry ${p.state.retriesUsed} in ${decision.afterMs} ms` });
        return { sleepMs: decision.afterMs };
    }
  }

  /** Only an ok outcome is judged final "ok": the record then carries its answer by type. */
  private finalRecord(p: PostcodeAttempts, attempt: Attempt, status: Extract<Decision, { kind: "final" }>["status"]): FinalRecord {
    const { o } = this;
    const base = { postcode: p.postcode, lookup: o.lookup, httpStatus: p.lastStatus, attempts: p.attempts, lastError: p.lastError, fetchedAt: new Date(o.clock.now()).toISOString(), runId: o.runId };
    return attempt.outcome.kind === "ok" ? { ...base, status: "ok", answer: attempt.outcome.answer } : { ...base, status: status === "ok" ? "failed" : status };
  }
}

/** How an attempt failed, when the failure may be the API's as a whole (5xx, 408, 429). */
function signatureOf(status: number, outcome: Outcome): FailureSignature | null {
  if (outcome.kind === "throttled") return { what: "HTTP 429", group: "HTTP 429", wrongAddress: false, throttled: true };
  if (outcome.kind === "retryable" && (status === 408 || status >= 500))
    return { what: `HTTP ${status}`, group: `HTTP ${status}`, wrongAddress: false, throttled: false };
  return null;
}

/**
 * During an outage nobody sends but one probe at a time, after a growing pause (Retry-After when
 * the API gave one); the rest wait and spend nothing. Past --outage-limit the lookup stops.
 */
class OutageGate {
  private probing = false;
  private probes = 0;
  private waiters: (() => void)[] = [];
  private announced: number | null = null;
  retryAfterMs: number | null = null;

  constructor(
    private readonly o: LookupFetchOptions,
    private readonly monitor: OutageMonitor,
  ) {}

  /** "go" in health, "probe" for the one request an outage allows, "stopped" when the lookup ends. */
  async turn(signal: AbortSignal): Promise<"go" | "probe" | "stopped"> {
    for (;;) {
      if (signal.aborted) return "stopped";
      const health = this.monitor.health;
      if (health.kind !== "outage") {
        if (this.announced !== null) {
          this.o.onEvent?.({ level: "warn", message: `${this.o.lookup}: the API answers again after ${seconds(this.o.clock.now() - this.announced)}` });
          this.announced = null;
          this.probes = 0;
          this.retryAfterMs = null;
        }
        return "go";
      }
      if (this.announced === null) {
        this.announced = health.since;
        this.o.onEvent?.({
          level: "warn",
          message: `${this.o.lookup}: the API fails as a whole (${health.what} on consecutive attempts across postcodes): pausing, probing one request at a time for up to ${seconds(this.o.outageLimitMs)}`,
        });
      }
      const left = health.since + this.o.outageLimitMs - this.o.clock.now();
      if (left <= 0) {
        this.o.stop.stopLookup({
          kind: "outage",
          lookup: this.o.lookup,
          message: `the API has failed (${health.what}) for ${seconds(this.o.clock.now() - health.since)}, past --outage-limit; a re-run resumes`,
        });
        this.wake();
        return "stopped";
      }
      // a Retry-After longer than what is left ends the lookup now rather than at the limit
      if (this.retryAfterMs !== null && this.retryAfterMs > left) {
        this.o.stop.stopLookup({
          kind: "outage",
          lookup: this.o.lookup,
          message: `the API has failed (${health.what}) for ${seconds(this.o.clock.now() - health.since)} and asked to wait ${seconds(this.retryAfterMs)}, longer than the ${seconds(left)} left of --outage-limit; a re-run resumes`,
        });
        this.wake();
        return "stopped";
      }
      if (this.probing) {
        // the abort listener goes with the wait: a long outage must not pile them up on the signal
        await new Promise<void>((resolve) => {
          const done = () => {
            signal.removeEventListener("abort", done);
            resolve();
          };
          this.waiters.push(done);
          signal.addEventListener("abort", done, { once: true });
        });
        continue;
      }
      this.probing = true;
      const pause = Math.max(this.retryAfterMs ?? 0, Math.min(this.o.backoff.capMs, this.o.backoff.baseMs * 2 ** Math.min(this.probes, 30)));
      this.probes++;
      await this.o.clock.sleep(Math.min(pause, left), signal);
      if (this.o.clock.now() >= health.since + this.o.outageLimitMs) {
        this.probing = false;
        continue; // the next round stops the lookup
      }
      return "probe";
    }
  }

  /** The probe's answer is in (the monitor has it): let the others look again. */
  probed(): void {
    this.probing = false;
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

function seconds(ms: number): string {
  return ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}
