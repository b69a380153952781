// Backend bodies in the two dialects: "spec" is the API's specification exactly; "live" is
// what the production service sends, including fields no document mentions.
import { squeezePostcode } from "../contract/postcode.js";
import { RATING_MAX, RATING_MIN, SPEED_FIELDS, mobileFields, type Lookup } from "../contract/fields.js";
import type { Dialect, NotFoundBody } from "../contract/types.js";
import { ByteWriter, piece } from "./byte-writer.js";
import type { SimPostcode } from "./data.js";
import { releaseDbName } from "./releases.js";

export const NOT_FOUND_MESSAGE = "Post code not found";
export const GENERAL_ERROR_MESSAGE = "An error has occurred.";
/** The DBName of release 1 (later releases: releaseDbName). */
export const LIVE_DB_NAME = releaseDbName(1);
/** Undocumented fields the live dialect adds, so clients prove they tolerate them. */
export const LIVE_BODY_EXTRAS = { Release: "2024-06", Meta: { Source: "simulator", Tags: [] } } as const;
export const LIVE_ITEM_EXTRAS = ["Udprn", "Note"] as const;

/**
 * The 200 body of a lookup as UTF-8 JSON, written directly rather than built as objects and
 * stringified: a fresh answer is the simulator's most expensive work, and this is several times
 * faster. The bytes are exactly what JSON.stringify would give (tests hold it to that).
 */
export function okBodyBytes(lookup: Lookup, dialect: Dialect, data: SimPostcode, providers: readonly string[]): Buffer {
  const live = dialect === "live";
  const mobile = lookup === "mobile";
  const runs = mobile ? ratingRuns(providers) : [];
  const w = new ByteWriter(data.addresses.length * (mobile ? 100 * runs.length + 160 : 380) + 200);
  const postCode = piece(JSON.stringify(data.PostCode));

  if (mobile && !live) w.bytes(P.arrayOpen);
  w.bytes(P.postCode);
  w.bytes(postCode);
  if (live && !mobile) {
    w.bytes(P.count);
    w.number(data.addresses.length);
  }
  if (live && mobile) w.bytes(dbNamePiece(data.release));
  w.bytes(P.availability);
  for (let i = 0; i < data.addresses.length; i++) {
    const a = data.addresses[i]!;
    w.bytes(i === 0 ? P.itemFirst : P.itemNext);
    w.number(a.UPRN);
    w.bytes(P.address);
    w.text(JSON.stringify(a.AddressShortDescription));
    w.bytes(P.itemPostCode);
    w.bytes(postCode);
    if (mobile) writeRatings(w, runs, a.ratings);
    else
      for (let k = 0; k < SPEED_FIELDS.length; k++) {
        w.bytes(P.speedKeys[k]!);
        w.number(a.speeds[SPEED_FIELDS[k]!]);
      }
    if (live) {
      // Live items end with extras no document mentions; the Udprn value is stable per address.
      w.bytes(P.udprn);
      w.number((a.UPRN % 99_999_989) + 1);
      w.bytes(P.note);
    }
    w.bytes(P.objectClose);
  }
  w.bytes(live ? P.liveEnd : mobile ? P.specMobileEnd : P.specEnd);
  return w.finish();
}

/** The same body as text. */
export function okBodyText(lookup: Lookup, dialect: Dialect, data: SimPostcode, providers: readonly string[]): string {
  return okBodyBytes(lookup, dialect, data, providers).toString("utf8");
}

/** The same body as a value (for bodies to break on purpose, and for tests). */
export function okBody(lookup: Lookup, dialect: Dialect, data: SimPostcode, providers: readonly string[]): unknown {
  return JSON.parse(okBodyText(lookup, dialect, data, providers));
}

const key = (name: string) => JSON.stringify(name);
/** The fixed pieces of the bodies, encoded once. */
const P = {
  arrayOpen: piece("["),
  postCode: piece(`{${key("PostCode")}:`),
  count: piece(`,${key("Count")}:`),
  availability: piece(`,${key("Availability")}:[`),
  itemFirst: piece(`{${key("UPRN")}:`),
  itemNext: piece(`,{${key("UPRN")}:`),
  address: piece(`,${key("AddressShortDescription")}:`),
  itemPostCode: piece(`,${key("PostCode")}:`),
  speedKeys: SPEED_FIELDS.map((f) => piece(`,${key(f)}:`)),
  udprn: piece(`,${key(LIVE_ITEM_EXTRAS[0])}:`),
  note: piece(`,${key(LIVE_ITEM_EXTRAS[1])}:null`),
  objectClose: piece("}"),
  specEnd: piece("]}"),
  specMobileEnd: piece("]}]"),
  liveEnd: piece(`],${JSON.stringify(LIVE_BODY_EXTRAS).slice(1, -1)}}`),
};

const dbNames = new Map<number, Uint8Array>();
function dbNamePiece(release: number): Uint8Array {
  let p = dbNames.get(release);
  if (p === undefined) dbNames.set(release, (p = piece(`,${key("DBName")}:${JSON.stringify(releaseDbName(release))}`)));
  return p;
}

/** Ratings are written RUN fields at a time, from a table of every combination of their values. */
const RUN = 4;
const RATING_VALUES = RATING_MAX - RATING_MIN + 1;

/**
 * For each run of RUN consecutive fields of mobileFields(providers), the text
 * `,"F1":v1,"F2":v2,...` for every combination of ratings, indexed in base RATING_VALUES: a mobile
 * item is then a few ready-made pieces (5^4 = 625 per run, 8 runs for 4 providers).
 */
const runsCache = new Map<string, Uint8Array[][]>();
function ratingRuns(providers: readonly string[]): Uint8Array[][] {
  const id = providers.join(",");
  let runs = runsCache.get(id);
  if (runs === undefined) {
    if (runsCache.size >= 16) runsCache.clear();
    const fields = mobileFields(providers);
    runs = [];
    for (let start = 0; start < fields.length; start += RUN) {
      const names = fields.slice(start, start + RUN);
      const table: Uint8Array[] = [];
      for (let index = 0; index < RATING_VALUES ** names.length; index++) {
        let text = "";
        for (let j = 0; j < names.length; j++) {
          const v = RATING_MIN + (Math.floor(index / RATING_VALUES ** (names.length - 1 - j)) % RATING_VALUES);
          text += `,${key(names[j]!)}:${v}`;
        }
        table.push(piece(text));
      }
      runs.push(table);
    }
    runsCache.set(id, runs);
  }
  return runs;
}

/** Writes an address's ratings (in mobileFields order) as `,"Field":v` pairs. */
function writeRatings(w: ByteWriter, runs: Uint8Array[][], ratings: readonly number[]): void {
  for (let r = 0, k = 0; r < runs.length; r++) {
    const end = Math.min(k + RUN, ratings.length);
    let index = 0;
    for (; k < end; k++) index = index * RATING_VALUES + (ratings[k]! - RATING_MIN);
    w.bytes(runs[r]![index]!);
  }
}

/**
 * 404 body. spec: the PostCode compact and upper case (at most 7 characters, as documented);
 * live: echoed as the caller sent it.
 */
export function notFoundBody(dialect: Dialect, sent: string): NotFoundBody {
  if (dialect === "live") return { PostCode: sent, Error: NOT_FOUND_MESSAGE };
  return { PostCode: squeezePostcode(sent).slice(0, 7), ErrorMessage: NOT_FOUND_MESSAGE };
}

/** 500 body. */
export function generalErrorBody(dialect: Dialect): { ErrorMessage: string } | { Error: string } {
  return dialect === "live" ? { Error: GENERAL_ERROR_MESSAGE } : { ErrorMessage: GENERAL_ERROR_MESSAGE };
}
