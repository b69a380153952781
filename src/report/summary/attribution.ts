// The attribution Ofcom's API terms ask for beside any display of the API's data (4.2.1-4.2.2):
// the source and the dataset release each lookup's figures come from, or the exact words the
// user's licence asks for (--attribution). Printed beside the open data's OGL line.
import type { Lookup } from "../../contract/fields.js";
import { LOOKUP_SPECS } from "../../contract/lookups.js";
import { DEFAULT_ATTRIBUTION_SOURCE } from "../../contract/terms.js";
import type { Release } from "../../store/snapshot.js";

/** --attribution: the words as given (trimmed, one line, at most 500 characters); null for the default. */
export function parseAttribution(raw: string | undefined, name: string): string | null {
  if (raw === undefined || raw.trim() === "") return null;
  const text = raw.trim();
  if (/[\r\n]/.test(text) || text.length > 500) throw new Error(`${name}: give the attribution as one line of at most 500 characters`);
  return text;
}

/**
 * A sentence: "Source: Ofcom. Broadband data fetched 2026-03-01 (the API names no release); mobile
 * data from release MobileAvailability-202406041254." A release is named as the API names it; the
 * broadband lookup names none, so its figures are dated by when they were fetched.
 */
export function apiAttribution(releases: Partial<Record<Lookup, readonly Release[]>>, custom: string | null | undefined): string {
  if (custom) return custom;
  const parts = (Object.entries(releases) as [Lookup, readonly Release[]][])
    .filter(([, list]) => list.length > 0)
    .map(([lookup, list]) => `${LOOKUP_SPECS[lookup].label.toLowerCase()} data ${releaseWords(list)}`);
  if (parts.length === 0) return `Source: ${DEFAULT_ATTRIBUTION_SOURCE}.`;
  const sentence = parts.join("; ");
  return `Source: ${DEFAULT_ATTRIBUTION_SOURCE}. ${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
}

const and = (words: readonly string[]) => (words.length <= 1 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`);

/** "from release X" / "from releases X and Y", then "fetched D (the API names no release)" for the answers without one. */
function releaseWords(list: readonly Release[]): string {
  const named = [...new Set(list.filter((r) => r.release !== null).map((r) => r.release!))];
  const unnamed = list.filter((r) => r.release === null);
  const words: string[] = [];
  if (named.length > 0) words.push(`from release${named.length > 1 ? "s" : ""} ${and(named)}`);
  if (unnamed.length > 0) {
    const from = unnamed.map((r) => r.fetchedFrom?.slice(0, 10)).filter((d): d is string => d !== undefined).sort()[0];
    const to = unnamed.map((r) => r.fetchedTo?.slice(0, 10)).filter((d): d is string => d !== undefined).sort().at(-1);
    words.push(from === undefined ? "(the API names no release)" : `fetched ${from}${to && to !== from ? ` to ${to}` : ""} (the API names no release)`);
  }
  return words.join(", and ");
}
