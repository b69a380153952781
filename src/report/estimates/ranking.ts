// How the reports rank groups, worst first: by the low end of the 95% interval of each group's
// share (Wilson's score interval over the group's addresses), so that a group's size counts. A
// district with 1 of its 1 address below superfast (100%, low end 21%) ranks below one with 762 of
// 794 (96%, low end 94%): a small group ranks high only when its share is clearly high. One
// declaration: report.html's "worst" sentence, charts and tables, and the workbook's Groups sheet
// (its column to sort by) read it, and say it beside the ranking in RANKING_WORDS.
import { t975, wilsonInterval, type Interval } from "./estimates.js";

/** The Groups figures report.html ranks (its "worst" charts), by their count column: the workbook's Groups sheet gives each its ranking figure to sort by. */
export const RANKED_GROUP_FIGURES: readonly string[] = ["BelowSuperfast", "IndoorVoiceTotalNotspots"];

/** Said beside every ranking of groups. */
export const RANKING_WORDS =
  "ranked by the low end of each share's 95% interval (Wilson's, over the group's addresses), so a group of a few addresses ranks high only when its share is clearly high";

/** Said beside a ranking of the groups' estimates for all their addresses (partly answered lists), whose intervals are the estimates' own. */
export const ESTIMATE_RANKING_WORDS =
  "groups ranked by the low end of each estimate's 95% interval, so a group of a few answered postcodes ranks high only when its share is clearly high";

/** The figure an interval ranks by, largest first: its low end (the estimate itself when it has none). */
export const lowEnd = (i: Interval): number | null => i.low ?? i.estimate;

/** A group's share of `of` addresses with its 95% interval (null when it has no addresses). */
export function groupShareInterval(count: number, of: number): Interval | null {
  return of > 0 ? wilsonInterval(count / of, of, t975(Infinity)) : null;
}

/** The figure a group is ranked by: its share's interval's low end (null without addresses). */
export function rankingFigure(count: number, of: number): number | null {
  const i = groupShareInterval(count, of);
  return i ? lowEnd(i) : null;
}
