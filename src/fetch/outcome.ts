// What one HTTP answer means for the batch: the output of the pure classifier.
import type { Lookup } from "../contract/fields.js";
import type { Answer } from "../contract/records.js";

export type { Answer, BroadbandAddress, MobileAddress } from "../contract/records.js";

export type Outcome =
  /** 200 with a valid body. */
  | { kind: "ok"; answer: Answer }
  /** 404 with a postcode-not-found body: final, never retried. */
  | { kind: "not_found"; message: string }
  /** 401, or a 403 that is not about quota: the key was rejected; stop the whole run. */
  | { kind: "auth"; message: string }
  /** 403 quota exhausted: stop scheduling this lookup. */
  | { kind: "quota"; message: string }
  /** 429: wait (Retry-After in ms when given), slow down, retry without using up retries. */
  | { kind: "throttled"; retryAfterMs: number | null; message: string; /** what the server asked for, as sent (`Retry-After: 3600`) */ asked?: string }
  /** 5xx, a malformed or out-of-spec body: retry with backoff. */
  | { kind: "retryable"; message: string }
  /** another 4xx: retrying cannot help; the postcode fails at once. */
  | { kind: "final_error"; message: string }
  /**
   * a 404 that is not the API's not-found body: the base URL is wrong; stop the whole run.
   * `gone`: the gateway's own 404, or a 410: what a closed product answers too (decide.ts tells which).
   * `withdrawn`: a 410, the gateway saying outright that what lived here is gone, as a wrong path never does.
   */
  | { kind: "misconfigured"; message: string; gone?: true; withdrawn?: true };

export interface ClassifyInput {
  lookup: Lookup;
  /** the compact upper-case postcode that was asked for */
  requested: string;
  /** mobile provider prefixes; ratings are validated and ordered by mobileFields(providers) */
  providers: readonly string[];
  status: number;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: string;
  /** ms since epoch, for an HTTP-date Retry-After */
  now: number;
  /** masks keys (and pieces of them) in the body before any text of it is taken */
  redact?: (text: string) => string;
  /** whether the body holds a configured key or a piece of one (without it, a body is redacted to find out) */
  holdsSecret?: (text: string) => boolean;
}
