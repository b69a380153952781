// Ofcom's two mobile rating scales, declared once: the documented 0-4 scale (legacy) and the 0/3/4
// scale the production service returns today (None, Limited, Likely). Every label, legend, chart bin
// and "good" threshold of the reports is read from here, in Ofcom's own words.
import { mobileField, RATING_MAX, RATING_MIN, type Channel, type Location } from "./fields.js";

export const MOBILE_SCALES = ["current", "legacy"] as const;
export type MobileScale = (typeof MOBILE_SCALES)[number];
/** --mobile-scale: auto decides from the answers (scaleOfRatings). */
export type MobileScaleChoice = MobileScale | "auto";
export const MOBILE_SCALE_CHOICES: readonly MobileScaleChoice[] = ["auto", ...MOBILE_SCALES];

export interface RatingValue {
  rating: number;
  /** Ofcom's label, unchanged */
  label: string;
  /** Ofcom's meaning for someone at the address */
  meaning: string;
}

export interface MobileScaleSpec {
  name: MobileScale;
  /** e.g. "0/3/4": how the reports name the scale */
  title: string;
  values: readonly RatingValue[];
  /** ratings at or above this are good coverage */
  goodRating: number;
}

export const SCALES: Readonly<Record<MobileScale, MobileScaleSpec>> = {
  current: {
    name: "current",
    title: "Ofcom's current 0/3/4 scale",
    values: [
      { rating: 0, label: "None", meaning: "you should not expect coverage" },
      { rating: 3, label: "Limited", meaning: "coverage may be limited" },
      { rating: 4, label: "Likely", meaning: "you are likely to have coverage" },
    ],
    goodRating: 4,
  },
  legacy: {
    name: "legacy",
    title: "Ofcom's earlier 0-4 scale",
    values: [
      { rating: 0, label: "Clear", meaning: "no signal" },
      { rating: 1, label: "Red", meaning: "reliable signal unlikely" },
      { rating: 2, label: "Amber", meaning: "connection problems likely" },
      { rating: 3, label: "Green", meaning: "good enough for basic web use" },
      { rating: 4, label: "Enhanced", meaning: "good indoors, fast enough for multimedia" },
    ],
    goodRating: 3,
  },
};

/**
 * The places whose ratings the summary breaks down: indoors, where the notspot figures look (with
 * 4G, as they read). Each mobile answer's addresses at each rating of these places are counted when
 * it is written, so that the summary sums answers, not every address.
 */
export const RATING_PLACES = [
  { key: "indoorVoice", channel: "Voice", location: "Indoor", words: "indoor voice" },
  { key: "indoorData", channel: "Data", location: "Indoor", words: "indoor data" },
] as const satisfies readonly { key: string; channel: Channel; location: Location; words: string }[];

/** The rating places' fields, per provider in order then per place: ProvAVoiceIndoor, ProvADataIndoor, ProvBVoiceIndoor, ... */
export function ratingPlaceFields(providers: readonly string[]): string[] {
  return providers.flatMap((p) => RATING_PLACES.map((pl) => mobileField(p, pl.channel, pl.location)));
}

/** Ratings that only the legacy scale uses: one of them in a release makes it legacy. */
export const LEGACY_ONLY_RATINGS: readonly number[] = [1, 2];

/** The rating's label on the scale ("Likely"); a rating the scale does not use is "rating N". */
export function ratingLabel(scale: MobileScale, rating: number): string {
  return SCALES[scale].values.find((v) => v.rating === rating)?.label ?? `rating ${rating}`;
}

/** "Likely (4)": Ofcom's label with the rating, as the reports name a rating. */
export function ratingName(scale: MobileScale, rating: number): string {
  const v = SCALES[scale].values.find((x) => x.rating === rating);
  return v ? `${v.label} (${v.rating})` : `rating ${rating}`;
}

/** "Likely (4): you are likely to have coverage": a rating with its label and meaning. */
export function ratingWords(scale: MobileScale, rating: number): string {
  const v = SCALES[scale].values.find((x) => x.rating === rating);
  return v ? `${ratingName(scale, rating)}: ${v.meaning}` : `${rating} (not used on ${SCALES[scale].title})`;
}

/** One scale the figures read, with the rating at or above which an answer on it is good coverage. */
export interface ScaleGood {
  scale: MobileScale;
  goodRating: number;
}
/** How the figures judge answers: one entry when every answer is read on one scale, one per scale when each keeps its own. */
export type MobileJudging = readonly ScaleGood[];

/** "Green (3) or Enhanced (4)": the scale's ratings that count as good coverage. */
export function goodRatingsWords({ scale, goodRating }: ScaleGood): string {
  const names = SCALES[scale].values.filter((v) => v.rating >= goodRating).map((v) => ratingName(scale, v.rating));
  if (names.length === 0) return `rating ${goodRating} or more`;
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}

/** "Likely (4)"; with both scales, each scale's words after its name. */
export function goodJudgingWords(judging: MobileJudging): string {
  if (judging.length === 1) return goodRatingsWords(judging[0]!);
  return judging.map((j) => `${goodRatingsWords(j)} on ${SCALES[j.scale].title}`).join("; ");
}

/** "good coverage: Likely (4)": the threshold as a sentence. */
export function goodCoverageWords(judging: MobileJudging): string {
  return `good coverage: ${goodJudgingWords(judging)}`;
}

/** The scale's values with its label, highest (best) first: legends and chart bins. */
export function valuesBestFirst(scale: MobileScale): RatingValue[] {
  return [...SCALES[scale].values].reverse();
}

/** Every rating the API may send (validation reads the full 0-4 range: both scales fit in it). */
export const ALL_RATINGS: readonly number[] = Array.from({ length: RATING_MAX - RATING_MIN + 1 }, (_, i) => RATING_MIN + i);

/** Ratings counted in one mobile release: the evidence for its scale. */
export interface ScaleEvidence {
  release: string | null;
  /** every rating the release's answers hold */
  ratings: number;
  /** of them, ratings of 1 or 2 (legacy only) */
  legacyRatings: number;
}

/** A release whose answers hold any rating 1 or 2 is on the legacy scale, otherwise on the current one. */
export function scaleOfRatings(e: Pick<ScaleEvidence, "legacyRatings">): MobileScale {
  return e.legacyRatings > 0 ? "legacy" : "current";
}

/**
 * Each release's evidence over all of its stored answers where the store recorded it, added to the
 * scope's own: a release is on the scale its ratings show, not only those of the postcodes a report
 * covers. Evidence only adds (each count the larger of the two): answers stored since the record
 * count, and a release once seen with a 1 or 2 stays legacy when those answers have moved or gone.
 */
export function wholeReleaseEvidence(scope: readonly ScaleEvidence[], recorded: readonly ScaleEvidence[]): ScaleEvidence[] {
  const byRelease = new Map(recorded.filter((r) => r.release !== null).map((r) => [r.release, r]));
  return scope.map((e) => {
    const whole = byRelease.get(e.release);
    return whole ? { ...e, ratings: Math.max(whole.ratings, e.ratings), legacyRatings: Math.max(whole.legacyRatings, e.legacyRatings) } : e;
  });
}

/** The scale the reports use and why, in one sentence. */
export interface ScaleDecision {
  scale: MobileScale;
  /** "no rating 1 or 2 among 48,210 ratings of MobileAvailability-202406041254: Ofcom's current 0/3/4 scale" */
  reason: string;
  /** per release, the scale its ratings show (the evidence) */
  releases: { release: string | null; scale: MobileScale; ratings: number; legacyRatings: number }[];
  /** a change of scale seen between an answer's versions (changes.csv), when the current answers alone show none */
  seenChange?: ScaleChange | undefined;
  /**
   * one: every answer is on `scale`; each: the answers' releases are on both scales and each answer
   * is judged on its own release's scale; forced: --mobile-scale reads every answer on `scale`.
   */
  reading: ScaleReading;
}

export type ScaleReading = "one" | "each" | "forced";

/** Two releases on different scales, older first. */
export interface ScaleChange {
  from: { release: string | null; scale: MobileScale };
  to: { release: string | null; scale: MobileScale };
}

const n = (x: number) => x.toLocaleString("en-GB");
const releaseName = (r: string | null) => r ?? "releases not named by the API";

function evidenceWords(e: ScaleEvidence): string {
  const scale = scaleOfRatings(e);
  return e.legacyRatings > 0
    ? `${n(e.legacyRatings)} ratings of 1 or 2 among ${n(e.ratings)} ratings of ${releaseName(e.release)}: ${SCALES[scale].title}`
    : `no rating 1 or 2 among ${n(e.ratings)} ratings of ${releaseName(e.release)}: ${SCALES[scale].title}`;
}

/**
 * The scale of the reports: the user's --mobile-scale, else the newest rated release's own scale
 * (evidence in order of first return, oldest first; a release whose answers hold no rating shows
 * no scale). No ratings at all: the current scale, as the service runs today.
 */
export function decideScale(choice: MobileScaleChoice, evidence: readonly ScaleEvidence[]): ScaleDecision {
  const releases = evidence.map((e) => ({ ...e, scale: scaleOfRatings(e) }));
  if (choice !== "auto") return { scale: choice, reason: `--mobile-scale ${choice}: ${SCALES[choice].title}, as asked`, releases, reading: "forced" };
  const rated = releases.filter((r) => r.ratings > 0);
  const newest = rated[rated.length - 1];
  if (!newest) return { scale: "current", reason: `no mobile ratings: ${SCALES.current.title}, as the service runs today`, releases, reading: "one" };
  if (rated.some((r) => r.scale !== rated[0]!.scale)) return { scale: newest.scale, reason: eachScaleWords(rated), releases, reading: "each" };
  return { scale: newest.scale, reason: evidenceWords(newest), releases, reading: "one" };
}

/** Why each answer keeps its own scale: the releases on each. */
function eachScaleWords(rated: readonly { release: string | null; scale: MobileScale }[]): string {
  const on = (scale: MobileScale) => `${rated.filter((r) => r.scale === scale).map((r) => releaseName(r.release)).join(", ")} on ${SCALES[scale].title}`;
  return `the answers come from releases on both scales (${on("legacy")}; ${on("current")}): each answer is judged on its own release's scale`;
}

/**
 * How the figures read the answers, when that needs saying: "each answer judged on its own
 * release's scale" when they combine both, the forced scale under --mobile-scale; null when every
 * answer is on the one scale the figures read.
 */
export function scaleReadingWords(decision: Pick<ScaleDecision, "scale" | "reading">): string | null {
  if (decision.reading === "each") return "each answer judged on its own release's scale";
  if (decision.reading === "forced") return `every answer read on ${SCALES[decision.scale].title}, as --mobile-scale ${decision.scale} forces`;
  return null;
}

/** The scales the figures judge answers on, oldest scale first, each with its good rating (--good-rating when given). */
export function judgingOf(decision: Pick<ScaleDecision, "scale" | "reading">, given: number | undefined): MobileJudging {
  const scales: MobileScale[] = decision.reading === "each" ? ["legacy", "current"] : [decision.scale];
  return scales.map((scale) => ({ scale, goodRating: goodRatingOf(scale, given) }));
}

/**
 * What the store needs to judge each answer: `all` reads every answer on one scale (a scope of one
 * scale), else an answer is on the legacy scale when its release is one of `legacyReleases` (null:
 * answers naming no release) and on the current scale otherwise; `good` is the good rating an
 * answer on each scale is judged by (the forced scale's for both under --mobile-scale).
 */
export interface AnswerScales {
  all: MobileScale | null;
  legacyReleases: readonly (string | null)[];
  good: Readonly<Record<MobileScale, number>>;
}

export function answerScalesOf(decision: ScaleDecision, given: number | undefined): AnswerScales {
  const legacyReleases = decision.releases.filter((r) => r.ratings > 0 && r.scale === "legacy").map((r) => r.release);
  if (decision.reading === "one") {
    const good = goodRatingOf(decision.scale, given);
    return { all: decision.scale, legacyReleases: [], good: { legacy: good, current: good } };
  }
  return { all: null, legacyReleases, good: goodOnEachScale(decision, given) };
}

/**
 * The good rating an answer on each scale is judged by: its own scale's (--good-rating's when given);
 * under --mobile-scale, the forced scale's for both.
 */
export function goodOnEachScale(decision: Pick<ScaleDecision, "scale" | "reading">, given: number | undefined): Record<MobileScale, number> {
  if (decision.reading !== "forced") return { legacy: goodRatingOf("legacy", given), current: goodRatingOf("current", given) };
  const good = goodRatingOf(decision.scale, given);
  return { legacy: good, current: good };
}

/** Every answer judged at one good rating (tests and callers that give a number). */
export function oneGoodRating(goodRating: number): AnswerScales {
  return { all: "current", legacyReleases: [], good: { legacy: goodRating, current: goodRating } };
}

/** "the scale changed from Ofcom's earlier 0-4 scale (X) to Ofcom's current 0/3/4 scale (Y)", or null when every release has one scale. */
export function scaleChangeWords(decision: ScaleDecision): string | null {
  const rs = decision.releases.filter((r) => r.ratings > 0);
  for (let i = 1; i < rs.length; i++) if (rs[i]!.scale !== rs[i - 1]!.scale) return changeWords({ from: rs[i - 1]!, to: rs[i]! });
  return decision.seenChange ? changeWords(decision.seenChange) : null;
}

function changeWords({ from, to }: ScaleChange): string {
  return (
    `the mobile rating scale changed between releases: ${releaseName(from.release)} is on ${SCALES[from.scale].title}, ${releaseName(to.release)} on ${SCALES[to.scale].title}; ` +
    `a rating of 3 means ${ratingLabel(from.scale, 3)} on the first and ${ratingLabel(to.scale, 3)} on the second`
  );
}

/** The good rating the reports use: --good-rating when given, else the scale's own. */
export function goodRatingOf(scale: MobileScale, given: number | undefined): number {
  return given ?? SCALES[scale].goodRating;
}
