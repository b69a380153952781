// The capacity: how many postcodes the quota can keep holding a young answer at once. An answer
// serves a number of nights (its life) before the planner must ask again (--max-age) or the
// retention deletes it; a quota period's requests, spread evenly, keep `quota × life ÷ period`
// answers young at any time. A list longer than that never holds an answer for every postcode:
// its whole-list figures are estimates for as long as the list and the quota stay so. Pure: the
// planner, `status` and every report read it from here.
import type { PeriodRule } from "./quota-plan.js";
import { DEFAULT_RETENTION_DAYS, SERVICE_PLANS } from "../contract/terms.js";

const DAY_MS = 24 * 3600 * 1000;
/**
 * How much later than a day on the next night may start: nights are not exactly a day apart (cron's
 * jitter, a clock change's 25 hours, a run held up), and an answer returned at the start of a night
 * would otherwise come due in the very batch whose start deletes it.
 */
export const NEXT_NIGHT_DRIFT_MS = 6 * 3600 * 1000;

/** A month rule's period at its longest: the capacity holds in every month, not only the long ones' average. */
const LONGEST_MONTH_DAYS = 31;
/** --max-age's default, in days. */
export const DEFAULT_MAX_AGE_DAYS = 30;

/** The length in days a period rule's periods run to at most. */
export const periodDays = (rule: PeriodRule): number => (typeof rule === "number" ? LONGEST_MONTH_DAYS : rule.days);

/**
 * Nights an answer serves, counted from the night it was returned: --max-age's whole days, and
 * under a retention the nights before the one the planner must refresh it on (retention.ts: an
 * answer that would expire before the next night, and its drift, is due tonight).
 */
export function answerLifeNights(maxAgeMs: number, retentionMs: number | null): number {
  const byAge = Math.max(1, Math.floor(maxAgeMs / DAY_MS));
  if (retentionMs === null) return byAge;
  const byRetention = Math.max(1, Math.floor((retentionMs - DAY_MS - NEXT_NIGHT_DRIFT_MS) / DAY_MS) + 1);
  return Math.min(byAge, byRetention);
}

export interface CapacityInput {
  /** requests a quota period */
  quota: number;
  /** the period's length in days (periodDays) */
  periodDays: number;
  maxAgeMs: number;
  retentionMs: number | null;
  /** unique valid postcodes of the list */
  listSize: number;
}

export interface Capacity {
  /** postcodes the quota keeps holding a young answer at once */
  postcodes: number;
  /** nights an answer serves before it is asked again */
  lifeNights: number;
  listSize: number;
  /** the list is longer than the capacity: whole-list figures stay estimates */
  exceeded: boolean;
  /** requests a period that would keep the whole list answered (answering it all within an answer's life) */
  quotaNeeded: number;
}

/** One lookup's capacity for a list. */
export function capacity(p: CapacityInput): Capacity {
  const lifeNights = answerLifeNights(p.maxAgeMs, p.retentionMs);
  const postcodes = Math.floor((p.quota * lifeNights) / p.periodDays);
  return {
    postcodes,
    lifeNights,
    listSize: p.listSize,
    exceeded: p.listSize > postcodes,
    quotaNeeded: Math.ceil((p.listSize * p.periodDays) / lifeNights),
  };
}

/** The list's capacity over its lookups: the smallest (every lookup must answer a postcode); null when no lookup's quota is known. */
export function listCapacity(perLookup: readonly (Capacity | null | undefined)[]): Capacity | null {
  const known = perLookup.filter((c): c is Capacity => !!c);
  if (known.length === 0) return null;
  return known.reduce((a, b) => (b.postcodes < a.postcodes ? b : a.postcodes === b.postcodes && b.quotaNeeded > a.quotaNeeded ? b : a));
}

/**
 * Without a known quota: the capacity at the service's largest plan, with the default --max-age and
 * retention. Only a list longer than that is known to exceed whatever key it runs on; null otherwise.
 */
export function largestPlanCapacity(listSize: number): Capacity | null {
  const largest = SERVICE_PLANS.reduce((a, b) => (b.requests > a.requests ? b : a));
  const c = capacity({ quota: largest.requests, periodDays: largest.periodDays, maxAgeMs: DEFAULT_MAX_AGE_DAYS * DAY_MS, retentionMs: DEFAULT_RETENTION_DAYS * DAY_MS, listSize });
  return c.exceeded ? c : null;
}
