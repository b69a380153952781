// Fetches one lookup for a list of postcodes: a bounded pool (p-limit), the pacer, classification of each
// answer, retry with backoff, and the final record handed to the store.
import pLimit from "p-limit";
import type { Lookup } from "../spec/fields.js";
import { API_KEY_HEADER, lookupPath } from "../spec/types.js";
import type { FinalRecord } from "../store/answers.js";
import { backoffDelay, type BackoffPolicy } from "./backoff.js";
import type { RequestBudget } from "./budget.js";
import { classify } from "./classify.js";
import type { Clock } from "./clock.js";
import { NetworkError, type HttpClient } from "./http-client.js";
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
  /** postcodes left without a final answer (stopped early) */
  unfinished: number;
}

export function emptyStats(): FetchStats {
  return { requests: 0, retries: 0, throttled: 0, ok: 0, notFound: 0, failed: 0, unfinished: 0 };
}

export interface LookupFetchOptions {
  lookup: Lookup;
  baseUrl: URL;
  key: string;
  providers: readonly string[];
  concurrency: number;
  retries: number;
  backoff: BackoffPolicy;
  runId: number;
  http: HttpClient;
  pacer: Pacer;
  clock: Clock;
  random: () => number;
  budget: RequestBudget;
  stop: StopControl;
  stats: FetchStats;
  onFinal: (record: FinalRecord) => void;
  /** hears of every request sent and its answer (the request ledger); quotaMessage: the text of a 403 quota answer */
  onRequest?: (r: { status: number | null; quotaMessage: string | null }) => void;
  /** this lookup's own cap (what --monthly-quota leaves); when spent the lookup stops as on a quota answer */
  lookupBudget?: RequestBudget | undefined;
  /** a note for the log: retries and waits, never keys */
  onEvent?: (event: { level: "info" | "warn"; message: string }) => void;
}

/** The key, wherever it appears in `text`, replaced by ***. */
export function maskKey(text: string, key: string): string {
  return key.length > 0 && text.includes(key) ? text.split(key).join("***") : text;
}

/** A postcode answered 429 this many times in a row fails, so a stuck limiter cannot spin forever. */
const MAX_THROTTLES_PER_POSTCODE = 50;

export async function fetchLookup(postcodes: readonly string[], o: LookupFetchOptions): Promise<void> {
  const schedule = o.stop.signalFor(o.lookup);
  const headers = { [API_KEY_HEADER]: o.key };
  const base = o.baseUrl.href.replace(/\/+$/, "");

  async function one(postcode: string): Promise<void> {
    let attempts = 0;
    let retriesUsed = 0;
    let throttles = 0;
    let lastStatus: number | null = null;
    let lastError: string | null = null;
    const url = new URL(base + lookupPath(o.lookup, postcode));
    const final = (status: FinalRecord["status"], extra: Partial<FinalRecord> = {}) =>
      o.onFinal({
        postcode,
        lookup: o.lookup,
        status,
        httpStatus: lastStatus,
        attempts,
        lastError,
        fetchedAt: new Date(o.clock.now()).toISOString(),
        runId: o.runId,
        ...extra,
      });

    for (;;) {
      if (schedule.aborted || !(await o.pacer.acquire(schedule))) break;
      if (!o.budget.take()) {
        o.stop.stopAll({ kind: "max_requests", limit: o.budget.limit ?? 0 });
        break;
      }
      if (o.lookupBudget && !o.lookupBudget.take()) {
        o.stop.stopLookup({ kind: "quota", lookup: o.lookup, message: "what --monthly-quota leaves this period is spent" });
        break;
      }
      attempts++;
      o.stats.requests++;
      let outcome: Outcome;
      try {
        const res = await o.http.get(url, headers, o.stop.inFlightSignal);
        lastStatus = res.status;
        outcome = classify({
          lookup: o.lookup,
          requested: postcode,
          providers: o.providers,
          status: res.status,
          headers: res.headers,
          body: res.body,
          now: o.clock.now(),
        });
        // A body may echo the key (a gateway or proxy quoting the request); its text is stored and logged.
        if ("message" in outcome) outcome = { ...outcome, message: maskKey(outcome.message, o.key) };
      } catch (err) {
        if (!(err instanceof NetworkError)) throw err;
        if (o.stop.inFlightSignal.aborted) break;
        lastStatus = null;
        outcome = { kind: "retryable", message: err.message };
      }
      o.onRequest?.({ status: lastStatus, quotaMessage: outcome.kind === "quota" ? outcome.message : null });

      switch (outcome.kind) {
        case "ok":
          lastError = null;
          o.pacer.succeeded();
          o.stats.ok++;
          final("ok", { answer: outcome.answer });
          return;
        case "not_found":
          lastError = null;
          o.stats.notFound++;
          final("not_found");
          return;
        case "auth":
        case "misconfigured":
          o.stop.stopAll({ kind: outcome.kind, lookup: o.lookup, message: outcome.message });
          break;
        case "quota":
          o.stop.stopLookup({ kind: "quota", lookup: o.lookup, message: outcome.message });
          break;
        case "throttled": {
          o.stats.throttled++;
          throttles++;
          lastError = outcome.message;
          if (throttles >= MAX_THROTTLES_PER_POSTCODE) {
            o.stats.failed++;
            final("failed", { lastError: `answered 429 ${throttles} times: ${outcome.message}` });
            return;
          }
          const wait = outcome.retryAfterMs ?? backoffDelay(throttles - 1, o.backoff, o.random);
          o.pacer.throttled(o.clock.now() + wait);
          o.onEvent?.({ level: "info", message: `${o.lookup}: 429 from the server, pausing ${Math.ceil(wait / 1000)} s` });
          continue;
        }
        case "final_error":
          lastError = outcome.message;
          o.stats.failed++;
          final("failed");
          return;
        case "retryable": {
          lastError = outcome.message;
          if (retriesUsed >= o.retries) {
            o.stats.failed++;
            final("failed");
            return;
          }
          const delay = backoffDelay(retriesUsed, o.backoff, o.random);
          retriesUsed++;
          o.stats.retries++;
          o.onEvent?.({ level: "info", message: `${o.lookup} ${postcode}: ${outcome.message}; retry ${retriesUsed} in ${delay} ms` });
          await o.clock.sleep(delay, schedule);
          continue;
        }
      }
      break;
    }
    o.stats.unfinished++;
  }

  // The pool (p-limit) runs `concurrency` at once; postcodes are handed to it only as it frees up,
  // so 100,000 postcodes queue no more tasks than 100 do.
  const limit = pLimit(o.concurrency);
  const running = new Set<Promise<void>>();
  for (const postcode of postcodes) {
    if (schedule.aborted) {
      o.stats.unfinished++;
      continue;
    }
    const task: Promise<void> = limit(() => one(postcode)).finally(() => running.delete(task));
    running.add(task);
    if (running.size >= o.concurrency) await Promise.race(running);
  }
  await Promise.all(running);
}
