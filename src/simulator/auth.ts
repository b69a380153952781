// Subscription-key check, as the gateway does it: header first, then the query parameter.
import type { IncomingHttpHeaders } from "node:http";
import type { Lookup } from "../contract/fields.js";
import { API_KEY_HEADER, API_KEY_QUERY } from "../contract/types.js";

const HEADER = API_KEY_HEADER.toLowerCase();

export type AuthResult = { ok: true; key: string } | { ok: false; reason: "missing" | "invalid" };

/** The key the caller presented, or null (an empty value counts as missing). */
export function presentedKey(headers: IncomingHttpHeaders, query: string): string | null {
  const header = headers[HEADER];
  const fromHeader = Array.isArray(header) ? header.join(", ") : header;
  if (fromHeader) return fromHeader;
  if (query.length === 0) return null;
  return new URLSearchParams(query).get(API_KEY_QUERY) || null;
}

export interface Keys {
  key: string;
  /** when set, the mobile lookup needs this key instead of `key` */
  mobileKey?: string | undefined;
}

export function checkKey(keys: Keys, lookup: Lookup, presented: string | null): AuthResult {
  if (presented === null) return { ok: false, reason: "missing" };
  const expected = lookup === "mobile" && keys.mobileKey !== undefined ? keys.mobileKey : keys.key;
  return presented === expected ? { ok: true, key: presented } : { ok: false, reason: "invalid" };
}
