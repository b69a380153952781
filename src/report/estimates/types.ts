// The estimates as types (summary.json's `estimates`), apart from the code that computes them
// (estimate-summary.ts).
import type { Lookup } from "../../contract/fields.js";
import type { AnswerPace } from "../../plan/answer-pace.js";
import type { Interval } from "./estimates.js";
import type { CapacityStatement } from "../../plan/capacity-words.js";

export interface EstimatedDomain {
  postcodes: number;
  /** postcodes with an answer of every lookup in scope */
  answeredPostcodes: number;
  /** per lookup, its postcodes with an answer: a lookup's figures stand on its own */
  answeredPerLookup: Partial<Record<Lookup, number>>;
  /** every postcode answered: the shares are exact */
  exact: boolean;
  /** per figure (estimateKey of its column, e.g. belowSuperfast, indoorVoiceTotalNotspot): fractions of addresses */
  shares: Record<string, Interval>;
}

/** What a lookup's estimates stand on, and when the rest of the list will be answered. */
export interface LookupBasis {
  answeredPostcodes: number;
  answeredAddresses: number;
  exact: boolean;
  /** postcodes of the list without an answer of this lookup */
  unanswered: number;
  /** the night (YYYY-MM-DD) the rest is answered at the current quota; null when no quota is known or it never is */
  answeredBy: string | null;
  /** the quota that date assumes: requests a period, from --monthly-quota or as the service allowed; null when unknown */
  quota: { perPeriod: number; source: AnswerPace["source"] } | null;
  /**
   * What that quota keeps (plan/capacity.ts): the postcodes holding a young answer at once, whether
   * the list is longer (then no date is given for the rest), and the quota a period that would keep
   * the whole list; null when no quota is known.
   */
  capacity: { postcodes: number; exceeded: boolean; quotaNeeded: number } | null;
}


/** A group's estimates: its shares read one at a time; summary.json writes it as an EstimatedDomain (toJSON). */
export interface GroupEstimate extends Omit<EstimatedDomain, "shares"> {
  share(key: string): Interval | undefined;
  toJSON(): EstimatedDomain;
}

/** The estimates of a report; `G`, a group's. */
export interface EstimatesSummary<G = GroupEstimate> extends EstimatedDomain {
  /** per lookup: what its figures stand on */
  lookups: Partial<Record<Lookup, LookupBasis>>;
  /** a list longer than its quota keeps answered: what it says of that (capacity-words.ts); null otherwise */
  capacity: CapacityStatement | null;
  /** what every estimate assumes (estimate-caveats.ts), and where the list's own data doubts it */
  assumption: string;
  caveats: string[];
  /** per dimension of --group-by (by its name, as groups.csv's Dimension), per value */
  groups: Record<string, Record<string, G>>;
}
