// Wire types of the coverage API (the API documentation, §2, and the live dialect the production
// service speaks: docs/api-notes.md). Shared by the client and the simulator.
// The 200 bodies are described by the field lists of fields.ts: the client validates them field by
// field (fetch/validate-body.ts) and the simulator writes them from the same lists.

import type { Lookup } from "./fields.js";
import { LOOKUP_SPECS } from "./lookups.js";

/** spec dialect: `ErrorMessage`; live dialect: `Error`. */
export interface NotFoundBody {
  PostCode: string;
  ErrorMessage?: string;
  Error?: string;
}

/** The API gateway's own bodies (401, 403 quota, 429). */
export interface GatewayBody {
  statusCode: number;
  message: string;
}

export type Dialect = "spec" | "live";

export const API_KEY_HEADER = "Ocp-Apim-Subscription-Key";
export const API_KEY_QUERY = "subscription-key";

/** Path of a lookup for a postcode (compact, upper case). */
export function lookupPath(lookup: Lookup, postcode: string): string {
  return LOOKUP_SPECS[lookup].path(postcode);
}
