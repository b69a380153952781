// --group-by's text and default: a leaf, so that the commands' option tables read it without
// loading the groups' computation.

/** --group-by's default. */
export const DEFAULT_GROUP_BY: readonly string[] = ["area", "district"];

/** --group-by's text: names separated by commas; `none` (or nothing) for no groups. */
export function parseGroupBy(text: string): string[] {
  const names = text
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n.length > 0);
  return names.length === 1 && names[0]!.toLowerCase() === "none" ? [] : names;
}
