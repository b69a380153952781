// When the postcodes a list still lacks will be answered at the current quota: the reports of a
// partly answered list say it beside the whole list's estimate. New postcodes take everything a
// period has left (quota-plan.ts: allowance), so the rest is answered a period's quota at a time.
// The quota is --monthly-quota as the last run recorded it or, without one, what the service let
// this period's requests reach before its quota answer blocked the lookup.
import type { Lookup } from "../contract/fields.js";
import type { Store } from "../store/store.js";
import type { LastRunSettings } from "../store/types.js";
import { firstRehearsedNight, rehearseNights, storedAnswers } from "./night-promise.js";
import { storedRulesOfArgs, usedInPeriods } from "./quota-period.js";
import { quotaPeriod, type PeriodRule } from "./quota-plan.js";
import { DEFAULT_RETENTION_DAYS } from "../contract/terms.js";
import { capacity, DEFAULT_MAX_AGE_DAYS, periodDays, type Capacity } from "./capacity.js";

const DAY_MS = 24 * 3600 * 1000;
/** The Basic plan's period ("50,000 requests in 28 days"), when the service's quota is all that is known. */
const SERVICE_PERIOD_DAYS = 28;

/** One lookup's pace: requests a period, what the current period has left, and the next night that may spend it. */
export interface AnswerPace {
  quota: number;
  remaining: number;
  /** the first night that may fetch (UTC midnight-based ms): today, tomorrow, or when the service's block ends */
  nextNightMs: number;
  /** the first moment a night may start: now, or when the service's block ends; the next night is the first at the run's hour from then */
  earliestMs?: number;
  rule: PeriodRule;
  /** where the quota comes from: the option, or what the service allowed this period */
  source: "monthly-quota" | "service";
  /** --max-age and --retention (ms; null: none) of the last run: with the quota, the capacity (capacity.ts) */
  maxAgeMs: number;
  retentionMs: number | null;
  /** the night (YYYY-MM-DD) the rehearsed nights (night-promise.ts) first hold an answer for every postcode; null when none does, or the list is beyond the capacity */
  answeredOn?: string | null;
}

/** The capacity of a list of `listSize` postcodes at `pace`. */
export const paceCapacity = (pace: AnswerPace, listSize: number): Capacity =>
  capacity({ quota: pace.quota, periodDays: periodDays(pace.rule), maxAgeMs: pace.maxAgeMs, retentionMs: pace.retentionMs, listSize });

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The night (YYYY-MM-DD) by which `unanswered` postcodes are answered at `pace`: tonight's remainder
 * first, then each new period's whole quota on its first night; null when the quota answers none
 * within `horizonPeriods` periods.
 */
export function answeredBy(unanswered: number, pace: AnswerPace, horizonPeriods = 60): string | null {
  if (unanswered <= 0) return day(pace.nextNightMs);
  let left = unanswered;
  let night = pace.nextNightMs;
  let period = quotaPeriod(night, pace.rule);
  let available = pace.remaining;
  for (let i = 0; i <= horizonPeriods; i++) {
    if (available >= left) return day(night);
    left -= available;
    night = Math.max(period.endMs, night + DAY_MS);
    period = quotaPeriod(night, pace.rule);
    available = pace.quota;
  }
  return null;
}

/**
 * Per lookup with a known quota, its pace as the store's ledger stands at `nowMs`. The pace plans
 * the last run's list: a report of another run, or of every stored postcode, gets none (no date).
 */
export async function answerPaces(store: Store, nowMs: number, lookups: readonly Lookup[], scope: { runId?: number | undefined; all?: boolean } = {}): Promise<Partial<Record<Lookup, AnswerPace>>> {
  const last = await store.runs.lastSettings();
  if (!last || scope.all === true || (scope.runId !== undefined && scope.runId !== last.runId)) return {};
  const a = last.args;
  const limits = (a.monthlyQuota ?? {}) as Partial<Record<Lookup, number>>;
  // each lookup's own period: a quota 403 of one product says nothing of the other's
  const rules = await storedRulesOfArgs(store, a);
  const ranToday = day(Date.parse(last.startedAt)) === day(nowMs);
  const nightMs = Math.floor((ranToday ? nowMs + DAY_MS : nowMs) / DAY_MS) * DAY_MS;
  // what the next night's period has used (the option's quota), and what this one has (the service's)
  const used = await usedInPeriods(store, rules, nightMs, nowMs);
  const usedNow = await usedInPeriods(store, rules, nowMs, nowMs);
  const life = lifeOfArgs(a);
  const out: Partial<Record<Lookup, AnswerPace>> = {};
  for (const lookup of lookups) {
    const block = await store.ledger.blocked(lookup, new Date(nowMs).toISOString());
    const limit = limits[lookup];
    const rule = rules[lookup];
    const blockedUntil = block ? Math.max(nightMs, Date.parse(block.until)) : null;
    if (limit !== undefined) {
      out[lookup] = { quota: limit, remaining: blockedUntil === null ? Math.max(0, limit - used[lookup]) : 0, nextNightMs: nightMs, earliestMs: nowMs, rule, source: "monthly-quota", ...life };
    } else if (blockedUntil !== null && usedNow[lookup] > 1) {
      // the service's quota: as many requests a period as it answered in this one, again from when
      // it is replenished; its period is the rule's when rolling, else the Basic plan's 28 days
      const start = Math.floor(blockedUntil / DAY_MS) * DAY_MS;
      const rolling = typeof rule === "number" ? { days: SERVICE_PERIOD_DAYS, startMs: start } : rule;
      // the request the quota answer refused is counted too: the service allowed the ones before it
      const allowed = Math.max(1, usedNow[lookup] - 1);
      out[lookup] = { quota: allowed, remaining: allowed, nextNightMs: start, earliestMs: blockedUntil, rule: rolling, source: "service", ...life };
    }
    const pace = out[lookup];
    if (pace) pace.answeredOn = await promisedAnswered(store, last, lookup, pace);
  }
  return out;
}

/** The night the rehearsed nights answer the whole list at `pace`; null beyond the capacity (no night ever does) or past the horizon. */
async function promisedAnswered(store: Store, last: LastRunSettings, lookup: Lookup, pace: AnswerPace): Promise<string | null> {
  const firstNightMs = firstRehearsedNight({ ...pace, used: 0 }, last);
  const stored = await storedAnswers(store, last, lookup, firstNightMs, pace.maxAgeMs);
  if (paceCapacity(pace, stored.listSize).exceeded) return null;
  return (await rehearseNights(store, last, lookup, { ...pace, used: pace.quota - pace.remaining }, "answered", stored)).allAnsweredOn;
}

/** A stored run's --max-age and --retention in ms (runs record both so; the defaults otherwise). */
export function lifeOfArgs(a: Record<string, unknown>): Pick<AnswerPace, "maxAgeMs" | "retentionMs"> {
  return {
    maxAgeMs: typeof a.maxAge === "number" ? a.maxAge : DEFAULT_MAX_AGE_DAYS * DAY_MS,
    retentionMs: typeof a.retention === "number" ? a.retention : a.retention === null ? null : DEFAULT_RETENTION_DAYS * DAY_MS,
  };
}
