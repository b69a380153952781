// The monthly quota, as pure arithmetic: quota periods, tonight's even share of what is left, and
// the date by which outstanding refreshes are done at that pace. Nothing here reads a clock or a
// database: the batch and `status` pass the ledger's figures in.

import { perLookup } from "../spec/lookups.js";

const DAY_MS = 24 * 3600 * 1000;

export interface QuotaPeriod {
  /** first day of the period, YYYY-MM-DD (UTC): the ledger's key */
  key: string;
  startMs: number;
  /** the next period's start */
  endMs: number;
}

/** The quota period holding `nowMs`: the calendar month (UTC), or the month starting on `resetDay`. */
export function quotaPeriod(nowMs: number, resetDay = 1): QuotaPeriod {
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
  p: { quota: number; used: number; outstanding: number; firstNightMs: number; resetDay: number; spendAll: boolean },
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

/** "replenished in 523:10:07" of a 403 quota answer, in ms; null when the message says no time. */
export function replenishMs(message: string): number | null {
  const m = /replenished in (\d+):(\d{2}):(\d{2})/i.exec(message);
  return m ? ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000 : null;
}
