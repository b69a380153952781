// What needs fetching, per lookup, in priority order: postcodes never fetched (or stored for
// another provider list, or simulated when this run is real), failed ones, a --refresh in progress,
// answers the retention deletes before the next night (retention.ts), answers from an older release than the newest (oldest release first), answers past --max-age
// (oldest first), then a few probes: the fresh answers checked longest ago (fetched_at, which an
// identical re-fetch moves, so probes rotate through the list), re-fetched to notice a new release,
// only when the run's own fetches do not tell and at most one round a day (probe-rule.ts). What
// the run needs is recorded, so that what it does not fetch counts as pending.
import type { Lookup } from "../contract/fields.js";
import type { Store } from "../store/store.js";
import type { Candidate, NeedReason } from "../store/types.js";
import { allowance, quotaPeriod, type Allowance, type PeriodRule } from "./quota-plan.js";
import type { Premises } from "../contract/open-data.js";
import { probeRule, type ProbeDecision, type ProbeSituation } from "./probe-rule.js";
import { LOOKUP_SPECS } from "../contract/lookups.js";
import { SAMPLE_SEED, sampleOrder, type FetchOrder } from "./sample-order.js";
import { sampleDesign } from "./sample-strata.js";
import { markExpiring, oldestFetched } from "./retention.js";

export interface PlanOptions {
  runId: number;
  lookups: readonly Lookup[];
  /** answers fetched at or after this ISO time are fresh */
  freshSince: string;
  refresh: boolean;
  /** the run's start (ISO): where a new --refresh starts */
  now?: string | undefined;
  /** mobile provider prefixes of this run: a mobile answer that lacks one of them is refetched */
  providers: readonly string[];
  /** a simulated run never reuses real answers, nor a real run simulated ones */
  simulated: boolean;
  /** --probe: fresh answers re-fetched per lookup to notice a new release (0: none) */
  probe?: number | undefined;
  /** --monthly-quota: what the period allows each lookup with a quota */
  quota?: QuotaOptions | undefined;
  /** --retention: answers last returned before this ISO time expire before the next night, so are due */
  expiringBefore?: string | null | undefined;
  /** --open-data (with the premises chosen): new postcodes Ofcom's files put in more than one speed band come first (broadband) */
  openData?: Premises | undefined;
  /** --order: new postcodes in the sample's seeded stratified order (default) or the input's */
  order?: FetchOrder | undefined;
  /** --group-by: the sample's strata (sample-strata.ts); the district alone without */
  groupBy?: readonly string[] | undefined;
  /** awaited between the plan's long steps (each lookup's candidates and its needs): the batch renews its lease there */
  between?: (() => Promise<void>) | undefined;
  /** the seed a database without one keeps (by default one from the first run's start date, so a run replayed on a day draws the same order; without one, SAMPLE_SEED) */
  sampleSeed?: string | undefined;
}

export interface QuotaOptions {
  /** requests per period, per lookup (a lookup without one is not limited) */
  limits: Partial<Record<Lookup, number>>;
  /** requests the ledger holds for each lookup's current period */
  used: Record<Lookup, number>;
  nowMs: number;
  /** each lookup's quota period rule (quota-plan.ts): a reset day of the month, or a rolling period */
  rules: Record<Lookup, PeriodRule>;
  /** --spend-all: refreshes may spend all that is left, not an even share */
  spendAll: boolean;
}

export interface Plan {
  /** unique valid postcodes of the run's input */
  postcodes: number;
  /** per lookup, the postcodes to fetch, in priority order */
  toFetch: Map<Lookup, string[]>;
  /** per lookup, how many already had a fresh final answer */
  reused: Map<Lookup, number>;
  /** per lookup, how many of toFetch for each reason */
  reasons: Map<Lookup, Record<NeedReason, number>>;
  /** per lookup with a quota: tonight's allowance */
  allowance: Map<Lookup, Allowance>;
  /** per lookup: refreshes left for later nights, and postcodes left without an answer, by the quota */
  deferred: Map<Lookup, { refreshes: number; unanswered: number }>;
  /** with --open-data, per lookup ordered by it: the new postcodes by Ofcom's speed bands */
  openDataNew: Map<Lookup, OpenDataBandCounts>;
  /** per lookup: whether and why it probes, and how the run checks its release (probe-rule.ts) */
  probes: Map<Lookup, ProbeDecision>;
  /** per lookup: when the list's oldest stored answer was returned (ISO), for when answers start to expire */
  oldestAnswer: Map<Lookup, string>;
}

export interface OpenDataBandCounts {
  /** premises in more than one speed band: fetched first */
  multiBand: number;
  /** every premises in one band: fetched after */
  singleBand: number;
  /** not in Ofcom's files (or no premises in any band): fetched with the multi-band ones, as nothing is known of them */
  notListed: number;
}

/** Ofcom's files put every premises of the postcode in one speed band: the API's per-address answer adds least there. */
export const singleBand = (c: Pick<Candidate, "openDataBands">): boolean => c.openDataBands === 1;

/** The new postcodes of a lookup's candidates by their speed bands. */
export function countByBands(candidates: readonly Candidate[]): OpenDataBandCounts {
  const fresh = candidates.filter((c) => c.state === "new");
  const multiBand = fresh.filter((c) => (c.openDataBands ?? 0) > 1).length;
  const single = fresh.filter(singleBand).length;
  return { multiBand, singleBand: single, notListed: fresh.length - multiBand - single };
}

export const DEFAULT_PROBE = 20;

export interface Need {
  postcode: string;
  reason: NeedReason;
}

export interface OrderedNeeds {
  /** what the run needs, in order: the first `fetch` of them are fetched */
  needs: Need[];
  fetch: number;
  deferred: { refreshes: number; unanswered: number };
}

/**
 * The pure part: the needs of one lookup from its candidates. With a quota, new data (never
 * fetched, failed, incomplete) may take all that is left; refreshes and probes the even share.
 * Refreshes beyond it are deferred to later nights (not needs of this run); new data beyond it
 * stays a need, left pending.
 */
/**
 * An answer younger than this is never probed: a re-run after a Ctrl-C asked it minutes ago. Less
 * than a whole day, so that a nightly run whose start drifts by a few hours still probes last night's answers.
 */
export const PROBE_MIN_AGE_MS = 20 * 60 * 60 * 1000;

export function orderNeeds(
  candidates: readonly Candidate[],
  probes: (situation: Pick<ProbeSituation, "fresh" | "probeable" | "fetching" | "refetching" | "replacingRelease" | "lastAccepted">) => number,
  budget?: (firstNeeds: number) => Allowance,
  /** probes take only answers fetched before this (ISO): a younger one was just asked, and a probe would tell nothing */
  probeBefore?: string,
): OrderedNeeds {
  const of = (state: Candidate["state"]) => candidates.filter((c) => c.state === state);
  const byAge = (a: Candidate, b: Candidate) => (a.fetchedAt ?? "").localeCompare(b.fetchedAt ?? "") || a.line - b.line;
  // New data first, in input order (new postcodes open data puts wholly in one speed band after the
  // rest: a stable sort); then what the run must refresh.
  const last = (c: Candidate) => (c.state === "new" && singleBand(c) ? 1 : 0);
  const first = candidates
    .filter((c) => c.state === "new" || c.state === "failed" || c.state === "incomplete" || c.state === "refresh")
    .sort((a, b) => last(a) - last(b));
  const expiring = of("expiring").sort(byAge);
  const release = of("release").sort((a, b) => a.releaseRank - b.releaseRank || byAge(a, b));
  const age = of("age").sort(byAge);
  const before = probeBefore === undefined ? Infinity : Date.parse(probeBefore);
  const fresh = of("fresh");
  const probeable = fresh.filter((c) => probeBefore === undefined || (c.fetchedAt !== null && Date.parse(c.fetchedAt) < before));
  const probeCount = probes({
    fresh: fresh.length,
    probeable: probeable.length,
    lastAccepted: newestFetched(fresh),
    fetching: first.length + expiring.length + release.length + age.length,
    refetching: first.filter((c) => c.state === "refresh").length + expiring.length + release.length + age.length,
    replacingRelease: release.length > 0,
  });
  const firsts: Need[] = first.map((c) => ({ postcode: c.postcode, reason: c.state as NeedReason }));
  const refreshes: Need[] = [
    ...expiring.map((c) => ({ postcode: c.postcode, reason: "expiring" as const })),
    ...release.map((c) => ({ postcode: c.postcode, reason: "release" as const })),
    ...age.map((c) => ({ postcode: c.postcode, reason: "age" as const })),
    // the answers asked longest ago; a key check may take a younger one when no older is left
    ...(probeCount > probeable.length ? [...fresh].sort(byAge) : probeable.sort(byAge))
      .slice(0, probeCount)
      .map((c) => ({ postcode: c.postcode, reason: "probe" as const })),
  ];
  if (!budget) return { needs: [...firsts, ...refreshes], fetch: firsts.length + refreshes.length, deferred: { refreshes: 0, unanswered: 0 } };
  // --refresh in progress is a refresh too: it takes the refresh share, after answers about to expire.
  const newData = firsts.filter((n) => n.reason !== "refresh");
  const dueFirst = refreshes.filter((n) => n.reason === "expiring");
  const all = [...dueFirst, ...firsts.filter((n) => n.reason === "refresh"), ...refreshes.slice(dueFirst.length)];
  const a = budget(newData.length);
  const takeFirst = Math.min(newData.length, a.remaining);
  const takeRefresh = Math.min(all.length, a.refreshShare);
  const deferredProbes = all.slice(takeRefresh).filter((n) => n.reason === "probe").length;
  return {
    needs: [...newData.slice(0, takeFirst), ...all.slice(0, takeRefresh), ...newData.slice(takeFirst)],
    fetch: takeFirst + takeRefresh,
    deferred: {
      refreshes: all.length - takeRefresh - deferredProbes,
      unanswered: newData.slice(takeFirst).filter((n) => n.reason !== "incomplete").length,
    },
  };
}

/** The newest time the API returned one of these answers, or null. */
function newestFetched(candidates: readonly Candidate[]): string | null {
  let newest: string | null = null;
  for (const c of candidates) if (c.fetchedAt !== null && (newest === null || c.fetchedAt > newest)) newest = c.fetchedAt;
  return newest;
}

export function emptyReasons(): Record<NeedReason, number> {
  return { new: 0, failed: 0, incomplete: 0, refresh: 0, expiring: 0, release: 0, age: 0, probe: 0 };
}

export async function planFetches(store: Store, options: PlanOptions): Promise<Plan> {
  const toFetch = new Map<Lookup, string[]>();
  const reused = new Map<Lookup, number>();
  const reasons = new Map<Lookup, Record<NeedReason, number>>();
  const allowances = new Map<Lookup, Allowance>();
  const deferred = new Map<Lookup, { refreshes: number; unanswered: number }>();
  const openDataNew = new Map<Lookup, OpenDataBandCounts>();
  const probes = new Map<Lookup, ProbeDecision>();
  const oldestAnswer = new Map<Lookup, string>();
  const now = options.now ?? new Date().toISOString();
  let postcodes = 0;
  const design = options.order === "input" ? null : await sampleDesign(store, options.runId, options.groupBy ?? [], options.sampleSeed ?? (options.now ? `sample-${options.now.slice(0, 10)}` : SAMPLE_SEED));
  const between = options.between ?? (() => Promise.resolve());
  for (const lookup of options.lookups) {
    await between();
    const refreshSince = options.refresh ? await store.plan.refreshMark(lookup, now, options.runId) : null;
    const stored = await store.plan.candidates({
      runId: options.runId,
      lookup,
      freshSince: options.freshSince,
      refreshSince,
      providers: options.providers,
      simulated: options.simulated,
      // open data tells of fixed broadband only, but every lookup takes the postcodes in the same
      // order (multi-band first), so that a postcode's answers arrive together
      openData: options.openData,
    });
    await between();
    const candidates = markExpiring(stored, options.expiringBefore ?? null);
    const oldest = oldestFetched(stored);
    if (oldest !== null) oldestAnswer.set(lookup, oldest);
    if (options.openData && LOOKUP_SPECS[lookup].openData) openDataNew.set(lookup, countByBands(candidates));
    postcodes = candidates.length;
    const q = options.quota;
    const limit = q?.limits[lookup];
    const budget =
      q && limit !== undefined
        ? (firstNeeds: number) => {
            const a = allowance(limit, q.used[lookup], firstNeeds, q.nowMs, quotaPeriod(q.nowMs, q.rules[lookup]), q.spendAll);
            allowances.set(lookup, a);
            return a;
          }
        : undefined;
    const probe = options.refresh ? 0 : (options.probe ?? DEFAULT_PROBE);
    const lastCheck = await store.releaseChecks.last(lookup);
    const ordered = orderNeeds(
      design ? sampleOrder(candidates, (c) => c.postcode, (c) => design.stratumOf(c.postcode), design.seed) : candidates,
      (situation) => {
        // a simulated run's key is the bundled simulator's own: nothing to check
        const decision = probeRule({ ...situation, lookup, probe, lastCheck, now, ...(options.simulated ? { lastAccepted: undefined } : {}) });
        probes.set(lookup, decision);
        return decision.probes;
      },
      budget,
      new Date(Date.parse(now) - PROBE_MIN_AGE_MS).toISOString(),
    );
    await between();
    await store.plan.recordNeeds(options.runId, lookup, ordered.needs);
    const fetched = ordered.needs.slice(0, ordered.fetch);
    const counts = emptyReasons();
    for (const n of fetched) counts[n.reason]++;
    toFetch.set(lookup, fetched.map((n) => n.postcode));
    reused.set(lookup, candidates.filter((c) => c.state === "fresh").length);
    reasons.set(lookup, counts);
    deferred.set(lookup, ordered.deferred);
  }
  await between();
  return { postcodes, toFetch, reused, reasons, allowance: allowances, deferred, openDataNew, probes, oldestAnswer };
}

/** "3 new, 20 probe": the reasons that have any, for the plan's log line. */
export function describeReasons(r: Record<NeedReason, number>): string {
  const parts = Object.entries(r)
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${n} ${reason}`);
  return parts.length > 0 ? parts.join(", ") : "nothing";
}
