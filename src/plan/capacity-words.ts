// What a list longer than its capacity says, in words a council paper can quote: how many of its
// postcodes hold an answer at any time, that the whole list's figures stay estimates, and what
// quota (or list) would answer it all. The one wording every renderer reads: the console, summary.csv
// and summary.json, the workbook's Summary, report.html, `status`.
import type { Lookup } from "../contract/fields.js";
import { SERVICE_PLANS } from "../contract/terms.js";

/** What a lookup's capacity stands on: the quota a period (null: unknown, the largest plan's), and the capacity itself. */
export interface CapacityBasis {
  quota: { perPeriod: number } | null;
  capacity: { postcodes: number; exceeded: boolean; quotaNeeded: number } | null;
}

/** A list longer than its capacity: what it says of that. */
export interface CapacityStatement {
  /** postcodes the quota keeps holding a young answer at once (the smallest lookup's) */
  postcodes: number;
  /** postcodes of the list */
  listSize: number;
  /** requests a period (per lookup) that would keep the whole list answered */
  quotaNeeded: number;
  /** the quota is unknown: the figures are those of the service's largest plan */
  largestPlan: boolean;
  /** the statement, sentence by sentence */
  sentences: string[];
}

const n = (x: number) => x.toLocaleString("en-GB");
const LARGEST = SERVICE_PLANS.reduce((a, b) => (b.requests > a.requests ? b : a));

/** The list's statement when it is longer than what its quota keeps answered; null when it is not (or nothing tells). */
export function capacityStatement(listSize: number, lookups: readonly (readonly [Lookup, CapacityBasis])[]): CapacityStatement | null {
  const exceeded = lookups.filter(([, b]) => b.capacity?.exceeded);
  if (exceeded.length === 0) return null;
  const smallest = exceeded.reduce((a, b) => (b[1].capacity!.postcodes < a[1].capacity!.postcodes ? b : a));
  const c = smallest[1].capacity!;
  const quotaNeeded = Math.max(...exceeded.map(([, b]) => b.capacity!.quotaNeeded));
  const largestPlan = smallest[1].quota === null;
  const which = exceeded.length === lookups.length ? "" : ` for ${exceeded.map(([l]) => l).join(" and ")}`;
  const why = largestPlan
    ? `no quota is known, and even the service's largest plan (${LARGEST.name}, ${n(LARGEST.requests)} requests per lookup every ${LARGEST.periodDays} days) keeps no more answered at once`
    : `the quota${which} (${n(smallest[1].quota!.perPeriod)} requests a quota period) keeps no more answered at once, as answers expire`;
  return {
    postcodes: c.postcodes,
    listSize,
    quotaNeeded,
    largestPlan,
    sentences: [
      `${largestPlan ? "At most about" : "About"} ${n(c.postcodes)} of the list's ${n(listSize)} postcodes hold an answer at any time: ${why}.`,
      `The whole list's figures are estimates with 95% intervals, and stay so for as long as the list and the quota stay this size.`,
      `Answering it all within a month needs --monthly-quota ${quotaNeeded} per lookup${largestPlan ? " (more than any plan offers)" : ""}, or a list of at most ${n(c.postcodes)} postcodes.`,
    ],
  };
}

/** "about 2,806 hold an answer at any time, never all at once at this quota": what a list beyond its capacity says of the rest. */
export const beyondCapacityWords = (s: Pick<CapacityStatement, "postcodes" | "largestPlan">) =>
  `${s.largestPlan ? "at most about" : "about"} ${n(s.postcodes)} hold an answer at any time, never all at once at ${s.largestPlan ? "any plan's quota" : "this quota"}`;
