// What needs fetching, per lookup, in priority order: postcodes never fetched (or stored for
// another provider list, or simulated when this run is real), failed ones, a --refresh in progress,
// answers from an older release than the newest (oldest release first), answers past --max-age
// (oldest first), then a few probes: the fresh answers checked longest ago, re-fetched to notice a
// new release. What the run needs is recorded, so that what it does not fetch counts as pending.
import type { Lookup } from "../spec/fields.js";
import type { Db } from "../store/db.js";
import { planCandidates, recordNeeds, refreshMark, type Candidate, type NeedReason } from "../store/plan-queries.js";

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
}

export const DEFAULT_PROBE = 20;

export interface Need {
  postcode: string;
  reason: NeedReason;
}

/** The pure part: the needs of one lookup from its candidates. */
export function orderNeeds(candidates: readonly Candidate[], probe: number): Need[] {
  const of = (state: Candidate["state"]) => candidates.filter((c) => c.state === state);
  const byAge = (a: Candidate, b: Candidate) => (a.fetchedAt ?? "").localeCompare(b.fetchedAt ?? "") || a.line - b.line;
  // New data first, in input order; then what the run must refresh.
  const first = candidates.filter((c) => c.state === "new" || c.state === "failed" || c.state === "incomplete" || c.state === "refresh");
  const release = of("release").sort((a, b) => a.releaseRank - b.releaseRank || byAge(a, b));
  const age = of("age").sort(byAge);
  // While an older release is being replaced there is nothing to probe for; refreshes of answers
  // already on the newest release detect a new one as well as probes would.
  const probes = release.length > 0 ? [] : of("fresh").sort(byAge).slice(0, Math.max(0, probe - age.length));
  const needs: Need[] = [];
  for (const c of first) needs.push({ postcode: c.postcode, reason: c.state as NeedReason });
  for (const c of release) needs.push({ postcode: c.postcode, reason: "release" });
  for (const c of age) needs.push({ postcode: c.postcode, reason: "age" });
  for (const c of probes) needs.push({ postcode: c.postcode, reason: "probe" });
  return needs;
}

export function emptyReasons(): Record<NeedReason, number> {
  return { new: 0, failed: 0, incomplete: 0, refresh: 0, release: 0, age: 0, probe: 0 };
}

export function planFetches(db: Db, options: PlanOptions): Plan {
  const toFetch = new Map<Lookup, string[]>();
  const reused = new Map<Lookup, number>();
  const reasons = new Map<Lookup, Record<NeedReason, number>>();
  let postcodes = 0;
  for (const lookup of options.lookups) {
    const refreshSince = options.refresh ? refreshMark(db, lookup, options.now ?? new Date().toISOString(), options.runId) : null;
    const candidates = planCandidates(db, {
      runId: options.runId,
      lookup,
      freshSince: options.freshSince,
      refreshSince,
      providers: options.providers,
      simulated: options.simulated,
    });
    postcodes = candidates.length;
    const needs = orderNeeds(candidates, options.refresh ? 0 : (options.probe ?? DEFAULT_PROBE));
    recordNeeds(db, options.runId, lookup, needs);
    const counts = emptyReasons();
    for (const n of needs) counts[n.reason]++;
    toFetch.set(lookup, needs.map((n) => n.postcode));
    reused.set(lookup, candidates.length - needs.length + counts.probe);
    reasons.set(lookup, counts);
  }
  return { postcodes, toFetch, reused, reasons };
}

/** "3 new, 20 probe": the reasons that have any, for the plan's log line. */
export function describeReasons(r: Record<NeedReason, number>): string {
  const parts = Object.entries(r)
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${n} ${reason}`);
  return parts.length > 0 ? parts.join(", ") : "nothing";
}
