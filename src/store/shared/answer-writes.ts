// What both engines' answer writers decide the same way, as pure functions: a record's content and
// hash, whether it reuses its pair's current version or replaces it (and on which release), and
// its status row (the columns, their values, and the upsert that writes them). Each engine only
// runs the statements, in its own transactions (sqlite/answers.ts, postgres/answers.ts).
import type { Lookup } from "../../contract/fields.js";
import { LOOKUP_SPECS } from "../../contract/lookups.js";
import type { FinalRecord, OkRecord } from "../../contract/records.js";
import { providerKey } from "../provider-key.js";
import type { VersionRow } from "../snapshot.js";
import type { AnswerWriterOptions } from "../types.js";
import { answerRelease, type ReleaseBook } from "./releases.js";
import { contentHash, recordContent, type CurrentVersion, type VersionContent } from "./versions.js";
import { ratingCountsText, ratingEvidence, STORED_EVIDENCE, STORED_RATING_COUNTS } from "../sql/scale-sql.js";

/** What a writer's options say about every record it writes. */
export interface WriterSettings {
  /** 1 for the simulator's answers, as the tables store it */
  simulated: number;
  /** the run's providers as a key (provider-key.ts) */
  providerList: string;
  /** --release NAME, or null */
  label: string | null;
}

export function writerSettings(options: Pick<AnswerWriterOptions, "simulated" | "providers" | "release">): WriterSettings {
  return { simulated: options.simulated ? 1 : 0, providerList: providerKey(options.providers), label: options.release ?? null };
}

/** A record that is an answer or a not-found: one with a version (a failure has none). */
export type VersionedRecord = OkRecord | (FinalRecord & { status: "not_found" });

export const isVersioned = (r: FinalRecord): r is VersionedRecord => r.status !== "failed";

/** A record's version content and its hash: what tells an identical re-fetch from a new version. */
export interface Written {
  content: VersionContent;
  hash: string;
}

export function writtenContent(r: VersionedRecord, s: WriterSettings): Written {
  const content = recordContent(r, s.simulated === 1, s.providerList);
  return { content, hash: contentHash(content) };
}

/** The hash of a version stored before hashes were (a migrated one), from its address rows. */
export function storedVersionHash(lookup: Lookup, v: CurrentVersion, rows: VersionRow[]): string {
  return contentHash({ status: v.status, simulated: v.simulated === 1, providers: LOOKUP_SPECS[lookup].perProvider ? v.providers : null, rows });
}

/** A version to add: the pair's new latest. */
export interface NewVersion {
  postcode: string;
  lookup: Lookup;
  content: VersionContent;
  hash: string;
  release: string;
  at: string;
  runId: number;
}

/**
 * What a record does to its pair's versions. The same content again reuses the current version
 * (its address rows stand; only "last seen" and the status row's release move); anything else
 * retires the current version (its rows kept with it) and adds a new one whose rows replace the
 * address table's (none for a not-found).
 */
export type VersionStep = { release: string } & (
  | { kind: "seen-again"; versionId: number }
  | { kind: "replace"; retire: CurrentVersion | null; version: NewVersion }
);

/**
 * The version step of a record, given the pair's current version and that version's hash (null for
 * a first answer). `book` is read for the release, and records one first seen.
 */
export function versionStep(r: VersionedRecord, s: WriterSettings, written: Written, current: CurrentVersion | null, currentHash: string | null, book: ReleaseBook): VersionStep {
  const changed = current === null || currentHash !== written.hash;
  const dataset = r.status === "ok" ? r.answer.dataset : null;
  const release = answerRelease(book, r, { dataset, label: s.label, simulated: s.simulated, changed, current });
  if (current && !changed) return { release, kind: "seen-again", versionId: current.id };
  const version = { postcode: r.postcode, lookup: r.lookup, content: written.content, hash: written.hash, release, at: r.fetchedAt, runId: r.runId };
  return { release, kind: "replace", retire: current, version };
}

/**
 * The lookups table's columns, in the order of statusRowValues (an answer's or a not-found's row);
 * a failure's row (failureRowValues) sets the first eight with status 'failed', no dataset and no
 * addresses, and keeps the rest: a flaky night must not wipe out the last good answer's data, nor
 * make it younger (returned_at stays when the API last returned it; the retention ages by it).
 */
const STATUS_COLUMNS = [
  "postcode",
  "lookup",
  "status",
  "http_status",
  "attempts",
  "last_error",
  "fetched_at",
  "run_id",
  "dataset",
  "address_count",
  "providers",
  "simulated",
  "version_id",
  "release",
  // when the API last returned the answer: only an answer or a not-found sets it, never a failure
  "returned_at",
  // a mobile answer's scale evidence (sql/scale-sql.ts), kept through a failure as its addresses are
  STORED_EVIDENCE.ratings,
  STORED_EVIDENCE.legacy,
  // and its addresses at each rating of the summary's rating places, summed by the reports
  STORED_RATING_COUNTS,
] as const;

/** An answer's (or a not-found's) status row, in the order of STATUS_COLUMNS. */
export function statusRowValues(r: FinalRecord, content: VersionContent, simulated: number, versionId: number, release: string): unknown[] {
  const answer = r.status === "ok" ? r.answer : null;
  const scaled = LOOKUP_SPECS[r.lookup].ratingScale;
  const evidence = scaled ? ratingEvidence(content.rows) : null;
  return [
    r.postcode,
    r.lookup,
    r.status,
    r.httpStatus,
    r.attempts,
    r.lastError,
    r.fetchedAt,
    r.runId,
    answer?.dataset ?? null,
    answer?.addresses.length ?? 0,
    content.providers,
    simulated,
    versionId,
    release,
    r.fetchedAt,
    evidence?.ratings ?? null,
    evidence?.legacy ?? null,
    scaled ? ratingCountsText(content.rows, content.providers) : null,
  ];
}

/** The i-th (from 1) positional parameter in an engine's spelling: ? on SQLite, $i on PostgreSQL. */
export type Placeholder = (i: number) => string;

const updateSet = (columns: readonly string[]) => columns.map((c) => `${c} = excluded.${c}`).join(", ");

/** The upsert of an answer's or a not-found's status row, taking statusRowValues. */
export function statusUpsertSql(placeholder: Placeholder): string {
  return `INSERT INTO lookups (${STATUS_COLUMNS.join(", ")}) VALUES (${STATUS_COLUMNS.map((_, i) => placeholder(i + 1)).join(", ")})
     ON CONFLICT (postcode, lookup) DO UPDATE SET ${updateSet(STATUS_COLUMNS.slice(2))}`;
}

/** The upsert of a failure's status row, taking failureRowValues. */
export function failureUpsertSql(placeholder: Placeholder): string {
  const p = placeholder;
  return `INSERT INTO lookups (postcode, lookup, status, http_status, attempts, last_error, fetched_at, run_id, dataset, address_count, simulated)
     VALUES (${p(1)}, ${p(2)}, 'failed', ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}, NULL, 0, ${p(8)})
     ON CONFLICT (postcode, lookup) DO UPDATE SET status = 'failed', ${updateSet(STATUS_COLUMNS.slice(3, 8))}`;
}

/** A failure's status row values, in the order of failureUpsertSql's parameters. */
export function failureRowValues(r: FinalRecord, simulated: number): unknown[] {
  return [r.postcode, r.lookup, r.httpStatus, r.attempts, r.lastError, r.fetchedAt, r.runId, simulated];
}
