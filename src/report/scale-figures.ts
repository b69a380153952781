// The mobile scale in the summary: which scale the figures read and why, a change of scale between
// releases, and per provider the addresses at each of the scale's ratings (Likely, Limited, None on
// the current scale), in Ofcom's words. summary.ts calls these; the figures are the snapshot's.
import { mobileField, type Channel, type Location } from "../spec/fields.js";
import { ratingLabel, ratingWords, SCALES, scaleChangeWords, valuesBestFirst, type MobileScale, type ScaleDecision } from "../spec/mobile-scales.js";
import type { ReportSnapshot } from "../store/snapshot.js";
import { shareFraction } from "./figure-labels.js";
import type { SummaryRow } from "./summary.js";

/** The places whose ratings the summary breaks down: indoors, where the notspot figures look (with 4G, as they read). */
export const RATING_PLACES = [
  { key: "indoorVoice", channel: "Voice", location: "Indoor", words: "indoor voice" },
  { key: "indoorData", channel: "Data", location: "Indoor", words: "indoor data" },
] as const satisfies readonly { key: string; channel: Channel; location: Location; words: string }[];
type PlaceKey = (typeof RATING_PLACES)[number]["key"];

/** Addresses at one rating of the scale: its label, count and share of the mobile addresses. */
export interface RatingShare {
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
  /** per provider, per place, the addresses at each rating of the scale, best first */
  ratings: Record<string, Record<PlaceKey, RatingShare[]>>;
}

export async function scaleSummary(snapshot: ReportSnapshot, decision: ScaleDecision, goodRating: number, addresses: number): Promise<ScaleSummary> {
  const providers = snapshot.scope.providers;
  const values = valuesBestFirst(decision.scale);
  const fields = providers.flatMap((p) => RATING_PLACES.map((pl) => mobileField(p, pl.channel, pl.location)));
  const counts = await snapshot.ratingCounts(fields, values.map((v) => v.rating));
  const ratings: ScaleSummary["ratings"] = {};
  providers.forEach((p, i) => {
    ratings[p] = Object.fromEntries(
      RATING_PLACES.map((pl, j) => [
        pl.key,
        values.map((v, k) => ({ rating: v.rating, label: v.label, addresses: counts[i * RATING_PLACES.length + j]![k]!, share: shareFraction(counts[i * RATING_PLACES.length + j]![k]!, addresses) })),
      ]),
    ) as Record<PlaceKey, RatingShare[]>;
  });
  return { scale: decision.scale, goodRating, scaleReason: decision.reason, scaleChange: scaleChangeWords(decision), ratings };
}

/** summary.csv's rows of the scale: what it is, why, and a change of scale. */
export function scaleAboutRows(m: ScaleSummary): SummaryRow[] {
  const about = (figure: string, count: string): SummaryRow => ({ section: "Mobile", figure, count, of: null, ofWhat: "" });
  return [
    about("Mobile rating scale", `${m.scale}: ${SCALES[m.scale].title}`),
    about("Why this scale", m.scaleReason),
    about("Good mobile rating (at least)", goodRatingText(m.scale, m.goodRating)),
    ...(m.scaleChange ? [about("Change of scale", m.scaleChange)] : []),
  ];
}

/** summary.csv's rows of addresses per rating of the scale, per provider and place. */
export function ratingShareRows(m: ScaleSummary, addresses: number): SummaryRow[] {
  const rows: SummaryRow[] = [];
  const of = { of: addresses, ofWhat: "addresses the mobile lookup returned" };
  for (const [provider, places] of Object.entries(m.ratings))
    for (const pl of RATING_PLACES)
      for (const r of places[pl.key])
        rows.push({ section: "Mobile", figure: `${provider}: addresses with ${pl.words} ${ratingWords(m.scale, r.rating)}`, count: r.addresses, ...of });
  return rows;
}

/** "4 (Likely)": the good rating with its label on the scale. */
export function goodRatingText(scale: MobileScale, goodRating: number): string {
  return `${goodRating} (${ratingLabel(scale, goodRating)})`;
}
