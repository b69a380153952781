// Deleting expired answers: every answer the API last returned before a cutoff goes, with its
// address rows and every version (whose JSON holds older addresses). One list of statements for
// both engines; `cutoff` is the engine's placeholder for the cutoff time (ISO text, as fetched_at).
import { LOOKUP_LIST } from "../../spec/lookups.js";

/** The statements, in order: addresses and versions before the answer rows that name them. */
export function expirySql(cutoff: string): { deletes: string[]; answers: string } {
  const expired = (lookup: string) => `SELECT postcode FROM lookups WHERE lookup = '${lookup}' AND fetched_at < ${cutoff}`;
  return {
    deletes: [
      ...LOOKUP_LIST.map((l) => `DELETE FROM ${l.table} WHERE postcode IN (${expired(l.name)})`),
      `DELETE FROM answer_versions WHERE EXISTS (SELECT 1 FROM lookups l WHERE l.postcode = answer_versions.postcode
         AND l.lookup = answer_versions.lookup AND l.fetched_at < ${cutoff})`,
    ],
    answers: `DELETE FROM lookups WHERE fetched_at < ${cutoff}`,
  };
}
