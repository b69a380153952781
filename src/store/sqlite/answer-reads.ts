// Reading one pair's stored answer and its versions: what the contract suite and tools check.
import type { Lookup } from "../../spec/fields.js";
import type { AnswerVersionInfo, StoredAnswer } from "../types.js";
import type { Db } from "./db.js";

export function storedAnswer(db: Db, postcode: string, lookup: Lookup): StoredAnswer | null {
  const row = db
    .prepare(
      `SELECT postcode, lookup, status, fetched_at AS fetchedAt, run_id AS runId, address_count AS addressCount, dataset, release,
              simulated, version_id AS versionId, last_error AS lastError
         FROM lookups WHERE postcode = ? AND lookup = ?`,
    )
    .get(postcode, lookup) as (Omit<StoredAnswer, "simulated"> & { simulated: number }) | undefined;
  return row ? { ...row, simulated: row.simulated === 1 } : null;
}

export function answerVersions(db: Db, postcode: string, lookup: Lookup): AnswerVersionInfo[] {
  return db
    .prepare(
      `SELECT id, status, hash, release, first_seen AS firstSeen, last_seen AS lastSeen, run_id AS runId, address_count AS addressCount
         FROM answer_versions WHERE postcode = ? AND lookup = ? ORDER BY id`,
    )
    .all(postcode, lookup) as AnswerVersionInfo[];
}
