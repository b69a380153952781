// Which mobile scale the reports read, and the good rating that follows from it: decided from the
// scope's answers (spec/mobile-scales.ts) unless --mobile-scale says, before any figure is counted.
import { RATING_MAX, RATING_MIN } from "../spec/fields.js";
import { decideScale, goodRatingOf, type MobileScaleChoice, type ScaleDecision } from "../spec/mobile-scales.js";
import type { ReportSnapshot } from "../store/snapshot.js";
import { ReportError } from "./scope.js";

export interface ScaleChoice {
  /** --mobile-scale (default auto) */
  mobileScale?: MobileScaleChoice | undefined;
  /** --good-rating: an explicit override; default the scale's own */
  goodRating?: number | undefined;
}

/** Lists the scope's postcodes (preparePostcodes(null)) and decides the scale from their ratings. */
export async function resolveScale(snapshot: ReportSnapshot, options: ScaleChoice): Promise<{ scale: ScaleDecision; goodRating: number }> {
  await snapshot.preparePostcodes(null);
  const scale = decideScale(options.mobileScale ?? "auto", await snapshot.scaleEvidence());
  return { scale, goodRating: checkedGoodRating(goodRatingOf(scale.scale, options.goodRating)) };
}

export function checkedGoodRating(goodRating: number): number {
  if (!Number.isInteger(goodRating) || goodRating <= RATING_MIN || goodRating > RATING_MAX)
    throw new ReportError(`the good rating (--good-rating) must be a whole number from ${RATING_MIN + 1} to ${RATING_MAX} (got ${goodRating})`);
  return goodRating;
}
