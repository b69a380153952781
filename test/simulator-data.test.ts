// The simulator's dataset at generator level: no HTTP.
import { describe, expect, it } from "vitest";
import { isValid } from "postcode";
import { CHANNELS, DEFAULT_PROVIDERS, NO_PREDICTION, SPEED_CATEGORIES, SPEED_FIELDS, mobileField, mobileFields } from "../src/spec/fields.js";
import {
  MAX_UPRN,
  broadbandItems,
  compactPostcode,
  generatePostcode,
  generatePostcodes,
  mobileItems,
  type SimAddress,
} from "../src/simulator/index.js";

const postcodes = generatePostcodes(1, 2000);
const known = postcodes.map((p) => generatePostcode(1, p)).filter((d) => d !== null);
const addresses: SimAddress[] = known.flatMap((d) => d.addresses);

describe("generatePostcodes", () => {
  it("gives n distinct valid postcodes, the same for the same seed", () => {
    expect(postcodes).toHaveLength(2000);
    expect(new Set(postcodes).size).toBe(2000);
    for (const p of postcodes) {
      expect(isValid(p)).toBe(true);
      expect(p).toMatch(/^[A-Z0-9]{2,4} [0-9][A-Z]{2}$/);
    }
    expect(generatePostcodes(1, 50)).toEqual(postcodes.slice(0, 50));
    expect(generatePostcodes(2, 50)).not.toEqual(postcodes.slice(0, 50));
  });
});

describe("generatePostcode", () => {
  it("is deterministic per (seed, postcode) and ignores case and spacing", () => {
    const p = postcodes[0]!;
    const a = generatePostcode(1, p) ?? generatePostcode(1, postcodes[1]!);
    expect(a).not.toBeNull();
    const compact = a!.PostCode;
    expect(generatePostcode(1, compact)).toEqual(a);
    expect(generatePostcode(1, ` ${compact.toLowerCase().slice(0, -3)}  ${compact.slice(-3).toLowerCase()}`)).toEqual(a);
    expect(generatePostcode(2, compact)).not.toEqual(a);
    expect(generatePostcode("1", compact)).toEqual(a);
  });

  it("knows about 97% of valid postcodes and none of the invalid strings", () => {
    const unknown = 1 - known.length / postcodes.length;
    expect(unknown).toBeGreaterThan(0.015);
    expect(unknown).toBeLessThan(0.045);
    expect(generatePostcode(1, "NOT A POSTCODE")).toBeNull();
    expect(compactPostcode("sw1a 2aa")).toBe("SW1A2AA");
  });

  it("gives 1-60 addresses, about 1% of postcodes several hundred", () => {
    const counts = known.map((d) => d.addresses.length);
    const large = counts.filter((n) => n > 60);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(1);
    expect(counts.filter((n) => n <= 60).length).toBeGreaterThan(known.length * 0.97);
    expect(large.length).toBeGreaterThan(3);
    expect(large.length).toBeLessThan(known.length * 0.03);
    for (const n of large) expect(n).toBeGreaterThanOrEqual(200);
    const mean = addresses.length / known.length;
    expect(mean).toBeGreaterThan(12);
    expect(mean).toBeLessThan(35);
  });

  it("makes JS-safe UPRNs of up to 12 digits, mostly above 2^31, unique", () => {
    const uprns = addresses.map((a) => a.UPRN);
    expect(uprns.filter((u) => !Number.isSafeInteger(u) || u <= 0 || u > MAX_UPRN)).toEqual([]);
    expect(uprns.filter((u) => u > 2 ** 31).length).toBeGreaterThan(uprns.length * 0.8);
    expect(uprns.some((u) => u < 2 ** 31)).toBe(true);
    expect(new Set(uprns).size).toBe(uprns.length);
  });

  it("writes real-looking descriptions with commas, quotes, Welsh letters and formula starts", () => {
    const texts = addresses.map((a) => a.AddressShortDescription);
    expect(texts.every((t) => t.includes(", "))).toBe(true);
    expect(texts.some((t) => /^FLAT \d+, \d+, [A-Z]/.test(t))).toBe(true);
    expect(texts.some((t) => t.includes('"'))).toBe(true);
    expect(texts.some((t) => t.includes("ŵ"))).toBe(true);
    expect(texts.some((t) => t.includes("ŷ"))).toBe(true);
    const formula = texts.filter((t) => /^[=+\-@]/.test(t)).length / texts.length;
    expect(formula).toBeGreaterThan(0.003);
    expect(formula).toBeLessThan(0.03);
  });

  it("has plausible speeds: -1 for no prediction, the overall maximum from the best category", () => {
    const bad: string[] = [];
    let allNone = 0;
    for (const a of addresses) {
      const s = a.speeds;
      const why = (text: string) => bad.push(`${a.UPRN}: ${text} ${JSON.stringify(s)}`);
      if (Object.keys(s).sort().join() !== [...SPEED_FIELDS].sort().join()) why("fields");
      for (const c of SPEED_CATEGORIES) if ((s[c.down] === NO_PREDICTION) !== (s[c.up] === NO_PREDICTION)) why("half a category");
      const present = SPEED_CATEGORIES.filter((c) => s[c.down] !== NO_PREDICTION);
      if (present.length === 0) {
        allNone++;
        if (s.MaxPredictedDown !== NO_PREDICTION || s.MaxPredictedUp !== NO_PREDICTION) why("max without category");
        continue;
      }
      const best = present.reduce((b, c) => (s[c.down] > s[b.down] ? c : b));
      if (s.MaxPredictedDown !== s[best.down] || s.MaxPredictedUp !== s[best.up]) why("max is not the best category");
      const inRange = (v: number, min: number, max: number) => v === NO_PREDICTION || (v >= min && v <= max);
      if (!inRange(s.MaxBbPredictedDown, 0.5, 29.9) || !inRange(s.MaxSfbbPredictedDown, 30, 80) || !inRange(s.MaxUfbbPredictedDown, 100, 1000))
        why("implausible speed");
    }
    expect(bad.slice(0, 5)).toEqual([]);
    expect(allNone).toBeGreaterThan(0);
    expect(allNone).toBeLessThan(addresses.length * 0.05);
  });

  it("has ratings 0-4 with No4g <= with-4G and Indoor <= Outdoor", () => {
    const fields = mobileFields().sort().join();
    const bad: string[] = [];
    const seen = new Set<number>();
    for (const a of addresses) {
      if (Object.keys(a.ratings).sort().join() !== fields) bad.push(`${a.UPRN}: fields`);
      for (const v of Object.values(a.ratings)) seen.add(v);
      for (const p of DEFAULT_PROVIDERS)
        for (const c of CHANNELS) {
          const r = (l: "Outdoor" | "Indoor", v: "" | "No4g") => a.ratings[mobileField(p, c, l, v)]!;
          for (const v of ["", "No4g"] as const) if (r("Indoor", v) > r("Outdoor", v)) bad.push(`${a.UPRN}: indoor > outdoor`);
          for (const l of ["Outdoor", "Indoor"] as const) if (r(l, "No4g") > r(l, "")) bad.push(`${a.UPRN}: No4g > 4G`);
        }
    }
    expect(bad.slice(0, 5)).toEqual([]);
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it("lists the same addresses for both lookups, and follows the providers given", () => {
    const d = known[0]!;
    const b = broadbandItems(d);
    const m = mobileItems(d, DEFAULT_PROVIDERS);
    expect(m.map((i) => [i.UPRN, i.AddressShortDescription])).toEqual(b.map((i) => [i.UPRN, i.AddressShortDescription]));
    const custom = generatePostcode(1, d.PostCode, ["Vod", "EE"])!;
    expect(custom.addresses.map((a) => a.UPRN)).toEqual(d.addresses.map((a) => a.UPRN));
    expect(Object.keys(custom.addresses[0]!.ratings).sort()).toEqual(mobileFields(["Vod", "EE"]).sort());
  });
});
