// The statements of an answer's versions (shared/versions.ts says what a version is), the same on
// every engine: the answer writers prepare them once and run them in their own transactions
// (SQLite synchronously, inside its writer's transaction; PostgreSQL with its pair's row locked).
import type { Lookup } from "../../contract/fields.js";
import { LOOKUP_SPECS } from "../../contract/lookups.js";
import { valueFields } from "../shared/versions.js";

export const VERSION_SQL = {
  /** the pair's current version (CurrentVersion), with the release its lookup row was last confirmed on; `lock` follows (PostgreSQL: FOR UPDATE OF l) */
  current: (lock = "") =>
    `SELECT v.id, v.status, v.hash, v.simulated, v.providers, l.release AS confirmed
       FROM lookups l JOIN answer_versions v ON v.id = l.version_id WHERE l.postcode = @postcode AND l.lookup = @lookup${lock}`,
  /** a migrated version's hash, computed from the address tables */
  setHash: "UPDATE answer_versions SET hash = @hash WHERE id = @id",
  /** an identical re-fetch only moves last_seen */
  seenAgain: "UPDATE answer_versions SET last_seen = @at WHERE id = @id",
  /** the replaced version keeps its addresses as JSON rows */
  retire: "UPDATE answer_versions SET content = @content WHERE id = @id",
  /** a new version: its id */
  add: `INSERT INTO answer_versions (postcode, lookup, status, hash, release, first_seen, last_seen, run_id, simulated, address_count, providers)
        VALUES (@postcode, @lookup, @status, @hash, @release, @at, @at, @runId, @simulated, @addressCount, @providers) RETURNING id`,
  /** the rows of a pair's latest answer as the address tables hold them (VersionRow: uprn, address, values), sorted by UPRN */
  storedRows: (lookup: Lookup, providers: string | null) => {
    const fields = valueFields(lookup, providers);
    return `SELECT uprn, address${fields.length > 0 ? `, ${fields.join(", ")}` : ""} FROM ${LOOKUP_SPECS[lookup].table} WHERE postcode = @postcode ORDER BY uprn`;
  },
} as const;
