// How an estimate is written: its interval in words and its shares rounded as summary.json gives
// them; the lead, report.html and the estimates' rows say an estimate the same way.

const pct = (x: number | null) => (x === null ? "?" : `${(100 * x).toFixed(1)}%`);

/** An estimate in words: "14.5% (11.2% to 18.1%)". */
export function intervalText(i: { estimate: number | null; low: number | null; high: number | null }): string {
  if (i.estimate === null) return "";
  return i.low === null || i.high === null ? `${pct(i.estimate)} (too few answered for an interval)` : i.low === i.high ? pct(i.estimate) : `${pct(i.estimate)} (${pct(i.low)} to ${pct(i.high)})`;
}

/** A fraction to 4 places (0.1454), as summary.json's shares: enough for a percentage to one decimal. */
export const round4 = <T extends number | null>(x: T): T => (x === null ? x : ((Math.round(x * 10_000) / 10_000) as T));
