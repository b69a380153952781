// Deleting expired answers: every answer the API last returned before a cutoff goes, with its
// address rows and every version (whose JSON holds older addresses). One list of statements for
// both engines; `cutoff` is the engine's placeholder for the cutoff time (ISO text, as fetched_at).
import { LOOKUP_LIST } from "../../spec/lookups.js";

/**
 * The statements, in order: the tombstones (`at` is the placeholder of the expiry time), then
 * addresses and versions before the answer rows that name them.
 */
export function expirySql(cutoff: string, at: string): { deletes: string[]; answers: string } {
  const expired = (lookup: string) => `SELECT postcode FROM lookups WHERE lookup = '${lookup}' AND fetched_at < ${cutoff}`;
  return {
    deletes: [
      `INSERT INTO expired_answers (postcode, lookup, expired_at) SELECT postcode, lookup, ${at} FROM lookups WHERE fetched_at < ${cutoff}
         ON CONFLICT (postcode, lookup) DO UPDATE SET expired_at = excluded.expired_at`,
      ...LOOKUP_LIST.map((l) => `DELETE FROM ${l.table} WHERE postcode IN (${expired(l.name)})`),
      `DELETE FROM answer_versions WHERE EXISTS (SELECT 1 FROM lookups l WHERE l.postcode = answer_versions.postcode
         AND l.lookup = answer_versions.lookup AND l.fetched_at < ${cutoff})`,
    ],
    answers: `DELETE FROM lookups WHERE fetched_at < ${cutoff}`,
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

/**
 * Temporary views named as the tables (a temporary object is found before the main one), so every
 * reader's SQL sees only answers returned at or after `cutoff`. `main` names the tables' schema.
 */
export function hideExpiredSql(main: string, cutoff: string): string[] {
  if (!/^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(cutoff)) throw new Error(`not an ISO time: ${cutoff.slice(0, 30)}`);
  const kept = `fetched_at >= '${cutoff}'`;
  const expired = (lookup: string) =>
    `NOT EXISTS (SELECT 1 FROM ${main}.lookups l WHERE l.postcode = t.postcode AND l.lookup = ${lookup} AND NOT (l.${kept}))`;
  return [
    `CREATE TEMP VIEW lookups AS SELECT * FROM ${main}.lookups WHERE ${kept}`,
    ...LOOKUP_LIST.map((l) => `CREATE TEMP VIEW ${l.table} AS SELECT * FROM ${main}.${l.table} t WHERE ${expired(`'${l.name}'`)}`),
    `CREATE TEMP VIEW answer_versions AS SELECT * FROM ${main}.answer_versions t WHERE ${expired("t.lookup")}`,
    // the hidden answers count as expired too (expired_at empty: hidden at the reader's clock, not deleted)
    `CREATE TEMP VIEW expired_answers AS SELECT postcode, lookup, expired_at FROM ${main}.expired_answers
       UNION ALL SELECT postcode, lookup, NULL FROM ${main}.lookups WHERE NOT (${kept})`,
  ];
}

/** Whether any answer is expired: only then are the views made (a report without one reads the tables). */
export function anyExpiredSql(cutoff: string): string {
  return `SELECT 1 FROM lookups WHERE fetched_at < ${cutoff} LIMIT 1`;
}
