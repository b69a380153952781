// One pair's stored answer and its versions, the same on every engine: what the contract suite and tools check.
import type { AnswerStore } from "../store.js";
import type { StoredAnswer } from "../types.js";
import type { SqlSession } from "./session.js";

export function sqlAnswerReads(q: SqlSession): Pick<AnswerStore, "get" | "versions"> {
  return {
    async get(postcode, lookup) {
      const row = await q.get<Omit<StoredAnswer, "simulated"> & { simulated: number }>(
        `SELECT postcode, lookup, status, fetched_at AS "fetchedAt", returned_at AS "returnedAt", run_id AS "runId", address_count AS "addressCount", dataset, release,
                simulated, version_id AS "versionId", last_error AS "lastError"
           FROM lookups WHERE postcode = @postcode AND lookup = @lookup`,
        { postcode, lookup },
      );
      return row ? { ...row, simulated: row.simulated === 1 } : null;
    },
    versions: (postcode, lookup) =>
      q.all(
        `SELECT id, status, hash, release, first_seen AS "firstSeen", last_seen AS "lastSeen", run_id AS "runId", address_count AS "addressCount"
           FROM answer_versions WHERE postcode = @postcode AND lookup = @lookup ORDER BY id`,
        { postcode, lookup },
      ),
  };
}
