// What `npm run status` says of a lookup whose quota period has nothing left: the next night can
// send no request, so it names when the next period starts and what waits for it, and promises no
// date of the plan's. A pure decision from the period's remaining requests and its end.
import type { Lookup } from "../contract/fields.js";

/** The lookup's next night can send nothing: when it can again, and what waits until then. */
export interface QuotaExhausted {
  /** the next period's first day (YYYY-MM-DD): the first night that can send a request */
  nextPeriodStarts: string;
  /** postcodes never fetched, failed or missing a provider */
  newData: number;
  /** answers from an older release or past --max-age */
  refreshes: number;
}

/** The period the next night falls in, and what the input needs of it. */
export interface PeriodLeft {
  /** requests the period has left */
  remaining: number;
  /** the period's end (exclusive, UTC ms): the next period starts then */
  periodEndMs: number;
  /** the next night (UTC ms) */
  nightMs: number;
  /** until when the service's quota answer blocks the lookup, when it does (UTC ms) */
  blockedUntilMs: number | null;
  newData: number;
  outstanding: number;
}

/** null while the next night can send a request; else when the next period starts and what waits for it. */
export function quotaExhausted(p: PeriodLeft): QuotaExhausted | null {
  // the service's own quota answer outlasting the night blocks it whatever --monthly-quota leaves
  const blocked = p.blockedUntilMs !== null && p.blockedUntilMs > p.nightMs;
  if (p.remaining > 0 && !blocked) return null;
  const startsMs = Math.max(p.remaining > 0 ? 0 : p.periodEndMs, blocked ? p.blockedUntilMs! : 0);
  return { nextPeriodStarts: new Date(startsMs).toISOString().slice(0, 10), newData: p.newData, refreshes: p.outstanding };
}

/** The status line that replaces the next night's plan and its finishing date. */
export function exhaustedWords(lookup: Lookup, e: QuotaExhausted): string {
  const waiting =
    e.newData + e.refreshes === 0
      ? "nothing waits for it"
      : `${e.newData} new postcode${e.newData === 1 ? "" : "s"} and ${e.refreshes} refresh${e.refreshes === 1 ? "" : "es"} wait for it`;
  return `${lookup}: nothing is left of this period's quota: no request can be sent until the next period starts on ${e.nextPeriodStarts}; ${waiting}`;
}
