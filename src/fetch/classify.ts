// What one HTTP answer means for the batch. Pure: status, headers and body in, an Outcome out.
// Covers the documented API and the live service and its gateway, whose error bodies differ.
import type { ClassifyInput, Outcome } from "./outcome.js";
import type { Answer } from "../contract/records.js";
import { parseRetryAfter } from "./retry-after.js";
import { squeezePostcode } from "../contract/postcode.js";
import { cut, isObject, quote, validateBody } from "./validate-body.js";

/** Error texts from the service are sentences, not snippets; still bounded for the log. */
const MAX_TEXT = 200;
/** Spec error bodies use ErrorMessage, the live service Error, the gateway message. */
const MESSAGE_FIELDS = ["ErrorMessage", "Error", "message", "Message", "error"] as const;
const QUOTA = /quota|call volume/i;
const TRY_AGAIN = /try again in (\d+(?:\.\d+)?) seconds?/i;

export function classify(input: ClassifyInput): Outcome {
  const { status } = input;
  // Every text taken from a body comes from its redacted form: a key it echoes is masked before
  // anything is cut. A valid answer is validated as sent, and redacted only when it holds a key
  // (redacting every answer was a fifth of the whole batch's CPU: docs/bench.md).
  const redactBody = () => (input.redact ? input.redact(input.body) : input.body);
  // so is every text taken from a header (a redirect's Location may carry the key in its query)
  const redactHeader = (text: string) => (input.redact ? input.redact(text) : text);
  if (status === 200) {
    const check = validateBody(input.lookup, input.body, input.requested, input.providers);
    // A key the body echoes (a misbehaving gateway) is masked in the answer's text before it is stored.
    // Only the answer's texts are stored, so only they are scanned for the key's pieces (the whole
    // body is ten times longer: its field names and numbers); an answer without one is kept as parsed.
    if (check.ok) {
      const text = storedText(check.answer);
      const echoes = input.redact !== undefined && (input.holdsSecret ? input.holdsSecret(text) : input.redact(text) !== text);
      return { kind: "ok", answer: echoes ? redactStrings(check.answer, input.redact!) : check.answer };
    }
    const redacted = redactBody();
    const safe = redacted === input.body ? check : validateBody(input.lookup, redacted, input.requested, input.providers);
    const message = safe.ok ? "the body of this answer quoted the key" : safe.message;
    return check.providers ? { kind: "misconfigured", message } : { kind: "retryable", message };
  }

  const redacted = redactBody();
  const error = readErrorBody(redacted);
  const http = error.message === null ? `HTTP ${status} ${error.summary}` : `HTTP ${status}: ${error.message}`;

  if (status === 404) {
    // Only the service's own not-found body proves the postcode is unknown; the gateway's 404 (or an
    // HTML page) means the URL points somewhere else, and every postcode would "not exist".
    const notFound = error.json && typeof error.json.PostCode === "string" ? notFoundText(error.json) : null;
    // A not-found answer about another postcode says nothing about this one: a body that breaks the spec.
    if (notFound !== null && squeezePostcode(error.json!.PostCode as string) !== squeezePostcode(input.requested))
      return { kind: "retryable", message: `HTTP 404 not-found body names another postcode ${quote(error.json!.PostCode as string)}` };
    if (notFound !== null) return { kind: "not_found", message: notFound };
    // The service's own not-found body, broken (cut, invalid JSON, a required field missing), is a
    // body that breaks the spec: retried like any other, not taken for a wrong base URL.
    if (brokenNotFound(redacted, error.json))
      return { kind: "retryable", message: `HTTP 404 with a not-found body that breaks the spec ${error.summary}` };
    const gone = error.json !== null && "statusCode" in error.json ? { gone: true as const } : {};
    return { kind: "misconfigured", message: `the API answered 404 without a postcode-not-found body: check the base URL (${http})`, ...gone };
  }
  // The API never redirects: a 3xx means the base URL points at something else (http for https, a moved host).
  if (status >= 300 && status <= 399) {
    const location = header(input.headers, "location");
    const to = typeof location === "string" ? ` to ${cut(redactHeader(location), 100)}` : "";
    return { kind: "misconfigured", message: `the API answered ${status} (a redirect${to}): check the base URL` };
  }
  if (status === 401) return { kind: "auth", message: error.message ?? http };
  // 410 Gone: nothing lives at this address any more (a product withdrawn, or a wrong base URL).
  if (status === 410) return { kind: "misconfigured", message: `the API answered 410 Gone (${http})`, gone: true, withdrawn: true };
  if (status === 403) {
    // The gateway answers 403 both for an exhausted quota (wait for next month) and for a refused key.
    const text = error.message ?? error.summary;
    return QUOTA.test(text) ? { kind: "quota", message: error.message ?? http } : { kind: "auth", message: http };
  }
  if (status === 429) {
    const raw = header(input.headers, "retry-after");
    const fromHeader = parseRetryAfter(raw, input.now);
    const retryAfterMs = fromHeader ?? retryAfterFromText(error.message, input.now);
    const asked = fromHeader !== null ? `Retry-After: ${cut(redactHeader(String(typeof raw === "string" ? raw : raw?.[0]).trim()), 40)}` : retryAfterMs !== null ? `"${cut(error.message ?? "", 60)}"` : undefined;
    return { kind: "throttled", retryAfterMs, message: http, ...(asked ? { asked } : {}) };
  }
  if (status === 408 || (status >= 500 && status <= 599)) return { kind: "retryable", message: http };
  return { kind: "final_error", message: http };
}

/** The texts of an answer that the store keeps (its release name and addresses), one a line. */
function storedText(answer: Answer): string {
  let text = answer.dataset ?? "";
  for (const a of answer.addresses) text += "\n" + a.address;
  return text;
}

/** Every string inside `value` redacted; numbers and the shape kept. */
function redactStrings<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => redactStrings(v, redact)) as T;
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactStrings(v, redact)])) as T;
  return value;
}

interface ErrorBody {
  /** the body when it is a JSON object */
  json: Record<string, unknown> | null;
  /** the human-readable text the body carries, cleaned; null when none */
  message: string | null;
  /** what the body looks like when it carries no text, e.g. `(empty body)` */
  summary: string;
}

function readErrorBody(body: string): ErrorBody {
  const trimmed = body.trim();
  if (trimmed === "") return { json: null, message: null, summary: "(empty body)" };
  let json: Record<string, unknown> | null = null;
  // Only try JSON where it can be JSON: error paths see HTML pages and plain text too.
  if (trimmed.startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (isObject(parsed)) json = parsed;
    } catch {
      // not JSON after all: described by its start below
    }
  }
  let message: string | null = null;
  if (json)
    for (const field of MESSAGE_FIELDS) {
      const v = json[field];
      if (typeof v === "string" && v.trim() !== "") {
        message = clean(v);
        break;
      }
    }
  return { json, message, summary: `(body starts with ${quote(trimmed)})` };
}

/** The not-found text of a 404 body (spec: ErrorMessage, live: Error), or null if it has none. */
function notFoundText(json: Record<string, unknown>): string | null {
  for (const field of ["ErrorMessage", "Error"] as const) {
    const v = json[field];
    if (typeof v === "string") return clean(v) || "postcode not found";
  }
  return null;
}

/** JSON that does not parse, or an object with the service's (not the gateway's) not-found fields. */
function brokenNotFound(body: string, json: Record<string, unknown> | null): boolean {
  if (json === null) return body.trim().startsWith("{");
  if ("statusCode" in json) return false;
  return "PostCode" in json || "Error" in json || "ErrorMessage" in json;
}

/** The gateway's 429 body says "Rate limit is exceeded. Try again in N seconds." */
function retryAfterFromText(message: string | null, now: number): number | null {
  const m = message === null ? null : TRY_AGAIN.exec(message);
  return m?.[1] === undefined ? null : parseRetryAfter(m[1], now);
}

/** node gives lower-case header names; other callers may not. */
function header(headers: ClassifyInput["headers"], name: string): string | string[] | undefined {
  const direct = headers[name];
  if (direct !== undefined) return direct;
  for (const key of Object.keys(headers)) if (key.toLowerCase() === name) return headers[key];
  return undefined;
}

/** One line, bounded (the body was redacted before): these texts end up in logs and the store. */
function clean(text: string): string {
  return cut(text.replace(/\s+/g, " ").trim(), MAX_TEXT);
}
