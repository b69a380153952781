// A mobile release's scale evidence is summed from each answer's counts, stored with it when it is
// written (src/store/sql/scale-sql.ts), not counted again from every rating: the sums must equal
// the count from the addresses, answers stored before the counts were (NULL) are counted from their
// addresses, and a failed refresh keeps the last answer's counts with its addresses.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_PROVIDERS, mobileFields } from "../src/contract/fields.js";
import type { FinalRecord } from "../src/contract/records.js";
import type { Store } from "../src/store/store.js";
import { openMobileStore, type MobileStore } from "./helpers/mobile-store.js";
import { mobileRecord } from "./helpers/records.js";

const AT = "2026-03-01T00:00:00.000Z";
const FIELDS = mobileFields(DEFAULT_PROVIDERS).length;

function mobile(postcode: string, dataset: string, value: number, runId: number): FinalRecord {
  const ratings = Array.from({ length: FIELDS }, (_, i) => (i === 0 ? value : 4));
  return mobileRecord(postcode, dataset, [ratings, ratings, ratings], AT, runId);
}

describe("stored scale evidence (SQLite)", () => {
  let t: MobileStore;
  let store: Store;
  let runId: number;
  beforeEach(async () => {
    t = await openMobileStore("pcc-evidence-", AT);
    ({ store, runId } = t);
    const w = await store.answers.openWriter({ providers: DEFAULT_PROVIDERS });
    // OLD: every address rated 1 once (legacy); NEW: 0/3/4 only (current)
    for (let i = 0; i < 4; i++) w.write(mobile(`OL${i}1AA`, "OLD", 1, runId));
    for (let i = 0; i < 4; i++) w.write(mobile(`NE${i}1AA`, "NEW", 3, runId));
    await w.flush();
  });
  afterEach(() => t.close());
  const sql = (statement: string) => t.sql(statement);
  const scales = async () => (await store.releases.recordScales(DEFAULT_PROVIDERS)).map((s) => [s.release, s.scale, s.ratings, s.legacyRatings]);
  // fetched at the same time: in the releases' name order
  const want = [
    ["NEW", "current", 4 * 3 * FIELDS, 0],
    ["OLD", "legacy", 4 * 3 * FIELDS, 4 * 3],
  ];

  it("sums the counts stored with each answer, which equal a count of its addresses", async () => {
    expect(await scales()).toEqual(want);
    // the sums come from the stored counts: raise them and the evidence follows
    sql("UPDATE lookups SET scale_legacy_ratings = 1 WHERE dataset = 'NEW'");
    expect((await scales())[0]).toEqual(["NEW", "legacy", 4 * 3 * FIELDS, 4]);
    // evidence only adds: counts that fall leave the release's record (and its scale) as it was
    sql("UPDATE lookups SET scale_legacy_ratings = 0 WHERE dataset = 'OLD'");
    expect((await scales())[1]).toEqual(["OLD", "legacy", 4 * 3 * FIELDS, 4 * 3]);
  });

  it("counts an answer stored before the counts were (NULL) from its addresses", async () => {
    sql("UPDATE lookups SET scale_ratings = NULL, scale_legacy_ratings = NULL WHERE postcode IN ('OL01AA', 'OL11AA', 'NE01AA')");
    expect(await scales()).toEqual(want);
  });

  it("keeps a failed refresh's last answer counted, as its addresses are kept", async () => {
    const w = await store.answers.openWriter({ providers: DEFAULT_PROVIDERS });
    w.write({ postcode: "OL01AA", lookup: "mobile", status: "failed", httpStatus: 500, attempts: 3, lastError: "HTTP 500", fetchedAt: AT, runId });
    await w.flush();
    expect(await scales()).toEqual(want);
  });
});
