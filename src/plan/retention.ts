// The retention of API answers, as pure arithmetic: Ofcom's terms (clause 4.3.6) let a tool keep
// an answer at most a month, so an answer the API last returned longer ago than the retention is
// deleted (store.answers.expire) and never shown. `null` retention: the user keeps everything.
import type { Candidate } from "../store/types.js";

import { DEFAULT_RETENTION_DAYS } from "../contract/terms.js";
import { capacity, NEXT_NIGHT_DRIFT_MS } from "./capacity.js";

const DAY_MS = 24 * 3600 * 1000;
export { DEFAULT_RETENTION_DAYS };

/** --retention: "none", or a whole number of days (1 or more), to milliseconds; null for none. */
export function parseRetention(raw: string | number | undefined, name: string): number | null {
  const text = String(raw ?? DEFAULT_RETENTION_DAYS).trim();
  if (/^none$/i.test(text)) return null;
  const days = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(days >= 1)) throw new Error(`${name}: expected a whole number of days (1 or more) or "none", got ${JSON.stringify(text.slice(0, 20))}`);
  return days * DAY_MS;
}

/** Answers last returned before this ISO time are expired; null when nothing expires. */
export function expiryCutoff(nowMs: number, retentionMs: number | null): string | null {
  return retentionMs === null ? null : new Date(nowMs - retentionMs).toISOString();
}

export { NEXT_NIGHT_DRIFT_MS };

/** Answers last returned before this ISO time expire before the next night (a day on, and its drift): tonight they are due. */
export function expiringBefore(nowMs: number, retentionMs: number | null): string | null {
  return retentionMs === null ? null : new Date(nowMs + DAY_MS + NEXT_NIGHT_DRIFT_MS - retentionMs).toISOString();
}

/** The one line refusing a --max-age that would keep answers past the retention; null when it fits. */
export function maxAgeBeyondRetention(maxAgeMs: number, retentionMs: number | null): string | null {
  if (retentionMs === null || maxAgeMs <= retentionMs) return null;
  return `--max-age ${Math.round(maxAgeMs / DAY_MS)}d is longer than --retention ${retentionMs / DAY_MS}: an answer would be deleted before it is refreshed (give --max-age ${retentionMs / DAY_MS}d or less, or a longer --retention)`;
}

/** The line the plan and `status` print when the quota cannot keep the list inside the retention; null when it can. */
export function describeShortfall(lookup: string, s: ExpiryShortfall, listSize: number, retentionMs: number | null): string | null {
  if (s.postcodes === 0 || retentionMs === null) return null;
  return `${lookup}: the quota cannot refresh the whole list within --retention ${retentionMs / DAY_MS} days: ${s.postcodes} of its ${listSize} postcodes will expire unanswered, from ${s.from ?? "the first expiry"} (reports show them expired, awaiting refresh, with open-data figures where imported)`;
}

/** Answered candidates that would expire before the next night become due ("expiring"), whatever else they needed. */
export function markExpiring(candidates: readonly Candidate[], dueBefore: string | null): Candidate[] {
  if (dueBefore === null) return [...candidates];
  return candidates.map((c) =>
    (c.state === "fresh" || c.state === "age" || c.state === "release") && c.fetchedAt !== null && c.fetchedAt < dueBefore ? { ...c, state: "expiring" } : c,
  );
}

/** The oldest time an answer of the list was last returned (ISO); null when none is stored. */
export function oldestFetched(candidates: readonly Candidate[]): string | null {
  let oldest: string | null = null;
  for (const c of candidates) if (c.fetchedAt !== null && (oldest === null || c.fetchedAt < oldest)) oldest = c.fetchedAt;
  return oldest;
}

export interface ExpiryShortfall {
  /** postcodes per lookup the quota cannot refresh within the retention: they expire unanswered */
  postcodes: number;
  /** the first night (YYYY-MM-DD) one of them expires: the oldest answer's expiry */
  from: string | null;
}

/**
 * Whether the quota keeps every answer from expiring: what it keeps answered when each answer is
 * asked again only as the retention comes for it (capacity.ts, with --max-age set aside: an older
 * answer is refreshed sooner when the quota allows, but only the retention deletes it); a list
 * longer than that loses the rest to expiry, from the oldest answer's expiry on.
 */
export function expiryShortfall(p: { listSize: number; quota: number; periodDays: number; maxAgeMs: number; retentionMs: number | null; oldestAnswer: string | null }): ExpiryShortfall {
  if (p.retentionMs === null) return { postcodes: 0, from: null };
  const kept = capacity({ quota: p.quota, periodDays: p.periodDays, maxAgeMs: p.retentionMs, retentionMs: p.retentionMs, listSize: p.listSize }).postcodes;
  const postcodes = Math.max(0, p.listSize - kept);
  const from = postcodes > 0 && p.oldestAnswer ? new Date(Date.parse(p.oldestAnswer) + p.retentionMs).toISOString().slice(0, 10) : null;
  return { postcodes, from };
}
