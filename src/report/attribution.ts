// The attribution Ofcom's API terms ask for beside any display of the API's data (4.2.1-4.2.2):
// the source and the dataset release each lookup's figures come from, or the exact words the
// user's licence asks for (--attribution). Printed beside the open data's OGL line.
import type { Lookup } from "../spec/fields.js";
import { LOOKUP_SPECS } from "../spec/lookups.js";
import { DEFAULT_ATTRIBUTION_SOURCE } from "../spec/terms.js";
import type { Release } from "../store/snapshot.js";

/** --attribution: the words as given (trimmed, one line, at most 500 characters); null for the default. */
export function parseAttribution(raw: string | undefined, name: string): string | null {
  if (raw === undefined || raw.trim() === "") return null;
  const text = raw.trim();
  if (/[\r\n]/.test(text) || text.length > 500) throw new Error(`${name}: give the attribution as one line of at most 500 characters`);
  return text;
}

/** "Source: Ofcom (mobile: MobileAvailability-202406041254; broadband: no release named, fetched 2026-03-01)". */
export function apiAttribution(releases: Partial<Record<Lookup, readonly Release[]>>, custom: string | null | undefined): string {
  if (custom) return custom;
  const parts = (Object.entries(releases) as [Lookup, readonly Release[]][])
    .filter(([, list]) => list.length > 0)
    .map(([lookup, list]) => `${LOOKUP_SPECS[lookup].label.toLowerCase()}: ${list.map(releaseName).join(", ")}`);
  return `Source: ${DEFAULT_ATTRIBUTION_SOURCE}${parts.length > 0 ? ` (${parts.join("; ")})` : ""}`;
}

function releaseName(r: Release): string {
  if (r.release !== null) return r.release;
  const from = r.fetchedFrom?.slice(0, 10);
  const to = r.fetchedTo?.slice(0, 10);
  return from === undefined ? "no release named" : `no release named, fetched ${from}${to && to !== from ? ` to ${to}` : ""}`;
}
