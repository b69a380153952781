// Shared by the simulator tests: a small GET helper and JSON schemas built from the spec field lists.
import http from "node:http";
import { Ajv, type ValidateFunction } from "ajv";
import { RATING_MAX, RATING_MIN, SPEED_FIELDS, SPEED_MIN, mobileFields } from "../src/contract/fields.js";
import { API_KEY_HEADER, API_KEY_QUERY, type Dialect } from "../src/contract/types.js";
import { DEFAULT_KEY } from "../src/simulator/options.js";

export const KEY = DEFAULT_KEY;

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
}

export interface GetOptions {
  /** null sends no key; default KEY */
  key?: string | null;
  /** send the key as the query parameter instead of the header */
  viaQuery?: boolean;
  signal?: AbortSignal;
}

export async function get(base: string, path: string, opts: GetOptions = {}): Promise<Reply> {
  const key = opts.key === undefined ? KEY : opts.key;
  const url = new URL(base + path);
  const headers: Record<string, string> = {};
  if (key !== null) {
    if (opts.viaQuery) url.searchParams.set(API_KEY_QUERY, key);
    else headers[API_KEY_HEADER] = key;
  }
  const res = await fetch(url, { headers, signal: opts.signal });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

export const json = (r: Reply): unknown => JSON.parse(r.text);

export interface RawReply {
  /** null when no response head arrived */
  status: number | null;
  headers: http.IncomingHttpHeaders;
  /** the body bytes that arrived, complete or not */
  body: Buffer;
  /** true when the whole body announced arrived */
  complete: boolean;
  /** how the exchange failed, if it did */
  error: string | null;
}

/**
 * A GET over node:http on a fresh connection that reports what really arrived, part-bodies and
 * dropped connections included (fetch hides both behind one error). Gives up after `timeoutMs`.
 */
export function rawGet(base: string, path: string, opts: { key?: string | null; timeoutMs?: number } = {}): Promise<RawReply> {
  const key = opts.key === undefined ? KEY : opts.key;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let status: number | null = null;
    let headers: http.IncomingHttpHeaders = {};
    let done = false;
    const finish = (complete: boolean, error: string | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ status, headers, body: Buffer.concat(chunks), complete, error });
    };
    const req = http.get(new URL(base + path), { agent: false, headers: key === null ? {} : { [API_KEY_HEADER]: key } }, (res) => {
      status = res.statusCode ?? null;
      headers = res.headers;
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => finish(res.complete, res.complete ? null : "closed mid-body"));
      res.on("aborted", () => finish(false, "closed mid-body"));
      res.on("error", (e) => finish(false, e.message));
    });
    req.on("error", (e) => finish(false, e.message));
    const timer = setTimeout(() => finish(false, "timeout"), opts.timeoutMs ?? 5_000);
  });
}

const uprn = { type: "integer", minimum: 0, maximum: 999_999_999_999 }; // int32 in the spec; 12 digits per the live notes
const postCode = { type: "string", minLength: 5, maxLength: 7, pattern: "^[A-Z0-9]+$" };

export interface CoverageSchemas {
  broadband: ValidateFunction;
  mobile: ValidateFunction;
  notFound: ValidateFunction;
  generalError: ValidateFunction;
}

/** Schemas of §2 of the API's specification; spec allows no unknown fields, live requires its extras. */
export function coverageSchemas(dialect: Dialect, providers?: readonly string[]): CoverageSchemas {
  const live = dialect === "live";
  const item = (values: Record<string, object>, required: string[]) => ({
    type: "object",
    properties: { UPRN: uprn, AddressShortDescription: { type: "string", minLength: 1 }, PostCode: postCode, ...values },
    required: ["UPRN", "AddressShortDescription", "PostCode", ...required],
    additionalProperties: live,
  });
  const availability = (itemSchema: object, extra: Record<string, object>) => ({
    type: "object",
    properties: { PostCode: postCode, Availability: { type: "array", minItems: 1, items: itemSchema }, ...extra },
    required: ["PostCode", "Availability", ...Object.keys(extra)],
    additionalProperties: live,
  });
  const speeds = Object.fromEntries(SPEED_FIELDS.map((f) => [f, { type: "number", minimum: SPEED_MIN }]));
  const fields = mobileFields(providers);
  const ratings = Object.fromEntries(fields.map((f) => [f, { type: "integer", minimum: RATING_MIN, maximum: RATING_MAX }]));
  const fixed = availability(item(speeds, []), live ? { Count: { type: "integer", minimum: 0 } } : {});
  const mobile = availability(item(ratings, fields), live ? { DBName: { type: "string", minLength: 1 } } : {});
  const message = live ? "Error" : "ErrorMessage";
  const ajv = new Ajv({ allErrors: true });
  return {
    broadband: ajv.compile(fixed),
    mobile: ajv.compile(live ? mobile : { type: "array", minItems: 1, maxItems: 1, items: mobile }),
    notFound: ajv.compile({
      type: "object",
      properties: { PostCode: live ? { type: "string" } : { type: "string", maxLength: 7 }, [message]: { type: "string", minLength: 1 } },
      required: ["PostCode", message],
      additionalProperties: live,
    }),
    generalError: ajv.compile({
      type: "object",
      properties: { [message]: { type: "string", minLength: 1 } },
      required: [message],
      additionalProperties: live,
    }),
  };
}
