// The mobile scale in the summary: which scale the figures read and why, a change of scale between
// releases, and per provider the addresses at each of the scale's ratings (Likely (4), Limited (3),
// None (0) on the current scale), in Ofcom's words. When the answers come from releases on both
// scales, each answer is judged on its own scale: the summary says so, with the addresses on each,
// and gives the ratings per scale in each scale's words. summary/summary.ts calls these; the
// figures are the snapshot's.
import { ALL_RATINGS, goodCoverageWords, judgingOf, RATING_PLACES, ratingPlaceFields, ratingName, ratingWords, SCALES, scaleChangeWords, scaleReadingWords, valuesBestFirst, type MobileJudging, type MobileScale, type ScaleDecision } from "../../contract/mobile-scales.js";
import { SCALE_ADDRESSES_COLUMN } from "../../figures/postcode-columns.js";
import type { ReportSnapshot } from "../../store/snapshot.js";
import { shareFraction } from "../words/figure-labels.js";
import type { SummaryRow } from "../words/summary-row.js";

type PlaceKey = (typeof RATING_PLACES)[number]["key"];

/** Addresses at one rating of the scale: its label, count and share of the mobile addresses. */
export interface RatingShare {
  /** the scale the rating is on: only when the figures combine both scales */
  scale?: MobileScale | undefined;
  rating: number;
  label: string;
  addresses: number;
  share: number | null;
}

export interface ScaleSummary {
  /** the scale the figures read: "current" (0/3/4) or "legacy" (0-4) */
  scale: MobileScale;
  /** ratings at or above this are good coverage (the scale's own, or --good-rating) */
  goodRating: number;
  /** why this scale, e.g. "no rating 1 or 2 among 48,210 ratings of MobileAvailability-202406041254: Ofcom's current 0/3/4 scale" */
  scaleReason: string;
  /** said once when the releases behind the figures are on different scales; null otherwise */
  scaleChange: string | null;
  /** per provider, per place, the addresses at each rating of the scale, best first (combining both scales: the legacy scale's, then the current one's) */
  ratings: Record<string, Record<PlaceKey, RatingShare[]>>;
  /** said only when the figures combine both scales or --mobile-scale forces one: how they read the answers */
  scaleReading?: string | undefined;
  /** with scaleReading: the mobile addresses whose answer's release is on each scale */
  scaleAddresses?: Record<MobileScale, number> | undefined;
  /** combining both scales: the good rating on each */
  goodRatings?: Record<MobileScale, number> | undefined;
  /**
   * per provider, the mobile addresses whose answer holds no rating from it (stored before the
   * provider was asked for, and kept through a failed refresh): neither good nor a notspot. Only
   * when some provider has any.
   */
  unrated?: Record<string, number> | undefined;
}

/** The scales the summary's mobile figures judge answers on, with their good ratings. */
export function judgingOfSummary(m: Pick<ScaleSummary, "scale" | "goodRating" | "goodRatings">): MobileJudging {
  return m.goodRatings ? MOBILE_SCALES_OLDEST_FIRST.map((scale) => ({ scale, goodRating: m.goodRatings![scale] })) : [{ scale: m.scale, goodRating: m.goodRating }];
}

/** The scales a report's mobile figures judge answers on: its summary's, or the current scale's good rating when it has no mobile figures. */
export function judgingOfReport(s: { mobile?: Pick<ScaleSummary, "scale" | "goodRating" | "goodRatings"> | null | undefined; goodRating: number }): MobileJudging {
  return s.mobile ? judgingOfSummary(s.mobile) : [{ scale: "current", goodRating: s.goodRating }];
}

const MOBILE_SCALES_OLDEST_FIRST: readonly MobileScale[] = ["legacy", "current"];

/**
 * `judging`: the scales the figures judge answers on (judgingOf); `scaleTotals` the addresses on
 * each scale (the postcode table's SCALE_ADDRESSES_COLUMN sums), said when the reading needs it.
 */
export async function scaleSummary(
  snapshot: ReportSnapshot,
  decision: ScaleDecision,
  goodRating: number,
  addresses: number,
  judging: MobileJudging = decision.reading === "each" ? judgingOf(decision, undefined) : [{ scale: decision.scale, goodRating }],
  scaleTotals?: Record<string, number>,
): Promise<ScaleSummary> {
  const each = judging.length > 1;
  const onScale = Object.fromEntries(MOBILE_SCALES_OLDEST_FIRST.map((s) => [s, scaleTotals?.[SCALE_ADDRESSES_COLUMN[s]] ?? 0])) as Record<MobileScale, number>;
  // with both scales, each scale's shares are of the addresses on it, as each scale's list is read on its own
  const { ratings, rated } = await ratingShares(snapshot, each ? judging.map((j) => j.scale) : [decision.scale], each, (scale) => (each ? onScale[scale] : addresses));
  const reading = scaleReadingWords(decision);
  const about = reading === null ? {} : { scaleReading: reading, scaleAddresses: onScale };
  const goods = each ? { goodRatings: Object.fromEntries(judging.map((j) => [j.scale, j.goodRating])) as Record<MobileScale, number> } : {};
  const unrated = Object.fromEntries(Object.entries(rated).map(([p, n]) => [p, addresses - n]));
  const anyUnrated = Object.values(unrated).some((n) => n > 0) ? { unrated } : {};
  return { scale: decision.scale, goodRating, scaleReason: decision.reason, scaleChange: scaleChangeWords(decision), ratings, ...about, ...goods, ...anyUnrated };
}

/**
 * Per provider and place, the addresses at each rating of each scale (`tagged`: each share names its
 * scale, counted over that scale's answers only), each share of `of(scale)` addresses; and per
 * provider the addresses its indoor voice rates at all (any rating of either scale: an answer holds
 * all of a provider's ratings or none).
 */
async function ratingShares(
  snapshot: ReportSnapshot,
  scales: readonly MobileScale[],
  tagged: boolean,
  of: (scale: MobileScale) => number,
): Promise<{ ratings: ScaleSummary["ratings"]; rated: Record<string, number> }> {
  const providers = snapshot.scope.providers;
  const fields = ratingPlaceFields(providers);
  const ratings: ScaleSummary["ratings"] = Object.fromEntries(providers.map((p) => [p, { indoorVoice: [], indoorData: [] } satisfies Record<PlaceKey, RatingShare[]>]));
  const rated: Record<string, number> = Object.fromEntries(providers.map((p) => [p, 0]));
  const voice = RATING_PLACES.findIndex((pl) => pl.key === "indoorVoice");
  for (const scale of scales) {
    const counts = await snapshot.ratingCounts(fields, ALL_RATINGS, tagged ? scale : undefined);
    const at = (i: number, j: number, rating: number) => counts[i * RATING_PLACES.length + j]![ALL_RATINGS.indexOf(rating)]!;
    providers.forEach((p, i) => {
      rated[p]! += ALL_RATINGS.reduce((sum, r) => sum + at(i, voice, r), 0);
      RATING_PLACES.forEach((pl, j) =>
        ratings[p]![pl.key].push(
          ...valuesBestFirst(scale).map((v) => ({ ...(tagged ? { scale } : {}), rating: v.rating, label: v.label, addresses: at(i, j, v.rating), share: shareFraction(at(i, j, v.rating), of(scale)) })),
        ),
      );
    });
  }
  return { ratings, rated };
}

/** "each answer judged on its own release's scale: 2,169 addresses on Ofcom's earlier 0-4 scale, 275 on Ofcom's current 0/3/4 scale"; null when one scale is read as it is. */
export function scaleMixWords(m: Pick<ScaleSummary, "scaleReading" | "scaleAddresses">): string | null {
  if (!m.scaleReading || !m.scaleAddresses) return null;
  const n = (x: number) => x.toLocaleString("en-GB");
  return `${m.scaleReading}: ${n(m.scaleAddresses.legacy)} addresses on ${SCALES.legacy.title}, ${n(m.scaleAddresses.current)} on ${SCALES.current.title}`;
}

/** summary.csv's rows of the scale: what it is, why, and a change of scale. */
export function scaleAboutRows(m: ScaleSummary): SummaryRow[] {
  const about = (figure: string, count: string): SummaryRow => ({ section: "Mobile", figure, count, of: null, ofWhat: "" });
  return [
    about("Mobile rating scale", m.goodRatings ? `both: ${SCALES.legacy.title} and ${SCALES.current.title}` : `${m.scale}: ${SCALES[m.scale].title}`),
    about("Why this scale", m.scaleReason),
    about("Good mobile coverage", goodCoverageWords(judgingOfSummary(m))),
    ...(m.scaleChange ? [about("Change of scale", m.scaleChange)] : []),
    ...(m.scaleReading ? [about("How the mobile figures read the answers", m.scaleReading)] : []),
    ...(m.scaleAddresses ? MOBILE_SCALES_OLDEST_FIRST.map((s): SummaryRow => ({ section: "Mobile", figure: `Addresses whose answer is on ${SCALES[s].title}`, count: m.scaleAddresses![s], of: null, ofWhat: "" })) : []),
  ];
}

/** summary.csv's rows of addresses per rating of the scale, per provider and place. */
export function ratingShareRows(m: ScaleSummary, addresses: number): SummaryRow[] {
  const rows: SummaryRow[] = [];
  // a share named for its scale is of the addresses whose answer is on that scale
  const of = (scale: MobileScale | undefined) =>
    scale && m.scaleAddresses ? { of: m.scaleAddresses[scale], ofWhat: `addresses whose answer is on ${SCALES[scale].title}` } : { of: addresses, ofWhat: "addresses the mobile lookup returned" };
  for (const [provider, places] of Object.entries(m.ratings)) {
    const unrated = m.unrated?.[provider] ?? 0;
    if (unrated > 0) rows.push({ section: "Mobile", figure: `${provider}: addresses whose answer has no rating from ${provider} (neither good nor a notspot)`, count: unrated, of: addresses, ofWhat: "addresses the mobile lookup returned" });
    for (const pl of RATING_PLACES)
      for (const r of places[pl.key])
        rows.push({ section: "Mobile", figure: `${provider}: addresses with ${pl.words} ${ratingWords(r.scale ?? m.scale, r.rating)}${r.scale ? ` (${SCALES[r.scale].title})` : ""}`, count: r.addresses, ...of(r.scale) });
  }
  return rows;
}

/** "Likely (4)": the good rating with its label on the scale. */
export function goodRatingText(scale: MobileScale, goodRating: number): string {
  return ratingName(scale, goodRating);
}
