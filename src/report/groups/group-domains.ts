// Which groups each postcode belongs to, for the groups' estimates: a group's estimate stands on the
// postcodes of the list in it, answered or not, so its membership must be known for every postcode.
// Postcode parts (area, district, sector) come from the postcode itself; an input column's values
// from the run's input rows (a postcode on rows of two values is in both groups, as groups.csv
// counts it); an --area-file column's from the rows prepareGroups kept. The group names follow
// the store's groups (trimmed, "(blank)" when empty, "(unmatched)" when the area file lacks the postcode).
import { BLANK_GROUP, UNMATCHED_GROUP, type ReportSnapshot } from "../../store/snapshot.js";
import type { Dimension, PostcodeDimension } from "./types.js";

/** A postcode's values of one dimension (compact postcode in). */
export type GroupsOf = (compact: string) => readonly string[];

/** A dimension's groups of each postcode, by the dimension's name as groups.csv writes it. */
export interface GroupDomains {
  name: string;
  source: Dimension["source"];
  groupsOf: GroupsOf;
}

const groupName = (cell: string | null | undefined) => {
  const value = (cell ?? "").trim();
  return value === "" ? BLANK_GROUP : value;
};

const compactOf = (postcode: string) => postcode.replace(/\s+/g, "").toUpperCase();

/** A postcode-part group value as groups.csv names it: area CF, district CF10, sector "CF10 1". */
export function postcodePart(compact: string, part: PostcodeDimension): string {
  const district = compact.slice(0, -3);
  return part === "area" ? (/^[A-Z]+/.exec(compact)?.[0] ?? district) : part === "district" ? district : `${district} ${compact.charAt(compact.length - 3)}`;
}

/** Per compact postcode of the run's input, the set of values of each input column asked for. */
async function inputValues(snapshot: ReportSnapshot, indexes: readonly number[]): Promise<Map<number, Map<string, Set<string>>>> {
  const byIndex = new Map(indexes.map((i) => [i, new Map<string, Set<string>>()]));
  if (indexes.length === 0) return byIndex;
  for await (const batch of snapshot.inputRows()) {
    for (const [, , postcode, , cells] of batch) {
      if (postcode === null) continue;
      const parsed = JSON.parse(cells) as (string | null)[];
      const key = compactOf(postcode);
      for (const [index, values] of byIndex) {
        let set = values.get(key);
        if (!set) values.set(key, (set = new Set()));
        set.add(groupName(parsed[index]));
      }
    }
  }
  return byIndex;
}

/**
 * The dimensions' memberships. `areaCells`: the area file's kept cells per compact postcode (the
 * wanted columns, a dimension's index points there); null without --area-file.
 */
export async function groupDomains(snapshot: ReportSnapshot, dimensions: readonly Dimension[], areaCells: ReadonlyMap<string, readonly string[]> | null): Promise<GroupDomains[]> {
  const inputs = await inputValues(snapshot, dimensions.filter((d) => d.source === "input").map((d) => d.index));
  return dimensions.map((d): GroupDomains => {
    if (d.source === "postcode") return { name: d.name, source: d.source, groupsOf: (c) => [postcodePart(c, d.name as PostcodeDimension)] };
    if (d.source === "input") {
      const values = inputs.get(d.index)!;
      return { name: d.name, source: d.source, groupsOf: (c) => [...(values.get(c) ?? [BLANK_GROUP])] };
    }
    const inArea = (c: string) => areaCells?.get(c);
    return { name: d.name, source: d.source, groupsOf: (c) => [inArea(c) ? groupName(inArea(c)![d.index]) : UNMATCHED_GROUP] };
  });
}

/**
 * The area file's rows kept for the groups' estimates: the first row of each postcode in scope
 * (as the snapshot keeps them). Pass `keep` to loadAreaFile.
 */
export function areaCellCollector(inScope: ReadonlySet<string>): { cells: Map<string, readonly string[]>; keep: (postcode: string, cells: readonly string[]) => void } {
  const cells = new Map<string, readonly string[]>();
  return { cells, keep: (postcode, row) => void (inScope.has(postcode) && !cells.has(postcode) && cells.set(postcode, row)) };
}

/** The compact postcodes in the report's scope. */
export async function scopePostcodes(snapshot: ReportSnapshot): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const batch of snapshot.postcodeRows([])) for (const row of batch) out.add(compactOf(String(row[0])));
  return out;
}
