// The definitions as SQLite evaluates them: tier boundaries (USO 10/1, 30, 300, 1000, -1 and absent
// values), the nesting the summary relies on, mobile notspots with the good rating, and the
// display form of postcodes.
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { broadbandMeasures, mobileMeasures, tierSql } from "../src/store/sql/measures.js";
import { displayPostcode, displayPostcodeSql, normalisePostcode } from "../src/contract/postcode.js";
import { tierOf } from "../src/figures/definitions.js";
import { mobileFields } from "../src/contract/fields.js";

const db = new Database(":memory:");
afterAll(() => db.close());

function tier(down: number | null, up: number | null): string {
  return db.prepare(`SELECT ${tierSql("a")} FROM (SELECT ? AS MaxPredictedDown, ? AS MaxPredictedUp) a`).pluck().get(down, up) as string;
}

describe("broadband tiers", () => {
  it.each([
    [null, null, "No data"],
    [-1, 5, "No data"],
    [0, 0, "Below decent"],
    [9.99, 50, "Below decent"],
    [10, 0.99, "Below decent"],
    [10, -1, "Below decent"],
    [10, null, "Below decent"],
    [10, 1, "Decent"],
    [29.9, 10, "Decent"],
    [30, 0.5, "Superfast"],
    [30, 1, "Superfast"],
    [299.9, 1, "Superfast"],
    [300, 1, "Ultrafast"],
    [999, 100, "Ultrafast"],
    [1000, 1000, "Gigabit"],
  ] as const)("down %s, up %s: %s", (down, up, expected) => {
    expect(tier(down, up)).toBe(expected);
    // the JavaScript form (changes.csv) agrees
    expect(tierOf(down, up)).toBe(expected);
  });

  it("the counts nest as the summary says: below decent within below superfast, gigabit within ultrafast within superfast", () => {
    const measures = broadbandMeasures("t.tier");
    const counts = (down: number | null, up: number | null) =>
      db
        .prepare(
          `SELECT ${measures.map((m) => `(CASE WHEN ${m.when} THEN 1 ELSE 0 END) AS ${m.column}`).join(", ")}
             FROM (SELECT ${tierSql("a")} AS tier FROM (SELECT ? AS MaxPredictedDown, ? AS MaxPredictedUp) a) t`,
        )
        .get(down, up) as Record<string, number>;
    for (const down of [null, -1, 0, 5, 9.99, 10, 15, 29.99, 30, 100, 300, 999, 1000, 2000])
      for (const up of [null, -1, 0.5, 1, 20]) {
        const c = counts(down, up);
        expect(c.BelowDecent! <= c.BelowSuperfast!).toBe(true);
        expect(c.Gigabit! <= c.Ultrafast! && c.Ultrafast! <= c.Superfast!).toBe(true);
        // every address is exactly one of: no data, below superfast, superfast
        expect(c.NoData! + c.BelowSuperfast! + c.Superfast!).toBe(1);
      }
  });
});

describe("mobile notspots", () => {
  const providers = ["ProvA", "ProvB"];
  const fields = mobileFields(providers);
  const measures = mobileMeasures("m", providers);
  /** ratings per provider: [VoiceIndoor, DataIndoor, DataIndoorNo4g]; every other field 4 */
  function evaluate(good: number, perProvider: [number | null, number | null, number | null][]): Record<string, number> {
    const values: Record<string, number | null> = Object.fromEntries(fields.map((f) => [f, 4]));
    providers.forEach((p, i) => {
      const [vi, di, diNo4g] = perProvider[i]!;
      values[`${p}VoiceIndoor`] = vi;
      values[`${p}DataIndoor`] = di;
      values[`${p}DataIndoorNo4g`] = diNo4g;
    });
    return db
      .prepare(
        `SELECT ${measures.map((m) => `(CASE WHEN ${m.when} THEN 1 ELSE 0 END) AS ${m.column}`).join(", ")}
           FROM (SELECT ${fields.map((f) => `@${f} AS ${f}`).join(", ")}) m`,
      )
      .get({ ...values, good }) as Record<string, number>;
  }

  it("per provider below the good rating; total when no provider is good, partial when some are", () => {
    const some = evaluate(3, [[3, 3, 2], [2, 1, 1]]);
    expect(some).toMatchObject({
      ProvAIndoorVoiceNotspots: 0,
      ProvBIndoorVoiceNotspots: 1,
      ProvAIndoorDataNeeds4g: 1,
      ProvBIndoorDataNeeds4g: 0,
      IndoorVoiceTotalNotspots: 0,
      IndoorVoicePartialNotspots: 1,
      IndoorDataTotalNotspots: 0,
      IndoorDataPartialNotspots: 1,
    });
    expect(evaluate(3, [[2, 0, 0], [1, 2, 2]])).toMatchObject({ IndoorVoiceTotalNotspots: 1, IndoorVoicePartialNotspots: 0, IndoorDataTotalNotspots: 1 });
    expect(evaluate(3, [[4, 4, 4], [3, 3, 3]])).toMatchObject({ IndoorVoiceTotalNotspots: 0, IndoorVoicePartialNotspots: 0, ProvBIndoorDataNeeds4g: 0 });
  });

  it("the good rating moves the line", () => {
    expect(evaluate(2, [[2, 2, 2], [2, 2, 2]]).IndoorVoiceTotalNotspots).toBe(0);
    expect(evaluate(4, [[3, 3, 3], [3, 3, 3]]).IndoorVoiceTotalNotspots).toBe(1);
  });

  it("a missing rating counts only where the ratings present decide", () => {
    // ProvB unknown: ProvA good decides "not total"; whether it is partial is unknown
    expect(evaluate(3, [[3, 3, 3], [null, null, null]])).toMatchObject({ IndoorVoiceTotalNotspots: 0, IndoorVoicePartialNotspots: 0, ProvBIndoorVoiceNotspots: 0 });
    // ProvA not good decides "not all good": with ProvB unknown, total is unknown
    expect(evaluate(3, [[1, 1, 1], [null, null, null]])).toMatchObject({ IndoorVoiceTotalNotspots: 0, ProvAIndoorVoiceNotspots: 1 });
  });
});

describe("postcode display form", () => {
  it("in SQL and in TypeScript, matches the postcode package's normalised form", () => {
    for (const p of ["SW1A 2AA", "B1 1AA", "B10 1AA", "M1 1AE", "CR2 6XH", "DN55 1PT", "W1A 0AX", "EC1A 1BB", "CF10 1AA"]) {
      const n = normalisePostcode(p);
      if (!n.ok) throw new Error(p);
      expect(db.prepare(`SELECT ${displayPostcodeSql("p")} FROM (SELECT ? AS p)`).pluck().get(n.compact)).toBe(n.display);
      expect(displayPostcode(n.compact)).toBe(n.display);
    }
  });
});
