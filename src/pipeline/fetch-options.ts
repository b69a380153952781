// What one lookup's fetch is told: the run's settings, its key, and the hooks through which its
// answers, requests and log notes come back to the run. Built in one place for every lookup.
import type { Lookup } from "../contract/fields.js";
import type { FinalRecord } from "../contract/records.js";
import { DEFAULT_BACKOFF } from "../fetch/backoff.js";
import type { RequestBudget } from "../fetch/budget.js";
import type { Clock } from "../fetch/clock.js";
import type { FetchStats, LookupFetchOptions } from "../fetch/fetch-lookup.js";
import type { HttpClient } from "../fetch/http-client.js";
import type { Pacer } from "../fetch/pacer.js";
import type { StopControl } from "../fetch/stop.js";
import type { Logger } from "../log/logger.js";
import type { BatchConfig } from "./config.js";
import type { ApiEndpoint, BatchDeps } from "./run.js";

/** What the fetch stage has made for the lookup's fetch: the run's shared parts and the lookup's own. */
export interface LookupFetchParts {
  runId: number;
  api: Pick<ApiEndpoint, "baseUrl" | "key">;
  http: HttpClient;
  clock: Clock;
  budget: RequestBudget;
  stop: StopControl;
  log: Pick<Logger, "redact" | "holdsSecret" | "warn" | "debug">;
  /** the lookups whose product has answered before (product-closed.ts) */
  answered: ReadonlySet<Lookup>;
  /** the lookup's own pacer and counters */
  pacer: Pacer;
  stats: FetchStats;
  /** where each final record goes (the answers' writer, then the lookup's claims) */
  onFinal: (record: FinalRecord) => void;
  /** the request ledger (--monthly-quota), and what it leaves this lookup */
  onRequest: LookupFetchOptions["onRequest"];
  lookupBudget: LookupFetchOptions["lookupBudget"];
}

export type FetchSettings = Pick<BatchConfig, "keys" | "providers" | "concurrency" | "retries" | "outageLimit">;

/** The key a lookup's requests carry: the simulator's own, or the one configured for the lookup. */
export function keyFor(api: Pick<ApiEndpoint, "key">, keys: BatchConfig["keys"], lookup: Lookup): string {
  const key = api.key ?? keys[lookup];
  // the configuration refuses a real run without a key for each of its lookups
  if (key === undefined) throw new Error(`no key for the ${lookup} lookup`);
  return key;
}

export function fetchOptionsFor(lookup: Lookup, config: FetchSettings, deps: Pick<BatchDeps, "backoff" | "random">, parts: LookupFetchParts): LookupFetchOptions {
  const { log } = parts;
  return {
    lookup,
    baseUrl: parts.api.baseUrl,
    key: keyFor(parts.api, config.keys, lookup),
    providers: config.providers,
    concurrency: config.concurrency,
    retries: config.retries,
    backoff: deps.backoff ?? DEFAULT_BACKOFF,
    outageLimitMs: config.outageLimit,
    runId: parts.runId,
    http: parts.http,
    pacer: parts.pacer,
    clock: parts.clock,
    random: deps.random ?? Math.random,
    budget: parts.budget,
    stop: parts.stop,
    stats: parts.stats,
    redact: (text) => log.redact(text),
    holdsSecret: (text) => log.holdsSecret(text),
    onFinal: parts.onFinal,
    onRequest: parts.onRequest,
    lookupBudget: parts.lookupBudget,
    // a product that answered before and now refuses has closed; one that never answered points at a wrong address or key
    productKnown: parts.answered.has(lookup),
    // outages are for the operator (warn, with the lookup); retries and 429 pauses for debugging
    onEvent: (e) => (e.level === "warn" ? log.warn(e.message, { event: "outage", lookup }) : log.debug(e.message)),
  };
}
