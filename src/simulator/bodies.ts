// Backend bodies in the two dialects: "spec" is coverage-api.md exactly; "live" is what the
// production service sends (live-service-notes.md), including fields no document mentions.
import { SPEED_FIELDS, mobileFields, type Lookup } from "../spec/fields.js";
import type {
  BroadbandProvision,
  Dialect,
  FixedAvailability,
  MobileAvailability,
  MobileProvision,
  NotFoundBody,
} from "../spec/types.js";
import type { SimPostcode } from "./data.js";

export const NOT_FOUND_MESSAGE = "Post code not found";
export const GENERAL_ERROR_MESSAGE = "An error has occurred.";
export const LIVE_DB_NAME = "MobileAvailability-202406041254";
/** Undocumented fields the live dialect adds, so clients prove they tolerate them. */
export const LIVE_BODY_EXTRAS = { Release: "2024-06", Meta: { Source: "simulator", Tags: [] } } as const;
export const LIVE_ITEM_EXTRAS = ["Udprn", "Note"] as const;

export function broadbandItems(data: SimPostcode): BroadbandProvision[] {
  return data.addresses.map((a) => {
    const item: BroadbandProvision = { UPRN: a.UPRN, AddressShortDescription: a.AddressShortDescription, PostCode: data.PostCode };
    for (const f of SPEED_FIELDS) item[f] = a.speeds[f];
    return item;
  });
}

export function mobileItems(data: SimPostcode, providers: readonly string[]): MobileProvision[] {
  const fields = mobileFields(providers);
  return data.addresses.map((a) => {
    const item: MobileProvision = { UPRN: a.UPRN, AddressShortDescription: a.AddressShortDescription, PostCode: data.PostCode };
    for (const f of fields) item[f] = a.ratings[f]!;
    return item;
  });
}

/** Live items carry extras; the Udprn value is stable per address. */
function withItemExtras<T extends { UPRN: number }>(item: T): T {
  return { ...item, Udprn: (item.UPRN % 99_999_989) + 1, Note: null };
}

/** The 200 body of a lookup, as a JSON-ready value. */
export function okBody(lookup: Lookup, dialect: Dialect, data: SimPostcode, providers: readonly string[]): unknown {
  if (lookup === "broadband") {
    const items = broadbandItems(data);
    if (dialect === "spec") return { PostCode: data.PostCode, Availability: items } satisfies FixedAvailability;
    return { PostCode: data.PostCode, Count: items.length, Availability: items.map(withItemExtras), ...LIVE_BODY_EXTRAS };
  }
  const items = mobileItems(data, providers);
  if (dialect === "spec") return [{ PostCode: data.PostCode, Availability: items }] satisfies MobileAvailability[];
  return { PostCode: data.PostCode, DBName: LIVE_DB_NAME, Availability: items.map(withItemExtras), ...LIVE_BODY_EXTRAS };
}

/**
 * 404 body. spec: the PostCode compact and upper case (at most 7 characters, as documented);
 * live: echoed as the caller sent it.
 */
export function notFoundBody(dialect: Dialect, sent: string): NotFoundBody {
  if (dialect === "live") return { PostCode: sent, Error: NOT_FOUND_MESSAGE };
  return { PostCode: sent.replace(/\s+/g, "").toUpperCase().slice(0, 7), ErrorMessage: NOT_FOUND_MESSAGE };
}

/** 500 body. */
export function generalErrorBody(dialect: Dialect): { ErrorMessage: string } | { Error: string } {
  return dialect === "live" ? { Error: GENERAL_ERROR_MESSAGE } : { ErrorMessage: GENERAL_ERROR_MESSAGE };
}
