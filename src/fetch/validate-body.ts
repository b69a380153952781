// Turns the body of a 200 answer into an Answer, or says exactly what is wrong with it and where.
// Runs on every answer, so the checks are plain loops over the field lists of ../contract/fields.ts
// (no schema library, no per-call compilation); messages and paths are only built on a fault.
import { squeezePostcode } from "../contract/postcode.js";
import { MAX_UPRN, RATING_MAX, RATING_MIN, SPEED_FIELDS, SPEED_MIN, mobileField, mobileFields, type Lookup } from "../contract/fields.js";
import type { Answer, BroadbandAddress, MobileAddress } from "./outcome.js";

const UPRN_DIGITS = /^\d{1,12}$/;
/** Quoted snippets of the body are cut to this many characters to keep log lines short. */
const SNIPPET = 40;

export type BodyCheck =
  | { ok: true; answer: Answer }
  /** `providers`: the ratings are there, under other provider codes than --providers names */
  | { ok: false; message: string; providers?: true };

/** The first fault found; thrown to leave the loops at once, caught only in validateBody. */
class Fault {
  constructor(
    /** where in the body, e.g. `Availability[3].UPRN`; "" for the body as a whole */
    readonly path: string,
    readonly text: string,
  ) {}
}

/** Every retry would fail the same way, and spend quota: the configuration, not the answer, is wrong. */
class ProviderMismatch extends Fault {}

type Json = Record<string, unknown>;

/**
 * Validates a 200 body for `lookup`. `requested` is the postcode asked for: an answer for another
 * postcode is refused. Mobile ratings are checked and ordered by mobileFields(providers).
 */
export function validateBody(lookup: Lookup, body: string, requested: string, providers: readonly string[]): BodyCheck {
  try {
    const answer = VALIDATORS[lookup](parseBody(body), requested, providers);
    return { ok: true, answer };
  } catch (e) {
    if (!(e instanceof Fault)) throw e;
    const where = e.path === "" ? `${lookup} 200 body ${e.text}` : `${lookup} 200 body: ${e.path} ${e.text}`;
    return e instanceof ProviderMismatch ? { ok: false, message: where, providers: true } : { ok: false, message: where };
  }
}

/** Each lookup's validator of a parsed 200 body. */
const VALIDATORS: Record<Lookup, (value: unknown, requested: string, providers: readonly string[]) => Answer> = {
  broadband: (value, requested) => broadband(value, requested),
  mobile,
};

function broadband(value: unknown, requested: string): Answer {
  if (!isObject(value)) throw new Fault("", `is ${describe(value)}, expected an object`);
  const want = squeezePostcode(requested);
  checkPostCode(value, "", want);
  const c = collector<BroadbandAddress>();
  broadbandItems(value.Availability, "", want, c);
  return { lookup: "broadband", addresses: c.out, dataset: datasetOf(value) };
}

function mobile(value: unknown, requested: string, providers: readonly string[]): Answer {
  const want = squeezePostcode(requested);
  const c = collector<MobileAddress>();
  // Documented form: an array of MobileAvailability; live form: one such object carrying DBName.
  if (Array.isArray(value)) {
    // A found postcode is one MobileAvailability; an unknown one is a 404, never an empty array.
    if (value.length === 0) throw new Fault("", "is an empty array, expected the postcode's MobileAvailability");
    let dataset: string | null = null;
    for (let e = 0; e < value.length; e++) {
      const element: unknown = value[e];
      if (!isObject(element)) throw new Fault(`[${e}]`, `is ${describe(element)}, expected an object`);
      const base = `[${e}].`;
      checkPostCode(element, base, want);
      mobileItems(element.Availability, base, want, providers, c);
      dataset ??= datasetOf(element);
    }
    return { lookup: "mobile", addresses: c.out, dataset };
  }
  if (!isObject(value)) throw new Fault("", `is ${describe(value)}, expected an object or an array`);
  checkPostCode(value, "", want);
  mobileItems(value.Availability, "", want, providers, c);
  return { lookup: "mobile", addresses: c.out, dataset: datasetOf(value) };
}

function broadbandItems(list: unknown, base: string, want: string, c: Collector<BroadbandAddress>): void {
  if (!Array.isArray(list)) throw typeFault(`${base}Availability`, list, "an array");
  for (let i = 0; i < list.length; i++) {
    const item = itemAt(list, i, base);
    const uprn = readUprn(item, base, i);
    const address = readString(item, "AddressShortDescription", base, i);
    checkItemPostCode(item, base, i, want);
    const speeds: (number | null)[] = [];
    for (const name of SPEED_FIELDS) {
      const v = item[name];
      // Speeds are optional (§2.2): absent and null both mean "not given".
      if (v === undefined || v === null) speeds.push(null);
      // JSON.parse never yields NaN, but 1e999 becomes Infinity.
      else if (typeof v === "number" && v >= SPEED_MIN && v !== Infinity) speeds.push(v);
      else if (typeof v !== "number") throw typeFault(itemPath(base, i, name), v, "a number");
      else if (v === Infinity) throw typeFault(itemPath(base, i, name), v, "a finite number");
      else throw new Fault(itemPath(base, i, name), `is ${v}, below ${SPEED_MIN}`);
    }
    add(c, { uprn, address, speeds }, speeds, base, i);
  }
}

function mobileItems(list: unknown, base: string, want: string, providers: readonly string[], c: Collector<MobileAddress>): void {
  if (!Array.isArray(list)) throw typeFault(`${base}Availability`, list, "an array");
  const fields = fieldsFor(providers);
  for (let i = 0; i < list.length; i++) {
    const item = itemAt(list, i, base);
    if (i === 0) checkProviders(item, providers, base);
    const uprn = readUprn(item, base, i);
    const address = readString(item, "AddressShortDescription", base, i);
    checkItemPostCode(item, base, i, want);
    const ratings: number[] = [];
    for (const name of fields) {
      const v = item[name];
      // Every rating is required (§2.4): a gap would be stored as a false "no signal".
      if (typeof v === "number" && Number.isInteger(v) && v >= RATING_MIN && v <= RATING_MAX) ratings.push(v);
      else if (v === undefined) throw new Fault(itemPath(base, i, name), "missing");
      else if (typeof v !== "number" || !Number.isInteger(v))
        throw typeFault(itemPath(base, i, name), v, `an integer ${RATING_MIN}–${RATING_MAX}`);
      else throw new Fault(itemPath(base, i, name), `is ${v}, outside ${RATING_MIN}–${RATING_MAX}`);
    }
    add(c, { uprn, address, ratings }, ratings, base, i);
  }
}

/** The provider codes an item rates, read from its `<Prov>VoiceOutdoor` fields. */
const PROVIDER_OF_FIELD = new RegExp(`^([A-Za-z][A-Za-z0-9]*)${mobileField("", "Voice", "Outdoor")}$`);

/**
 * An answer rating other providers than --providers names is a configuration error, not a bad body.
 * A provider counts as absent only when none of its fields is there: one field missing is a broken
 * body (reported field by field, and retried), not a sign of other codes.
 */
function checkProviders(item: Json, providers: readonly string[], base: string): void {
  const absent = providers.filter((p) => mobileFields([p]).every((f) => item[f] === undefined));
  if (absent.length === 0) return;
  const rated = Object.keys(item).flatMap((k) => PROVIDER_OF_FIELD.exec(k)?.[1] ?? []);
  if (rated.length === 0) return; // no ratings at all: a broken body, reported field by field
  throw new ProviderMismatch(
    `${base}Availability[0]`,
    `rates providers ${rated.join(", ")}, but --providers names ${providers.join(", ")} (${absent.join(", ")} not in the answer); ` +
      `set --providers to the service's codes`,
  );
}

// ---- addresses and duplicates ----

interface Collector<A> {
  out: A[];
  values: (readonly (number | null)[])[];
  /** UPRN -> index in `out` */
  seen: Map<number, number>;
  /** where each kept address came from, for the duplicate message */
  bases: string[];
  indexes: number[];
}

function collector<A>(): Collector<A> {
  return { out: [], values: [], seen: new Map(), bases: [], indexes: [] };
}

/** The store keys addresses by (postcode, UPRN): an exact repeat is kept once, a conflicting one
 *  means the answer cannot be trusted. */
function add<A extends { uprn: number; address: string }>(
  c: Collector<A>,
  address: A,
  values: readonly (number | null)[],
  base: string,
  i: number,
): void {
  const earlier = c.seen.get(address.uprn);
  if (earlier === undefined) {
    c.seen.set(address.uprn, c.out.length);
    c.out.push(address);
    c.values.push(values);
    c.bases.push(base);
    c.indexes.push(i);
    return;
  }
  const kept = c.out[earlier];
  if (kept !== undefined && kept.address === address.address && sameValues(c.values[earlier], values)) return;
  const first = `${c.bases[earlier] ?? ""}Availability[${c.indexes[earlier] ?? "?"}]`;
  throw new Fault(itemPath(base, i, "UPRN"), `${address.uprn} repeats ${first} with different values`);
}

function sameValues(a: readonly (number | null)[] | undefined, b: readonly (number | null)[]): boolean {
  if (a === undefined || a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

// ---- fields ----

function itemAt(list: unknown[], i: number, base: string): Json {
  const item: unknown = list[i];
  if (!isObject(item)) throw new Fault(`${base}Availability[${i}]`, `is ${describe(item)}, expected an object`);
  return item;
}

/** UPRN: lenient on representation (a JSON string of digits is accepted), strict on value. */
function readUprn(item: Json, base: string, i: number): number {
  const v = item.UPRN;
  let n: number;
  if (typeof v === "number") n = v;
  else if (typeof v === "string" && UPRN_DIGITS.test(v)) n = Number(v);
  else if (v === undefined) throw new Fault(itemPath(base, i, "UPRN"), "missing");
  else throw typeFault(itemPath(base, i, "UPRN"), v, "an integer");
  if (!Number.isInteger(n)) throw typeFault(itemPath(base, i, "UPRN"), v, "an integer");
  if (n < 1 || n > MAX_UPRN) throw new Fault(itemPath(base, i, "UPRN"), `is ${describe(v)}, outside 1–${MAX_UPRN}`);
  return n;
}

function readString(item: Json, name: string, base: string, i: number): string {
  const v = item[name];
  if (typeof v === "string") return v;
  if (v === undefined) throw new Fault(itemPath(base, i, name), "missing");
  throw typeFault(itemPath(base, i, name), v, "a string");
}

/** The answer must be for the postcode asked for; the API may echo it with other spacing or case. */
function checkPostCode(value: Json, base: string, want: string): void {
  const v = value.PostCode;
  if (v === undefined) throw new Fault(`${base}PostCode`, "missing");
  if (typeof v !== "string") throw typeFault(`${base}PostCode`, v, "a string");
  if (squeezePostcode(v) !== want) throw new Fault(`${base}PostCode`, `is ${describe(v)}, not the requested ${describe(want)}`);
}

/** Each address must be in the postcode asked for: it is stored under that postcode. */
function checkItemPostCode(item: Json, base: string, i: number, want: string): void {
  const v = readString(item, "PostCode", base, i);
  if (v !== want && squeezePostcode(v) !== want) throw new Fault(itemPath(base, i, "PostCode"), `is ${describe(v)}, not the requested ${describe(want)}`);
}

/** DBName (live mobile form) names the dataset release; anything but a non-empty string is no name. */
function datasetOf(value: Json): string | null {
  const v = value.DBName;
  return typeof v === "string" && v !== "" ? v : null;
}

// mobileFields() builds 32 strings; a run uses one provider list, so build it once per list.
const fieldCache = new Map<string, readonly string[]>();
function fieldsFor(providers: readonly string[]): readonly string[] {
  const key = providers.join(",");
  let fields = fieldCache.get(key);
  if (fields === undefined) {
    if (fieldCache.size >= 16) fieldCache.clear();
    fields = mobileFields(providers);
    fieldCache.set(key, fields);
  }
  return fields;
}

// ---- JSON ----

const JSON_START = /^(?:[{["\-\d]|true|false|null)/;
// JSON has no NaN or Infinity, but some serialisers write them anyway; name the field if we can.
const NON_JSON_NUMBER_FIELD = /"((?:[^"\\]|\\.){1,60})"\s*:\s*(-?(?:NaN|Infinity))(?!\w)/;
const NON_JSON_NUMBER = /[[,:]\s*(-?(?:NaN|Infinity))(?!\w)/;
const AT_POSITION = /at position (\d+)/;

function parseBody(body: string): unknown {
  // A UTF-8 byte order mark is harmless but JSON.parse refuses it.
  const text = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw notJson(text, e instanceof Error ? e.message : String(e));
  }
}

function notJson(text: string, error: string): Fault {
  const trimmed = text.trim();
  if (trimmed === "") return new Fault("", "is empty");
  if (!JSON_START.test(trimmed)) return new Fault("", `is not JSON (starts with ${quote(trimmed)})`);
  const field = NON_JSON_NUMBER_FIELD.exec(trimmed);
  if (field) return new Fault("", `is not valid JSON: ${cut(field[1] ?? "", SNIPPET)} is ${field[2]}, which JSON does not allow`);
  const value = NON_JSON_NUMBER.exec(trimmed);
  if (value) return new Fault("", `is not valid JSON: it holds ${value[1]}, which JSON does not allow`);
  // A body cut short (a dropped connection behind a proxy) fails at its very end.
  const at = AT_POSITION.exec(error);
  const end = text.trimEnd().length;
  if (/end of JSON input/.test(error) || (at && Number(at[1]) >= end))
    return new Fault("", `is not valid JSON: it ends early, after ${end} characters`);
  return new Fault("", `is not valid JSON (${cut(error, 2 * SNIPPET)})`);
}

// ---- helpers, shared with classify.ts ----

export function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Postcodes compared ignoring case and whitespace. */
/** A value as a message shows it: strings quoted and cut, containers by kind only. */
export function describe(v: unknown): string {
  if (typeof v === "string") return quote(v);
  if (Array.isArray(v)) return "an array";
  if (v === null) return "null";
  if (typeof v === "object") return "an object";
  return String(v);
}

/** A quoted snippet on one line, at most SNIPPET characters of the original. */
export function quote(s: string): string {
  return JSON.stringify(cut(s.replace(/\s+/g, " "), SNIPPET));
}

export function cut(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function typeFault(path: string, v: unknown, expected: string): Fault {
  // An absent field is "missing", as everywhere else, never "is undefined".
  if (v === undefined) return new Fault(path, `missing, expected ${expected}`);
  return new Fault(path, `is ${describe(v)}, expected ${expected}`);
}

function itemPath(base: string, i: number, field: string): string {
  return `${base}Availability[${i}].${field}`;
}
