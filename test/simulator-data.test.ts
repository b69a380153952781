// The simulator's dataset at generator level: no HTTP.
import { describe, expect, it } from "vitest";
import { isValid } from "postcode";
import { MAX_UPRN, CHANNELS, DEFAULT_PROVIDERS, NO_PREDICTION, SPEED_CATEGORIES, SPEED_FIELDS, mobileField, mobileFields } from "../src/contract/fields.js";
import {
  LIVE_BODY_EXTRAS,
  LIVE_DB_NAME,
  compactPostcode,
  generatePostcode,
  generatePostcodes,
  okBody,
  okBodyBytes,
  okBodyText,
  type SimAddress,
  type SimPostcode,
} from "../src/simulator/index.js";
import type { Dialect } from "../src/contract/types.js";

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

  it.each([
    ["current", [0, 3, 4]],
    ["legacy", [0, 1, 2, 3, 4]],
  ] as const)("on the %s scale has ratings %j with No4g <= with-4G and Indoor <= Outdoor", (scale, values) => {
    const addresses = postcodes.flatMap((p) => generatePostcode(1, p, DEFAULT_PROVIDERS, 1, scale)?.addresses ?? []);
    const fields = mobileFields();
    // For each provider and channel, where its four ratings sit in the field list.
    const groups = DEFAULT_PROVIDERS.flatMap((p) =>
      CHANNELS.map((c) => {
        const at = (l: "Outdoor" | "Indoor", v: "" | "No4g") => fields.indexOf(mobileField(p, c, l, v));
        return { out: at("Outdoor", ""), outNo4g: at("Outdoor", "No4g"), ind: at("Indoor", ""), indNo4g: at("Indoor", "No4g") };
      }),
    );
    const bad: string[] = [];
    const seen = new Set<number>();
    for (const a of addresses) {
      const r = a.ratings;
      if (r.length !== fields.length) bad.push(`${a.UPRN}: fields`);
      for (const v of r) seen.add(v);
      for (const g of groups) {
        if (r[g.ind]! > r[g.out]! || r[g.indNo4g]! > r[g.outNo4g]!) bad.push(`${a.UPRN}: indoor > outdoor`);
        if (r[g.outNo4g]! > r[g.out]! || r[g.indNo4g]! > r[g.ind]!) bad.push(`${a.UPRN}: No4g > 4G`);
      }
    }
    expect(bad.slice(0, 5)).toEqual([]);
    expect([...seen].sort()).toEqual(values);
  });

  it("lists the same addresses for both lookups, and follows the providers given", () => {
    const d = known[0]!;
    for (const dialect of ["spec", "live"] as const) {
      const b = itemsOf(okBody("broadband", dialect, d, DEFAULT_PROVIDERS));
      const m = itemsOf(okBody("mobile", dialect, d, DEFAULT_PROVIDERS));
      expect(m.map((i) => [i.UPRN, i.AddressShortDescription])).toEqual(b.map((i) => [i.UPRN, i.AddressShortDescription]));
    }
    const custom = generatePostcode(1, d.PostCode, ["Vod", "EE"])!;
    expect(custom.addresses.map((a) => a.UPRN)).toEqual(d.addresses.map((a) => a.UPRN));
    expect(custom.addresses[0]!.ratings).toHaveLength(mobileFields(["Vod", "EE"]).length);
    const item = itemsOf(okBody("mobile", "spec", custom, ["Vod", "EE"]))[0]!;
    expect(Object.keys(item)).toEqual(["UPRN", "AddressShortDescription", "PostCode", ...mobileFields(["Vod", "EE"])]);
  });
});

/** The address items of a 200 body in either dialect. */
function itemsOf(body: unknown): Record<string, unknown>[] {
  const top = (Array.isArray(body) ? body[0] : body) as { Availability: Record<string, unknown>[] };
  return top.Availability;
}

/** The 200 body built the plain way (objects in field-list order, then JSON.stringify), to hold the fast writer to. */
function expectedBody(lookup: "broadband" | "mobile", dialect: Dialect, d: SimPostcode, providers: readonly string[]): string {
  const live = dialect === "live";
  const fields = mobileFields(providers);
  const items = d.addresses.map((a) => {
    const item: Record<string, unknown> = { UPRN: a.UPRN, AddressShortDescription: a.AddressShortDescription, PostCode: d.PostCode };
    if (lookup === "broadband") for (const f of SPEED_FIELDS) item[f] = a.speeds[f];
    else fields.forEach((f, k) => (item[f] = a.ratings[k]));
    if (live) Object.assign(item, { Udprn: (a.UPRN % 99_999_989) + 1, Note: null });
    return item;
  });
  if (!live) return JSON.stringify(lookup === "broadband" ? { PostCode: d.PostCode, Availability: items } : [{ PostCode: d.PostCode, Availability: items }]);
  const head = lookup === "broadband" ? { PostCode: d.PostCode, Count: items.length } : { PostCode: d.PostCode, DBName: LIVE_DB_NAME };
  return JSON.stringify({ ...head, Availability: items, ...LIVE_BODY_EXTRAS });
}

describe("okBodyBytes", () => {
  it("writes exactly what JSON.stringify gives, for every lookup, dialect and provider list", () => {
    const sample = known.filter((_, i) => i % 7 === 0);
    // Also a large postcode, Welsh letters and quotes, and awkward numbers.
    sample.push(known.find((d) => d.addresses.length > 60)!);
    sample.push(known.find((d) => d.addresses.some((a) => /[ŵŷ"]/.test(a.AddressShortDescription)))!);
    const odd = structuredClone(sample[0]!);
    odd.addresses[0]!.UPRN = 999_999_999_999;
    odd.addresses[0]!.speeds.MaxBbPredictedDown = 0.1 + 0.2; // not one decimal
    odd.addresses[0]!.speeds.MaxBbPredictedUp = 1e9 + 0.5;
    odd.addresses[0]!.speeds.MaxSfbbPredictedDown = 1_000_000_000;
    odd.addresses[0]!.speeds.MaxSfbbPredictedUp = 0;
    sample.push(odd);
    for (const providers of [DEFAULT_PROVIDERS, ["EE", "Vod", "Three"]])
      for (const d of sample) {
        const data = providers === DEFAULT_PROVIDERS ? d : generatePostcode(1, d.PostCode, providers) ?? d;
        for (const lookup of ["broadband", "mobile"] as const)
          for (const dialect of ["spec", "live"] as const) {
            if (lookup === "mobile" && data.addresses[0]!.ratings.length !== mobileFields(providers).length) continue;
            const want = expectedBody(lookup, dialect, data, providers);
            expect(okBodyText(lookup, dialect, data, providers)).toBe(want);
            expect(okBodyBytes(lookup, dialect, data, providers).equals(Buffer.from(want, "utf8"))).toBe(true);
          }
      }
  });
});
