// A figure without an answer behind it is unknown, never 0. Whether a lookup's figures have any
// answer behind them is decided here once; summary.csv and the workbook's Summary leave them empty,
// summary.json writes null, report.html and the batch's closing lines say why in words.
import type { OutcomeCounts } from "../../contract/counts.js";

/** What the rule reads of a lookup's summary: its postcodes' outcomes and the addresses counted. */
export interface LookupAnswers {
  postcodes: OutcomeCounts;
  addresses: number;
}

/**
 * Whether any answer stands behind a lookup's figures: a postcode found, or addresses counted (an
 * earlier answer kept while its refresh is pending). A lookup whose every postcode is pending,
 * expired, failed or not found has none. One found without addresses has: its 0s are true.
 */
export const hasAnswers = (l: LookupAnswers): boolean => l.postcodes.ok > 0 || l.addresses > 0;

/** Why a lookup without answers has no figures, in words for a sentence or a cell: "no answer yet". */
export function noAnswerWords(p: OutcomeCounts): string {
  if (p.pending > 0 || (p.expired ?? 0) > 0) return "no answer yet";
  if (p.failed > 0) return p.notFound > 0 ? "no answer: not found by the API, or the lookup failed" : "no answer: every lookup failed";
  return p.notFound > 0 ? "none found: the API knows none of these postcodes" : "no postcodes";
}

const n = (x: number) => x.toLocaleString("en-GB");

/** A lookup's postcodes by outcome: "0 postcodes found, 0 not found, 0 failed, 4 pending". */
export const outcomeWords = (p: OutcomeCounts): string =>
  `${n(p.ok)} postcodes found, ${n(p.notFound)} not found, ${n(p.failed)} failed` + (p.pending > 0 ? `, ${n(p.pending)} pending` : "") +
  (p.expired ? `, ${n(p.expired)} expired, awaiting refresh` : "");

/** A lookup without answers in one sentence: "No broadband figures: no answer yet (0 postcodes found, …, 4 pending)." */
export const noFiguresSentence = (lookup: string, p: OutcomeCounts): string => `No ${lookup} figures: ${noAnswerWords(p)} (${outcomeWords(p)}).`;
