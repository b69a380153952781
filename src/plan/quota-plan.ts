// The monthly quota, as pure arithmetic: quota periods, tonight's even share of what is left, and
// the date by which outstanding refreshes are done at that pace. Nothing here reads a clock or a
// database: the batch and `status` pass the ledger's figures in.

import { perLookup } from "../contract/lookups.js";

const DAY_MS = 24 * 3600 * 1000;

export interface QuotaPeriod {
  /** first day of the period, YYYY-MM-DD (UTC): the ledger's key */
  key: string;
  startMs: number;
  /** the next period's start */
  endMs: number;
}

/**
 * How quota periods run: the day of the month they start on (1: the calendar month), or a rolling
 * period of `days` counted from `startMs` (the Basic plan's "50,000 requests in 28 days").
 */
export type PeriodRule = number | { days: number; startMs: number };

const dayKey = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The quota period holding `nowMs`: the calendar month (UTC), the month starting on a reset day, or the rolling period. */
export function quotaPeriod(nowMs: number, rule: PeriodRule = 1): QuotaPeriod {
  if (typeof rule !== "number") {
    const length = rule.days * DAY_MS;
    const startMs = rule.startMs + Math.floor((nowMs - rule.startMs) / length) * length;
    return { key: dayKey(startMs), startMs, endMs: startMs + length };
  }
  const resetDay = rule;
  const now = new Date(nowMs);
  let y = now.getUTCFullYear();
  let m = now.getUTCMonth();
  if (now.getUTCDate() < resetDay) m -= 1;
  const start = Date.UTC(y, m, resetDay);
  const end = Date.UTC(y, m + 1, resetDay);
  const d = new Date(start);
  y = d.getUTCFullYear();
  m = d.getUTCMonth();
  return { key: `${y}-${String(m + 1).padStart(2, "0")}-${String(d.getUTCDate()).padStart(2, "0")}`, startMs: start, endMs: end };
}

/** Runs left in the period, one a day, today included. */
export function runsLeft(nowMs: number, period: QuotaPeriod): number {
  const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
  return Math.max(1, Math.ceil((period.endMs - today) / DAY_MS));
}

export interface Allowance {
  /** requests the period has left for this lookup */
  remaining: number;
  /** of them, what tonight's refreshes may spend (the even share, or all with --spend-all) */
  refreshShare: number;
}

/** Tonight's allowance: new data may take all that is left; refreshes an even share of what new data leaves. */
export function allowance(quota: number, used: number, firstNeeds: number, nowMs: number, period: QuotaPeriod, spendAll: boolean): Allowance {
  const remaining = Math.max(0, quota - used);
  const afterFirst = Math.max(0, remaining - firstNeeds);
  return { remaining, refreshShare: spendAll ? afterFirst : Math.floor(afterFirst / runsLeft(nowMs, period)) };
}

export interface Pace {
  /** the night (YYYY-MM-DD) the outstanding refreshes are done; null when not within `horizonDays` */
  finishDate: string | null;
  /** the monthly quota that would refresh the outstanding answers within the current period (with --spend-all) */
  quotaNeeded: number;
}

/**
 * Nights run one a day from `firstNightMs`, each spending the even share of what its period has
 * left on `outstanding` refreshes (a new period starts with the whole quota): the night the last
 * one is done. New postcodes added meanwhile are not foreseen.
 */
export function predictFinish(
  p: { quota: number; used: number; outstanding: number; firstNightMs: number; resetDay: PeriodRule; spendAll: boolean },
  horizonDays = 366,
): Pace {
  let outstanding = p.outstanding;
  let period = quotaPeriod(p.firstNightMs, p.resetDay);
  let used = p.used;
  const quotaNeeded = p.used + p.outstanding;
  for (let night = 0; night < horizonDays && outstanding > 0; night++) {
    const at = p.firstNightMs + night * DAY_MS;
    if (at >= period.endMs) {
      period = quotaPeriod(at, p.resetDay);
      used = 0;
    }
    const spend = Math.min(outstanding, allowance(p.quota, used, 0, at, period, p.spendAll).refreshShare);
    outstanding -= spend;
    used += spend;
    if (outstanding === 0) return { finishDate: new Date(at).toISOString().slice(0, 10), quotaNeeded };
  }
  return { finishDate: outstanding === 0 ? new Date(p.firstNightMs).toISOString().slice(0, 10) : null, quotaNeeded };
}

/** --monthly-quota / COVERAGE_MONTHLY_QUOTA: "N" for each lookup, or "broadband=N,mobile=M". */
export function parseMonthlyQuota(text: string): { broadband?: number; mobile?: number } {
  const out: { broadband?: number; mobile?: number } = {};
  const whole = (v: string) => {
    const n = Number(v.trim());
    if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n)) throw new Error(`"${v.trim().slice(0, 20)}" is not a whole number of requests`);
    return n;
  };
  if (/^\s*\d+\s*$/.test(text)) {
    const n = whole(text);
    return perLookup(() => n);
  }
  for (const part of text.split(",")) {
    const m = /^\s*(broadband|mobile)\s*=\s*(.*)$/i.exec(part);
    if (!m) throw new Error(`"${part.trim().slice(0, 30)}" is neither N nor broadband=N / mobile=N`);
    out[m[1]!.toLowerCase() as "broadband" | "mobile"] = whole(m[2]!);
  }
  return out;
}

/** --quota-period: "month" (null) or a whole number of days from 1 to 366. */
export function parseQuotaPeriod(text: string): number | null {
  const t = text.trim().toLowerCase();
  if (t === "month") return null;
  const days = /^\d+$/.test(t) ? Number(t) : NaN;
  if (!(days >= 1 && days <= 366)) throw new Error(`expected "month" or a whole number of days from 1 to 366, got ${JSON.stringify(text.slice(0, 20))}`);
  return days;
}

/** The rule the options give: --quota-period DAYS from --quota-start, else the month from --quota-reset-day. */
export function periodRule(o: { quotaPeriod: number | null; quotaStart: number | null; quotaResetDay: number }): PeriodRule {
  return o.quotaPeriod !== null && o.quotaStart !== null ? { days: o.quotaPeriod, startMs: o.quotaStart } : o.quotaResetDay;
}

/**
 * A rolling period anchored on what the gateway said: its quota 403 names when the lookup's quota
 * is replenished, the end of one of its periods (stored as the lookup's quota block). That time
 * wins over --quota-start; a month rule is kept as it is.
 */
export function anchoredRule(rule: PeriodRule, replenishedAt: string | null): PeriodRule {
  if (typeof rule === "number" || replenishedAt === null) return rule;
  const startMs = Date.parse(replenishedAt);
  return Number.isFinite(startMs) ? { days: rule.days, startMs } : rule;
}

/**
 * "replenished in 523:10:07" of a 403 quota answer, in ms; null when the message says no time. A
 * .NET time span's days before a dot ("21.19:10:07") are read too, never taken for the hours alone.
 */
export function replenishMs(message: string): number | null {
  const m = /replenished in (?:(\d+)\.)?(\d+):(\d{2}):(\d{2})/i.exec(message);
  return m ? (((Number(m[1] ?? 0) * 24 + Number(m[2])) * 60 + Number(m[3])) * 60 + Number(m[4])) * 1000 : null;
}
