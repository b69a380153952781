// summary.json's groups: a list grouped by sector has thousands of groups, and every group's
// estimates made a summary of tens of megabytes, more than a dashboard can load. The file lists a
// bounded few per dimension (the largest, and the worst by each headline figure) with their
// headline shares only; every group's figures are in groups.csv and the export's Parquet.
import { byLocale, naturalOrder } from "../../figures/name-order.js";
import type { Interval } from "../estimates/estimates.js";
import type { GroupEstimate } from "../estimates/types.js";
import { ESTIMATE_RANKING_WORDS, lowEnd } from "../estimates/ranking.js";

/** How many groups each ranking lists, per dimension: a dimension of fewer groups is listed whole. */
export const GROUPS_PER_RANKING = 50;

/** A group as summary.json lists it: what its estimates stand on, its headline shares, and why it is listed. */
export interface ListedGroup {
  postcodes: number;
  answeredPostcodes: number;
  answeredPerLookup: GroupEstimate["answeredPerLookup"];
  exact: boolean;
  shares: Record<string, Interval>;
  /** the rankings it is among: "largest", "worst belowSuperfast", ... */
  listedAs: string[];
}

/** A dimension's groups as summary.json has them. */
export interface ListedDimension {
  /** the dimension's groups, listed or not */
  count: number;
  listed: number;
  /** which groups are listed, and where the rest are */
  rule: string;
  /** per ranking, the groups in its order */
  rankings: Record<string, string[]>;
  /** the listed groups by name, in the groups' order */
  list: Record<string, ListedGroup>;
}

export const listingRule = (headline: readonly string[]) =>
  `The ${GROUPS_PER_RANKING} groups with the most postcodes ("largest")` +
  (headline.length > 0 ? ` and, per headline figure (${headline.join(", ")}), the ${GROUPS_PER_RANKING} worst ("worst <figure>"; ${ESTIMATE_RANKING_WORDS})` : "") +
  `, each with its headline shares; every group's figures are in groups.csv and the export's Parquet.`;

/** The ranking of groups by a key, highest first, ties in the groups' natural order; groups without a value left out. */
function top(groups: ReadonlyMap<string, GroupEstimate>, value: (g: GroupEstimate) => number | null | undefined): string[] {
  const ranked: [string, number][] = [];
  for (const [name, g] of groups) {
    const v = value(g);
    if (v !== null && v !== undefined) ranked.push([name, v]);
  }
  return ranked
    .sort(([a, x], [b, y]) => y - x || naturalOrder(a, b, byLocale))
    .slice(0, GROUPS_PER_RANKING)
    .map(([name]) => name);
}

/** A dimension's listed groups: the largest, and the worst by each headline share the estimates have. */
export function listDimension(groups: Record<string, GroupEstimate>, headline: readonly string[]): ListedDimension {
  const all = new Map(Object.entries(groups));
  const rankings: Record<string, string[]> = { largest: top(all, (g) => g.postcodes) };
  // the reports' own ranking: a group of a few answered postcodes leads only when its share is clearly high
  for (const key of headline)
    rankings[`worst ${key}`] = top(all, (g) => {
      const share = g.share(key);
      return share ? lowEnd(share) : null;
    });
  const why = new Map<string, string[]>();
  for (const [ranking, names] of Object.entries(rankings)) for (const name of names) why.set(name, [...(why.get(name) ?? []), ranking]);
  const list: Record<string, ListedGroup> = {};
  for (const [name, g] of all) {
    const listedAs = why.get(name);
    if (!listedAs) continue;
    const shares = Object.fromEntries(headline.flatMap((key) => (g.share(key) ? [[key, g.share(key)!]] : [])));
    list[name] = { postcodes: g.postcodes, answeredPostcodes: g.answeredPostcodes, answeredPerLookup: g.answeredPerLookup, exact: g.exact, shares, listedAs };
  }
  return { count: all.size, listed: why.size, rule: listingRule(headline), rankings, list };
}
