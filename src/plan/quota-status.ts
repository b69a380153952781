// The figures of what `npm run status` says of the quota plan (its words: cli/status-text.ts), per
// lookup with a --monthly-quota (as the last run was started with): used and remaining this period,
// the next night's refresh allowance, answers deferred, and when the whole input will be on the
// newest release and within --max-age at this pace.
import type { Lookup } from "../contract/fields.js";
import type { Store } from "../store/store.js";
import { storedRulesOfArgs, usedInPeriods } from "./quota-period.js";
import { describeShortfall, expiryShortfall, oldestFetched } from "./retention.js";
import { allowance, quotaPeriod } from "./quota-plan.js";
import { quotaExhausted, type QuotaExhausted } from "./quota-exhausted.js";
import { lastRunCandidates, rehearseNights } from "./night-promise.js";
import { capacity, periodDays } from "./capacity.js";
import { capacityStatement, type CapacityStatement } from "./capacity-words.js";
import { lifeOfArgs } from "./answer-pace.js";

const DAY_MS = 24 * 3600 * 1000;

export interface LookupQuotaStatus {
  lookup: Lookup;
  quota: number;
  period: string;
  /** the period's last day (YYYY-MM-DD): the next starts the day after */
  periodLastDay: string;
  used: number;
  remaining: number;
  /** the next night: today when no run has started today, else tomorrow */
  nextNight: string;
  /** postcodes of the input never fetched or failed: the next night takes them first */
  newData: number;
  refreshAllowance: number;
  /** answers from an older release or past --max-age */
  outstanding: number;
  deferred: number;
  /** the night the input is all on the newest release and within --max-age; null when it cannot be at this pace */
  finishDate: string | null;
  /** when it cannot be: the monthly quota it would need */
  quotaNeeded: number | null;
  /** the line saying how many postcodes the quota lets expire unanswered under the retention, and from when; null when none */
  expiry: string | null;
  /** the next night's period has nothing left: when the next starts and what waits; null while it has */
  exhausted: QuotaExhausted | null;
  /** a list longer than the quota keeps answered (capacity.ts): what it says of that, as the reports do; null otherwise */
  capacity: CapacityStatement | null;
}

export async function quotaStatus(store: Store, nowMs: number): Promise<LookupQuotaStatus[]> {
  const last = await store.runs.lastSettings();
  const limits = last?.args.monthlyQuota as Partial<Record<Lookup, number>> | null | undefined;
  if (!last || !limits) return [];
  const a = last.args;
  // each lookup's own period: a quota 403 of one product says nothing of the other's
  const rules = await storedRulesOfArgs(store, a);
  const spendAll = last.args.spendAll === true;
  // the same reading of the run's --max-age and --retention as the reports' pace
  const { maxAgeMs, retentionMs } = lifeOfArgs(a);
  const ranToday = last.startedAt.slice(0, 10) === new Date(nowMs).toISOString().slice(0, 10);
  const nightMs = ranToday ? Date.parse(last.startedAt) + DAY_MS : nowMs;
  const usedBy = await usedInPeriods(store, rules, nightMs, nowMs);
  const out: LookupQuotaStatus[] = [];
  for (const [lookup, quota] of Object.entries(limits) as [Lookup, number][]) {
    const candidates = await lastRunCandidates(store, last, lookup, nightMs, maxAgeMs);
    const newData = candidates.filter((c) => c.state === "new" || c.state === "failed" || c.state === "incomplete").length;
    const outstanding = candidates.filter((c) => c.state === "release" || c.state === "age").length;
    const period = quotaPeriod(nightMs, rules[lookup]);
    const used = usedBy[lookup];
    const a = allowance(quota, used, newData, nightMs, period, spendAll);
    const kept = capacity({ quota, periodDays: periodDays(rules[lookup]), maxAgeMs, retentionMs, listSize: candidates.length });
    const beyond = capacityStatement(candidates.length, [[lookup, { quota: { perPeriod: quota }, capacity: kept }]]);
    const block = await store.ledger.blocked(lookup, new Date(nowMs).toISOString());
    const blockedUntilMs = block ? Date.parse(block.until) : null;
    // a night that can send nothing is said as such, with the day the next period starts, not as a plan
    const exhausted = quotaExhausted({ remaining: a.remaining, periodEndMs: period.endMs, nightMs, blockedUntilMs, newData, outstanding });
    // the night the rehearsed nights (night-promise.ts) hold the list fresh: a night the planner keeps; none beyond the capacity
    const finish =
      beyond || exhausted ? null : (await rehearseNights(store, last, lookup, { quota, used, rule: rules[lookup], maxAgeMs, retentionMs, nextNightMs: nightMs }, "fresh")).allFreshOn;
    out.push({
      lookup,
      quota,
      period: period.key,
      periodLastDay: new Date(period.endMs - DAY_MS).toISOString().slice(0, 10),
      used,
      remaining: a.remaining,
      nextNight: new Date(nightMs).toISOString().slice(0, 10),
      newData,
      refreshAllowance: a.refreshShare,
      outstanding,
      deferred: Math.max(0, outstanding - a.refreshShare),
      finishDate: finish,
      expiry: describeShortfall(
        lookup,
        expiryShortfall({ listSize: candidates.length, quota, periodDays: periodDays(rules[lookup]), maxAgeMs, retentionMs, oldestAnswer: oldestFetched(candidates) }),
        candidates.length,
        retentionMs,
      ),
      quotaNeeded: finish || exhausted ? null : Math.max(used + outstanding + newData, kept.quotaNeeded),
      exhausted,
      capacity: beyond,
    });
  }
  return out;
}
