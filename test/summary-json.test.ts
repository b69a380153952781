// summary.json written in chunks (src/report/json): the same bytes JSON.stringify(summary, null, 2)
// wrote, for the golden report's summary and for values that test JSON's own rules; and a group's
// packed estimates (src/report/estimates/packed-domain.ts), read one share at a time and written as
// the EstimatedDomain they were made from.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { prettyJsonChunks } from "../src/report/json/json-pieces.js";
import { writeSummaryJson } from "../src/report/json/summary-json.js";
import { PackedDomain, ShareKeys } from "../src/report/estimates/packed-domain.js";
import type { EstimatedDomain } from "../src/report/estimates/types.js";
import type { Summary } from "../src/report/summary/summary.js";
import { tempDir } from "./helpers/batch-harness.js";

const golden = JSON.parse(readFileSync(new URL("./fixtures/report-golden/summary.json", import.meta.url), "utf8")) as unknown;
const joined = (value: unknown, indent?: number) => [...prettyJsonChunks(value, indent)].join("");

describe("JSON in chunks", () => {
  it.each([
    ["the golden report's summary", golden],
    ["what an object leaves out, an array writes as null", { a: undefined, b: () => 1, c: [undefined, () => 2, Symbol("s"), NaN, -Infinity, -0], d: Symbol("t"), e: 1 }],
    ["toJSON, a Date's and one's own, and one that answers undefined", { when: new Date(Date.UTC(2026, 10, 28)), own: { toJSON: (key: string) => ({ key }) }, gone: { toJSON: () => undefined } }],
    ["empty and nested containers", { a: {}, b: [], c: [[[]], [{}], { d: [] }], e: null, f: true }],
    ["text that JSON escapes", { 'quote " and \\ back': "line\nbreak\r\ttab \u2028 \u0000 é 👍" }],
    ["a bare value", 42],
    ["a bare string", "x"],
    ["an empty array", []],
  ])("%s: the text JSON.stringify gives", (_, value) => {
    expect(joined(value)).toBe(JSON.stringify(value, null, 2));
    expect(joined(value, 4)).toBe(JSON.stringify(value, null, 4));
  });

  it("a large value: chunks of at least 64 KiB but the last, and the same text", () => {
    const groups = Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`G${i}`, { postcodes: i, shares: Object.fromEntries(Array.from({ length: 12 }, (_, k) => [`s${k}`, { estimate: i / 3_001, low: k / 13, high: null }])) }]));
    const value = { about: "x", estimates: { groups: { district: groups }, list: [1, 2, 3] } };
    const chunks = [...prettyJsonChunks(value)];
    expect(chunks.length).toBeGreaterThan(10);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.length).toBeGreaterThanOrEqual(64 * 1024);
    expect(chunks.join("")).toBe(JSON.stringify(value, null, 2));
  });
});

describe("a group's packed estimates", () => {
  const keys = new ShareKeys(["belowSuperfast", "indoorVoiceTotalNotspot", "gigabit"]);
  const domain: EstimatedDomain = {
    postcodes: 12,
    answeredPostcodes: 5,
    answeredPerLookup: { broadband: 6, mobile: 5 },
    exact: false,
    shares: {
      belowSuperfast: { estimate: 0.25, low: 0.1, high: 0.5, auxiliary: true },
      indoorVoiceTotalNotspot: { estimate: null, low: null, high: null },
      gigabit: { estimate: 1 / 3, low: null, high: null },
    },
  };
  const packed = new PackedDomain(domain, keys);

  it("gives each share as it was, and nothing for a share it does not have", () => {
    for (const [key, interval] of Object.entries(domain.shares)) expect(packed.share(key)).toEqual(interval);
    expect(packed.share("ultrafast")).toBeUndefined();
    expect([packed.postcodes, packed.answeredPostcodes, packed.answeredPerLookup, packed.exact]).toEqual([12, 5, { broadband: 6, mobile: 5 }, false]);
  });

  it("is written as the EstimatedDomain it was made from, its keys in the same order", () => {
    expect(JSON.stringify(packed, null, 2)).toBe(JSON.stringify(domain, null, 2));
    expect(joined({ district: { LS1: packed } })).toBe(JSON.stringify({ district: { LS1: domain } }, null, 2));
  });

  it("takes the shares as a list in the keys' order the same as by name", () => {
    const ordered = new PackedDomain({ ...domain, shares: keys.keys.map((k) => domain.shares[k]!) }, keys);
    expect(JSON.stringify(ordered)).toBe(JSON.stringify(domain));
    expect(ordered.share("belowSuperfast")).toEqual(domain.shares.belowSuperfast);
  });

  it("gives an exact domain's shares, each held as one number, back as they were", () => {
    const exact: EstimatedDomain = {
      ...domain,
      exact: true,
      shares: {
        belowSuperfast: { estimate: 0.2, low: 0.2, high: 0.2 },
        indoorVoiceTotalNotspot: { estimate: null, low: null, high: null },
        gigabit: { estimate: 0, low: 0, high: 0 },
      },
    };
    const packedExact = new PackedDomain(exact, keys);
    expect(JSON.stringify(packedExact)).toBe(JSON.stringify(exact));
    expect(packedExact.share("belowSuperfast")).toEqual(exact.shares.belowSuperfast);
    // one interval among points keeps every share's three numbers
    const mixed = { ...exact, shares: { ...exact.shares, gigabit: { estimate: 0.1, low: 0.05, high: 0.2 } } };
    expect(JSON.stringify(new PackedDomain(mixed, keys))).toBe(JSON.stringify(mixed));
  });

  it("refuses a share its keys have no place for", () => {
    expect(() => new PackedDomain({ ...domain, shares: { noData: { estimate: 0, low: 0, high: 0 } } }, keys)).toThrow(/no place for the share noData/);
    const one = { estimate: 0, low: 0, high: 0 };
    expect(() => new PackedDomain({ ...domain, shares: [one, one, one, one] }, keys)).toThrow(/no place for the share number 4/);
  });
});

describe("summary.json", () => {
  const dir = tempDir();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("holds the summary as JSON.stringify(summary, null, 2) wrote it, with a line end", async () => {
    const path = join(dir, "summary.json");
    await writeSummaryJson(golden as Summary, path);
    expect(readFileSync(path, "utf8")).toBe(JSON.stringify(golden, null, 2) + "\n");
  });
});
