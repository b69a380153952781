// Wire types of the coverage API (../shared/spec/coverage-api.md §2, and the live dialect of
// ../shared/spec/live-service-notes.md). Shared by the client and the simulator.
import type { SpeedField } from "./fields.js";

export type BroadbandProvision = {
  UPRN: number;
  AddressShortDescription: string;
  PostCode: string;
} & Partial<Record<SpeedField, number>>;

export interface FixedAvailability {
  PostCode: string;
  Availability: BroadbandProvision[];
  /** live dialect only */
  Count?: number;
}

export type MobileProvision = {
  UPRN: number;
  AddressShortDescription: string;
  PostCode: string;
} & Record<string, number | string>;

export interface MobileAvailability {
  PostCode: string;
  Availability: MobileProvision[];
  /** live dialect only: dataset release, e.g. MobileAvailability-202406041254 */
  DBName?: string;
}

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
export function lookupPath(lookup: "broadband" | "mobile", postcode: string): string {
  return `/${lookup}/coverage/${encodeURIComponent(postcode)}`;
}
