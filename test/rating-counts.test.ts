// The summary's rating shares (per provider and rating place, the addresses at each rating) are
// summed from the counts each mobile answer stores when it is written (src/store/sql/scale-sql.ts),
// not counted again from every address: the sums must equal a count of the addresses, an answer
// stored before the counts were (NULL) is counted from its addresses, a failed refresh keeps the
// last answer's counts with its addresses, and a field that is no rating place is counted as before.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_PROVIDERS, mobileFields } from "../src/contract/fields.js";
import { ratingPlaceFields } from "../src/contract/mobile-scales.js";
import type { FinalRecord } from "../src/contract/records.js";
import { ratingCountsText } from "../src/store/sql/scale-sql.js";
import type { Store } from "../src/store/store.js";
import { openMobileStore, type MobileStore } from "./helpers/mobile-store.js";
import { mobileRecord } from "./helpers/records.js";

const AT = "2026-03-01T00:00:00.000Z";
const NOW = Date.parse("2026-03-02T00:00:00.000Z");
const FIELDS = mobileFields(DEFAULT_PROVIDERS);
const PLACES = ratingPlaceFields(DEFAULT_PROVIDERS);
const VALUES = [4, 3, 2, 1, 0];

/** Address k of postcode p: every field rated from p and k, so that the counts differ per field and value. */
const ratingsOf = (p: number, k: number) => FIELDS.map((_, f) => (p * 7 + k * 3 + f) % 5);

function mobile(p: number, runId: number): FinalRecord {
  return mobileRecord(`AB${p}1AA`, "R1", [0, 1, 2, 3, 4, 5].slice(0, 2 + (p % 5)).map((k) => ratingsOf(p, k)), AT, runId);
}

/** The counts made here from the ratings written, per field then value. */
function expected(fields: readonly string[], postcodes: readonly number[]): number[][] {
  return fields.map((field) =>
    VALUES.map((v) => postcodes.reduce((n, p) => n + [0, 1, 2, 3, 4, 5].slice(0, 2 + (p % 5)).filter((k) => ratingsOf(p, k)[FIELDS.indexOf(field)] === v).length, 0)),
  );
}

describe("stored rating counts (SQLite)", () => {
  const POSTCODES = [1, 2, 3, 4, 5, 6];
  let t: MobileStore;
  let store: Store;
  let runId: number;
  beforeEach(async () => {
    t = await openMobileStore("pcc-rating-counts-", AT);
    ({ store, runId } = t);
    const w = await store.answers.openWriter({ providers: DEFAULT_PROVIDERS });
    for (const p of POSTCODES) w.write(mobile(p, runId));
    await w.flush();
  });
  afterEach(() => t.close());
  const sql = (statement: string) => t.sql(statement);
  const counts = (fields: readonly string[]) =>
    store.snapshot({ all: true, nowMs: NOW }, async (snapshot) => {
      await snapshot.preparePostcodes(4);
      return snapshot.ratingCounts(fields, VALUES);
    });

  it("stores each answer's counts in few characters, a 0 left empty", () => {
    const rows = [[100, "1 High St", ...FIELDS.map((f) => (f === "ProvAVoiceIndoor" ? 3 : f === "ProvADataIndoor" ? 0 : null))]];
    const text = ratingCountsText([...rows, ...rows], ",ProvA,ProvB,ProvC,ProvD,");
    expect(text.split(";")).toHaveLength(PLACES.length);
    expect(text.split(";").slice(0, 3)).toEqual([",,,2,", "2,,,,", ",,,,"]);
  });

  it("sums the stored counts, which equal a count of the addresses", async () => {
    expect(await counts(PLACES)).toEqual(expected(PLACES, POSTCODES));
    // the sums come from the stored counts: change one and the figure follows
    sql("UPDATE lookups SET rating_counts = '9,,,,;' || substr(rating_counts, instr(rating_counts, ';') + 1) WHERE postcode = 'AB11AA'");
    const changed = await counts(PLACES);
    expect(changed[0]![VALUES.indexOf(0)]).toBe(expected(PLACES, POSTCODES.slice(1))[0]![VALUES.indexOf(0)]! + 9);
  });

  it("counts an answer stored before the counts were (NULL) from its addresses", async () => {
    sql("UPDATE lookups SET rating_counts = NULL WHERE postcode IN ('AB11AA', 'AB41AA')");
    expect(await counts(PLACES)).toEqual(expected(PLACES, POSTCODES));
    sql("UPDATE lookups SET rating_counts = NULL");
    expect(await counts(PLACES)).toEqual(expected(PLACES, POSTCODES));
  });

  it("keeps a failed refresh's last answer counted, as its addresses are kept", async () => {
    const w = await store.answers.openWriter({ providers: DEFAULT_PROVIDERS });
    w.write({ postcode: "AB21AA", lookup: "mobile", status: "failed", httpStatus: 500, attempts: 3, lastError: "HTTP 500", fetchedAt: AT, runId });
    await w.flush();
    expect(await counts(PLACES)).toEqual(expected(PLACES, POSTCODES));
  });

  it("a new answer replaces the old one's counts, and a not-found has none", async () => {
    const w = await store.answers.openWriter({ providers: DEFAULT_PROVIDERS });
    w.write(mobile(9, runId));
    w.write(mobileRecord("AB11AA", "R1", [], AT, runId));
    w.write({ postcode: "AB31AA", lookup: "mobile", status: "not_found", httpStatus: 404, attempts: 1, lastError: null, fetchedAt: AT, runId });
    await w.flush();
    expect(await counts(PLACES)).toEqual(expected(PLACES, [2, 4, 5, 6, 9]));
  });

  it("counts a field that is no rating place from the addresses, as before", async () => {
    const outdoor = ["ProvAVoiceOutdoor", "ProvCDataOutdoor"];
    expect(await counts(outdoor)).toEqual(expected(outdoor, POSTCODES));
    expect(await counts([...PLACES.slice(0, 2), ...outdoor])).toEqual(expected([...PLACES.slice(0, 2), ...outdoor], POSTCODES));
  });
});
