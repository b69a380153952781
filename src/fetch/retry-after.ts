// Parses an HTTP Retry-After value (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.

/** A server asking for more than this is treated as asking for this: a typo or a clock far off
 *  must not park a nightly batch for days; the fetch loop can still give up on its own. */
export const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;

// Only plain decimal numbers: Number() would also take "0x10", "1e3" or "" and so hide garbage.
const SECONDS = /^-?\d+(?:\.\d+)?$/;
// An HTTP-date starts with a day name in all three RFC forms (IMF-fixdate, RFC 850, asctime);
// requiring it keeps Date.parse, which is very lenient, from reading garbage like "5 min" as a date.
const HTTP_DATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? +\S/i;
const HAS_ZONE = /(?:GMT|UTC|Z|[+-]\d{4})$/i;

/**
 * Milliseconds to wait, or null when the value is absent or not a Retry-After value.
 * A negative delay or a date in the past gives 0; anything above MAX_RETRY_AFTER_MS is capped.
 * `now` is ms since epoch (the caller's clock, so tests and the simulator agree on time).
 */
export function parseRetryAfter(value: string | readonly string[] | null | undefined, now: number): number | null {
  // node gives a string; a repeated header may arrive as a list, where the first is the one sent first.
  const raw = typeof value === "string" ? value : value?.[0];
  if (raw === undefined) return null;
  const text = raw.trim();
  if (text === "") return null;

  let ms: number;
  if (SECONDS.test(text)) {
    ms = Math.round(Number(text) * 1000);
  } else if (HTTP_DATE.test(text)) {
    // asctime dates carry no zone but are GMT by definition; Date.parse would read them as local time.
    const at = Date.parse(HAS_ZONE.test(text) ? text : `${text} GMT`);
    if (Number.isNaN(at)) return null;
    ms = at - now;
  } else {
    return null;
  }
  // Also clamps the infinities a 400-digit value turns into.
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}
