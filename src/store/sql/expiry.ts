// Deleting expired answers: every answer the API last returned before a cutoff goes, with its
// address rows and every version (whose JSON holds older addresses), and so does every older
// version of a kept answer last returned before it. An answer's age is returned_at, which only an
// answer moves (a failed refresh leaves it); a version's is its last_seen. One list of statements
// for both engines; `cutoff` is the engine's placeholder for the cutoff time (ISO text).
import { LOOKUP_LIST } from "../../contract/lookups.js";

/** The column that holds when the API last returned a pair's answer (a reader of an older schema has only fetched_at). */
export const RETURNED_AT = "returned_at";

export interface ExpirySql {
  /** the tombstones (`at` is the placeholder of the expiry time): postcode, lookup and time, nothing of the answer */
  tombstones: string;
  /** the expired answers' address rows */
  addresses: string[];
  /** the expired answers' versions and every version last returned before the cutoff: its changes are the versions deleted */
  versions: string;
  /** the expired answers' rows, last: its changes are the answers deleted */
  answers: string;
  /** what the reports read changed (report/set/fingerprint.ts), when only versions went */
  raiseAnswersVersion: string;
}

export function expirySql(cutoff: string, at: string): ExpirySql {
  const old = (alias = "") => `${alias}${RETURNED_AT} < ${cutoff}`;
  const expired = (lookup: string) => `SELECT postcode FROM lookups WHERE lookup = '${lookup}' AND ${old()}`;
  return {
    tombstones: `INSERT INTO expired_answers (postcode, lookup, expired_at) SELECT postcode, lookup, ${at} FROM lookups WHERE ${old()}
         ON CONFLICT (postcode, lookup) DO UPDATE SET expired_at = excluded.expired_at`,
    addresses: LOOKUP_LIST.map((l) => `DELETE FROM ${l.table} WHERE postcode IN (${expired(l.name)})`),
    versions: `DELETE FROM answer_versions WHERE last_seen < ${cutoff} OR EXISTS (SELECT 1 FROM lookups l WHERE l.postcode = answer_versions.postcode
         AND l.lookup = answer_versions.lookup AND ${old("l.")})`,
    answers: `DELETE FROM lookups WHERE ${old()}`,
    raiseAnswersVersion: "UPDATE answers_version SET n = n + 1 WHERE id = 1",
  };
}

/** The newest run's recorded options: its --retention is the rule readers apply. */
export const NEWEST_RUN_ARGS_SQL = "SELECT args FROM runs ORDER BY id DESC LIMIT 1";

/**
 * What readers hide (reports, export, status), given the clock: answers last returned before the
 * returned ISO time, by the newest run's --retention; null when it keeps everything, when there is
 * no run, or when the newest run is from before the option (its database has no rule yet: the next
 * batch applies the default and deletes).
 */
export function hiddenBefore(argsText: string | null | undefined, nowMs: number): string | null {
  if (argsText == null) return null;
  let retention: unknown = null;
  try {
    retention = (JSON.parse(argsText) as Record<string, unknown>).retention;
  } catch {
    // unreadable args: no rule
  }
  return typeof retention === "number" ? new Date(nowMs - retention).toISOString() : null;
}

/** Tables that hold an answer's text, each shadowed by a temporary view without the expired ones. */
export const EXPIRY_VIEWS = ["lookups", ...LOOKUP_LIST.map((l) => l.table), "answer_versions", "expired_answers"] as const;

/** Both engines' false in a boolean context (SQLite's comparisons are 0/1, PostgreSQL's booleans). */
const FALSE = "1 = 0";

/**
 * Temporary views named as the tables (a temporary object is found before the main one), so every
 * reader's SQL sees only answers returned at or after `cutoff`, and only versions last returned
 * then. `main` names the tables' schema; `age` is the column of an answer's age (RETURNED_AT, or
 * fetched_at in a schema from before it).
 */
export function hideExpiredSql(main: string, cutoff: string, age = RETURNED_AT): string[] {
  if (!/^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(cutoff)) throw new Error(`not an ISO time: ${cutoff.slice(0, 30)}`);
  // a pair never answered (a failure, returned_at NULL) holds no answer to hide
  const old = (alias: string) => `${alias}${age} < '${cutoff}'`;
  const kept = (lookup: string) => `NOT EXISTS (SELECT 1 FROM ${main}.lookups l WHERE l.postcode = t.postcode AND l.lookup = ${lookup} AND ${old("l.")})`;
  return [
    `CREATE TEMP VIEW lookups AS SELECT * FROM ${main}.lookups t WHERE NOT COALESCE(${old("t.")}, ${FALSE})`,
    ...LOOKUP_LIST.map((l) => `CREATE TEMP VIEW ${l.table} AS SELECT * FROM ${main}.${l.table} t WHERE ${kept(`'${l.name}'`)}`),
    `CREATE TEMP VIEW answer_versions AS SELECT * FROM ${main}.answer_versions t WHERE t.last_seen >= '${cutoff}' AND ${kept("t.lookup")}`,
    // the hidden answers count as expired too (expired_at empty: hidden at the reader's clock, not deleted)
    `CREATE TEMP VIEW expired_answers AS SELECT postcode, lookup, expired_at FROM ${main}.expired_answers
       UNION ALL SELECT postcode, lookup, NULL FROM ${main}.lookups t WHERE ${old("t.")}`,
  ];
}

/** Whether any answer or version is expired: only then are the views made (a report without one reads the tables). `cutoff` is a named placeholder. */
export function anyExpiredSql(cutoff: string, age = RETURNED_AT): string {
  return `SELECT 1 AS found WHERE EXISTS (SELECT 1 FROM lookups WHERE ${age} < ${cutoff}) OR EXISTS (SELECT 1 FROM answer_versions WHERE last_seen < ${cutoff})`;
}
