// Final records for store tests: a broadband answer with these UPRNs, a mobile one with these ratings.
import type { FinalRecord, OkRecord } from "../../src/contract/records.js";

export function okRecord(postcode: string, uprns: number[], fetchedAt = "2026-01-01T00:00:00.000Z", runId = 1): OkRecord {
  return {
    postcode,
    lookup: "broadband",
    status: "ok",
    httpStatus: 200,
    attempts: 1,
    lastError: null,
    fetchedAt,
    runId,
    answer: { lookup: "broadband", dataset: null, addresses: uprns.map((u) => ({ uprn: u, address: `A ${u}`, speeds: [1, 2, 3, 4, -1, -1, 3, 4] })) },
  };
}

/** A mobile answer of `dataset` whose addresses (UPRN 100, 101, …) carry these ratings. */
export function mobileRecord(postcode: string, dataset: string, ratings: number[][], fetchedAt: string, runId: number): FinalRecord {
  return {
    postcode,
    lookup: "mobile",
    status: "ok",
    httpStatus: 200,
    attempts: 1,
    lastError: null,
    fetchedAt,
    runId,
    answer: { lookup: "mobile", dataset, addresses: ratings.map((r, i) => ({ uprn: 100 + i, address: `${i} High St`, ratings: r })) },
  };
}
