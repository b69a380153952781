// An answer as a version, the same on every engine: its value columns, its rows sorted by UPRN,
// and the hash that tells an identical re-fetch from a new version.
import { createHash } from "node:crypto";
import type { Lookup } from "../../contract/fields.js";
import { LOOKUP_SPECS } from "../../contract/lookups.js";
import type { Answer, FinalRecord } from "../../contract/records.js";
import { providersOfKey } from "../provider-key.js";
import type { VersionRow } from "../snapshot.js";

export interface VersionContent {
  status: "ok" | "not_found";
  simulated: boolean;
  /** mobile: providerKey of the ratings held; null for broadband */
  providers: string | null;
  /** sorted by UPRN */
  rows: VersionRow[];
}

/** The value columns a version's rows hold after uprn and address. */
export function valueFields(lookup: Lookup, providers: string | null): string[] {
  return LOOKUP_SPECS[lookup].valueFields(providersOfKey(providers));
}

const byUprn = (a: VersionRow, b: VersionRow) => a[0] - b[0];

/** Per lookup, an answer's addresses as version rows [uprn, address, ...values]: where its values are. */
const VALUE_ROWS: { [L in Lookup]: (answer: Extract<Answer, { lookup: L }>) => VersionRow[] } = {
  // concat, not spread: cheaper on the batch's hot path (the rows are built once per answer)
  broadband: (answer) => answer.addresses.map((a) => ([a.uprn, a.address] as (string | number | null)[]).concat(a.speeds) as VersionRow),
  mobile: (answer) => answer.addresses.map((a) => ([a.uprn, a.address] as (string | number | null)[]).concat(a.ratings) as VersionRow),
};

/** An answer's addresses as version rows, sorted by UPRN. */
export function answerRows(answer: Answer): VersionRow[] {
  return (VALUE_ROWS[answer.lookup] as (a: Answer) => VersionRow[])(answer).sort(byUprn);
}

/** Equal content, equal hash: what tells an identical re-fetch from a new version. */
export function contentHash(c: VersionContent): string {
  return createHash("sha256")
    .update(JSON.stringify([c.status, c.simulated ? 1 : 0, c.providers, c.rows]))
    .digest("hex")
    .slice(0, 32);
}

export interface CurrentVersion {
  id: number;
  status: "ok" | "not_found";
  hash: string | null;
  simulated: number;
  providers: string | null;
  /** the release the lookup row was last confirmed on */
  confirmed: string | null;
}

/**
 * An answer or a not-found, as the version content its hash is taken of (a failure has none: the
 * writers store it apart). `providerList` is the writer's provider key, recorded only for a lookup
 * rated per provider.
 */
export function recordContent(r: FinalRecord, simulated: boolean, providerList: string): VersionContent {
  const answer = r.status === "ok" ? r.answer : null;
  return {
    status: answer ? "ok" : "not_found",
    simulated,
    providers: answer && LOOKUP_SPECS[answer.lookup].perProvider ? providerList : null,
    rows: answer ? answerRows(answer) : [],
  };
}
