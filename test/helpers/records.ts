// Final records for store tests: a broadband answer with these UPRNs, a mobile one with these ratings.
import type { Answer, OkRecord } from "../../src/contract/records.js";

/** The answer as the API gave it on its first attempt. */
function answered(postcode: string, answer: Answer, fetchedAt: string, runId: number): OkRecord {
  return { postcode, lookup: answer.lookup, status: "ok", httpStatus: 200, attempts: 1, lastError: null, fetchedAt, runId, answer };
}

export function okRecord(postcode: string, uprns: number[], fetchedAt = "2026-01-01T00:00:00.000Z", runId = 1): OkRecord {
  const addresses = uprns.map((u) => ({ uprn: u, address: `A ${u}`, speeds: [1, 2, 3, 4, -1, -1, 3, 4] }));
  return answered(postcode, { lookup: "broadband", dataset: null, addresses }, fetchedAt, runId);
}

/** A mobile answer of `dataset` whose addresses (UPRN 100, 101, …) carry these ratings. */
export function mobileRecord(postcode: string, dataset: string, ratings: number[][], fetchedAt: string, runId: number): OkRecord {
  const addresses = ratings.map((r, i) => ({ uprn: 100 + i, address: `${i} High St`, ratings: r }));
  return answered(postcode, { lookup: "mobile", dataset, addresses }, fetchedAt, runId);
}
