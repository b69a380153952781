// Which mobile scale the reports read, and the good rating that follows from it: decided from the
// scope's answers (contract/mobile-scales.ts) unless --mobile-scale says, before any figure is counted.
// Answers from releases on both scales are each judged on their own release's scale.
import { RATING_MAX, RATING_MIN } from "../../contract/fields.js";
import { answerScalesOf, decideScale, goodRatingOf, judgingOf, type AnswerScales, type MobileJudging, type MobileScaleChoice, type ScaleDecision } from "../../contract/mobile-scales.js";
import type { ReportSnapshot } from "../../store/snapshot.js";
import { ReportError } from "../set/scope.js";

export interface ScaleChoice {
  /** --mobile-scale (default auto) */
  mobileScale?: MobileScaleChoice | undefined;
  /** --good-rating: an explicit override; default the scale's own */
  goodRating?: number | undefined;
}

export interface ResolvedScale {
  scale: ScaleDecision;
  /** the good rating on the decision's scale (the newest release's when each answer keeps its own) */
  goodRating: number;
  /** the scales the figures judge answers on, each with its good rating */
  judging: MobileJudging;
  /** what the snapshot needs to judge each answer (preparePostcodes) */
  answers: AnswerScales;
}

/** Lists the scope's postcodes (preparePostcodes(null)) and decides the scale from their ratings. */
export async function resolveScale(snapshot: ReportSnapshot, options: ScaleChoice): Promise<ResolvedScale> {
  await snapshot.preparePostcodes(null);
  const scale = decideScale(options.mobileScale ?? "auto", await snapshot.scaleEvidence());
  return { scale, goodRating: checkedGoodRating(goodRatingOf(scale.scale, options.goodRating)), judging: judgingOf(scale, options.goodRating), answers: answerScalesOf(scale, options.goodRating) };
}

export function checkedGoodRating(goodRating: number): number {
  if (!Number.isInteger(goodRating) || goodRating <= RATING_MIN || goodRating > RATING_MAX)
    throw new ReportError(`the good rating (--good-rating) must be a whole number from ${RATING_MIN + 1} to ${RATING_MAX} (got ${goodRating})`);
  return goodRating;
}
