// Which operation a request addresses. Anything else is the gateway's 404.
import { LOOKUPS, type Lookup } from "../contract/fields.js";

export interface Route {
  lookup: Lookup;
  /** the postcode path segment, still percent-encoded */
  segment: string;
  /** the query string without "?" ("" when none) */
  query: string;
}

const PREFIXES = LOOKUPS.map((lookup) => ({ lookup, prefix: `/${lookup}/coverage/` }));

export function matchRoute(method: string | undefined, url: string | undefined): Route | null {
  if (method !== "GET" || !url) return null;
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  for (const { lookup, prefix } of PREFIXES) {
    if (!path.startsWith(prefix)) continue;
    const segment = path.slice(prefix.length);
    if (segment.length === 0 || segment.includes("/")) return null;
    return { lookup, segment, query: q < 0 ? "" : url.slice(q + 1) };
  }
  return null;
}

/** The segment as the caller meant it; a broken escape is kept as sent (and then is no postcode). */
export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
