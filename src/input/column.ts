// Which column holds the postcodes: --column by name, else a header that is plainly a postcode
// column, else (a one-column file) the column itself with no header at all.
import { InputError } from "./text-guard.js";
import { normalisePostcode } from "../contract/postcode.js";
import { unwrapQuotes } from "./cell.js";

/** Header names recognised as the postcode column, compared after folding case, spaces, _ and -. */
const POSTCODE_HEADERS = new Set(["postcode", "postcodes", "pcd", "pcds"].map(fold));

export interface ColumnChoice {
  index: number;
  hasHeader: boolean;
}

/** A header name used by more than one column (1-based column numbers). */
export interface DuplicateName {
  name: string;
  columns: number[];
}

/** A header cell as a column name: `"Postcode" ` → `Postcode`. */
export function headerName(cell: string): string {
  return unwrapQuotes(cell).trim();
}

/** A header that names a postcode column (postcode, pcd, pcds, Post Code…). */
export function isPostcodeHeader(name: string): boolean {
  return POSTCODE_HEADERS.has(fold(name));
}

function fold(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, "");
}

function listColumns(names: readonly string[]): string {
  return names.map((c) => JSON.stringify(c)).join(", ");
}

function listNumbers(indexes: readonly number[]): string {
  const n = indexes.map((i) => String(i + 1));
  return n.length <= 2 ? n.join(" and ") : `${n.slice(0, -1).join(", ")} and ${n.at(-1)}`;
}

export function choosePostcodeColumn(first: readonly string[], column: string | undefined, source: string, line: number): ColumnChoice {
  const at = `${source}: line ${line}:`;
  const names = first.map(headerName);
  if (column !== undefined) {
    const wanted = column.trim().toLowerCase();
    const matches = indexesWhere(names, (c) => c.toLowerCase() === wanted);
    if (matches.length === 0) throw new InputError(`${at} no column named ${JSON.stringify(column)}; the columns are ${listColumns(names)}`);
    if (matches.length > 1)
      throw new InputError(`${at} the column ${JSON.stringify(column)} appears ${matches.length} times (columns ${listNumbers(matches)}); rename all but one`);
    return { index: matches[0]!, hasHeader: true };
  }
  const matches = indexesWhere(names, (c) => POSTCODE_HEADERS.has(fold(c)));
  if (matches.length === 1) return { index: matches[0]!, hasHeader: true };
  if (matches.length > 1) {
    const distinct = new Set(matches.map((i) => names[i]!.toLowerCase()));
    // --column cannot tell apart columns of the same name: only renaming helps then.
    if (distinct.size === 1)
      throw new InputError(
        `${at} the postcode column ${JSON.stringify(names[matches[0]!])} appears ${matches.length} times (columns ${listNumbers(matches)}); rename all but one`,
      );
    const fix = distinct.size === matches.length ? "choose one with --column NAME" : "rename all but one";
    throw new InputError(`${at} several columns could hold the postcodes (columns ${listNumbers(matches)}: ${listColumns(matches.map((i) => names[i]!))}); ${fix}`);
  }
  // A one-column file without a postcode header is a plain list of postcodes.
  if (first.length === 1) return { index: 0, hasHeader: false };
  const hint = names.some((c) => normalisePostcode(c).ok)
    ? "; the first line looks like data, so add a header row and name it with --column"
    : "; name it with --column NAME";
  throw new InputError(`${at} no postcode column found among ${listColumns(names)}${hint}`);
}

/** Names that more than one column has (compared like --column: any case); blank names are not names. */
export function duplicateNames(names: readonly string[]): DuplicateName[] {
  const byName = new Map<string, number[]>();
  names.forEach((c, i) => {
    const key = c.toLowerCase();
    if (key === "") return;
    byName.set(key, [...(byName.get(key) ?? []), i]);
  });
  return [...byName.values()].filter((ix) => ix.length > 1).map((ix) => ({ name: names[ix[0]!]!, columns: ix.map((i) => i + 1) }));
}

export function describeDuplicate(d: DuplicateName): string {
  return `columns ${listNumbers(d.columns.map((c) => c - 1))} are ${d.columns.length === 2 ? "both" : "all"} named ${JSON.stringify(d.name)}; each is kept as read`;
}

function indexesWhere(cells: readonly string[], test: (c: string) => boolean): number[] {
  const out: number[] = [];
  cells.forEach((c, i) => {
    if (test(c)) out.push(i);
  });
  return out;
}
