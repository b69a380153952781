// The nights ahead, rehearsed: from the stored answers of a list, one lookup's coming nights as the
// planner will run them (plan.ts: orderNeeds), one a day at the last night's hour: answers the
// retention deletes come back as new, new data takes what the period has left, refreshes (answers
// about to expire first, then older releases, then past --max-age) the even share, probes what the
// share leaves, and each new quota period starts whole. A date a report or `status` promises is a
// night of this rehearsal, so it is a night the planner keeps. Pure: the callers pass the store's figures in.
import { allowance, quotaPeriod, type PeriodRule } from "./quota-plan.js";
import { NEXT_NIGHT_DRIFT_MS } from "./capacity.js";

const DAY_MS = 24 * 3600 * 1000;
/** An answer younger than this is never probed (plan.ts: PROBE_MIN_AGE_MS). */
const PROBE_MIN_AGE_MS = 20 * 3600 * 1000;
/** How far ahead the rehearsal looks: a year and a month of nights. */
export const HORIZON_NIGHTS = 400;

export interface StoredAnswer {
  /** when the API last returned it (ms) */
  at: number;
  /** on an older release than the newest: refreshed whatever its age */
  stale: boolean;
}

export interface FutureNightsInput {
  listSize: number;
  /** the list's stored answers (found or not found); every other postcode is new */
  answers: readonly StoredAnswer[];
  quota: number;
  /** requests the ledger holds for the first night's period */
  used: number;
  rule: PeriodRule;
  spendAll: boolean;
  maxAgeMs: number;
  retentionMs: number | null;
  /** the first night's start (ms); the next ones a day apart */
  firstNightMs: number;
  /** --probe, and whether the lookup's answers name their release (a night fetching any needs no probe) */
  probe: number;
  namesRelease: boolean;
}

export interface FutureNights {
  /** the first night (YYYY-MM-DD) after whose run every postcode holds an answer; null when none within the horizon */
  allAnsweredOn: string | null;
  /** the first night after whose run every answer is also on the newest release and within --max-age; null when none */
  allFreshOn: string | null;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** One lookup's nights ahead, until the list is all answered (`until`), or also fresh, or the horizon. */
export function futureNights(p: FutureNightsInput, until: "answered" | "fresh" = "fresh", horizon = HORIZON_NIGHTS): FutureNights {
  // oldest first: the order the planner refreshes in
  let held: StoredAnswer[] = [...p.answers].sort((a, b) => a.at - b.at);
  let unanswered = Math.max(0, p.listSize - held.length);
  let periodKey = quotaPeriod(p.firstNightMs, p.rule).key;
  let used = p.used;
  let allAnsweredOn: string | null = null;
  for (let night = 0; night < horizon; night++) {
    const t = p.firstNightMs + night * DAY_MS;
    const period = quotaPeriod(t, p.rule);
    if (period.key !== periodKey) [periodKey, used] = [period.key, 0];
    // the run's start deletes what the retention no longer allows: those postcodes are new again
    if (p.retentionMs !== null) {
      const cutoff = t - p.retentionMs;
      const kept = held.filter((a) => a.at >= cutoff);
      unanswered += held.length - kept.length;
      held = kept;
    }
    const spent = tonight(held, unanswered, t, used, period, p);
    used += spent.requests;
    unanswered -= spent.newAnswered;
    held = spent.held;
    if (unanswered === 0 && allAnsweredOn === null) {
      allAnsweredOn = day(t);
      if (until === "answered") return { allAnsweredOn, allFreshOn: null };
    }
    const fresh = unanswered === 0 && held.every((a) => !a.stale && a.at >= t - p.maxAgeMs);
    if (fresh) return { allAnsweredOn: allAnsweredOn ?? day(t), allFreshOn: day(t) };
  }
  return { allAnsweredOn, allFreshOn: null };
}

/** One night's run: what it sends, how many new postcodes it answers, and the answers held after it. */
function tonight(held: StoredAnswer[], unanswered: number, t: number, used: number, period: ReturnType<typeof quotaPeriod>, p: FutureNightsInput) {
  const dueBefore = p.retentionMs === null ? -Infinity : t + DAY_MS + NEXT_NIGHT_DRIFT_MS - p.retentionMs;
  const freshSince = t - p.maxAgeMs;
  const expiring: number[] = [];
  const release: number[] = [];
  const age: number[] = [];
  const fresh: number[] = [];
  held.forEach((a, i) => (a.at < dueBefore ? expiring : a.stale ? release : a.at < freshSince ? age : fresh).push(i));
  const refreshes = [...expiring, ...release, ...age];
  const a = allowance(p.quota, used, unanswered, t, period, p.spendAll);
  const newAnswered = Math.min(unanswered, a.remaining);
  const refreshed = refreshes.slice(0, Math.min(refreshes.length, a.refreshShare));
  // probes (probe-rule.ts): none when the run's fetches tell of the release; else what the share leaves
  const fetching = unanswered + refreshes.length;
  const probeable = fresh.filter((i) => held[i]!.at < t - PROBE_MIN_AGE_MS);
  const probes =
    p.probe === 0 || release.length > 0 || fresh.length === 0 || (p.namesRelease && fetching > 0) || refreshes.length >= p.probe
      ? 0
      : Math.min(probeable.length, p.probe - refreshes.length, Math.max(0, a.refreshShare - refreshed.length));
  const asked = new Set([...refreshed, ...probeable.slice(0, probes)]);
  const kept = held.filter((_, i) => !asked.has(i));
  const answeredTonight = Array.from({ length: asked.size + newAnswered }, () => ({ at: t, stale: false }));
  return { requests: newAnswered + asked.size, newAnswered, held: [...kept, ...answeredTonight] };
}
