// What fetching hands to storing: a lookup's answer as the API gave it and the final record of
// one postcode × lookup. Defined here, beside the field lists, because both sides use them and
// neither owns the other.
import type { Lookup } from "./fields.js";

/** One broadband address; `speeds` follows SPEED_FIELDS order, null where the API gave no value. */
export interface BroadbandAddress {
  uprn: number;
  address: string;
  speeds: (number | null)[];
}

/** One mobile address; `ratings` follows mobileFields(providers) order. */
export interface MobileAddress {
  uprn: number;
  address: string;
  ratings: number[];
}

export type Answer =
  | { lookup: "broadband"; addresses: BroadbandAddress[]; dataset: string | null }
  | { lookup: "mobile"; addresses: MobileAddress[]; dataset: string | null };

interface RecordBase {
  postcode: string;
  lookup: Lookup;
  /** the last HTTP status, null when the last attempt got no answer */
  httpStatus: number | null;
  attempts: number;
  lastError: string | null;
  fetchedAt: string;
  runId: number;
}

export type OkRecord = RecordBase & { status: "ok"; answer: Answer };

/** The final state of one postcode × lookup: an answer, the API's "not found", or a failure after every retry. */
export type FinalRecord = OkRecord | (RecordBase & { status: "not_found" | "failed" });

export type LookupStatus = FinalRecord["status"];
