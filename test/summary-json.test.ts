// summary.json written in chunks (src/report/json): the same bytes JSON.stringify(summary, null, 2)
// wrote, for the golden report's summary and for values that test JSON's own rules; and a group's
// packed estimates (src/report/estimates/packed-domain.ts), read one share at a time and written as
// the EstimatedDomain they were made from. summary.json's groups bounded whatever their number
// (src/report/json/listed-groups.ts), and its schema (schema/summary.schema.json).
import { readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { prettyJsonChunks } from "../src/report/json/json-pieces.js";
import { summaryJson, SUMMARY_SCHEMA_VERSION, writeSummaryJson } from "../src/report/json/summary-json.js";
import { GROUPS_PER_RANKING, listDimension } from "../src/report/json/listed-groups.js";
import { byLocale, naturalOrder } from "../src/figures/name-order.js";
import type { Interval } from "../src/report/estimates/estimates.js";
import { readSummaryJson, SUMMARY_SCHEMA, summarySchemaErrors } from "./helpers/summary-json.js";
import { PackedDomain, ShareKeys } from "../src/report/estimates/packed-domain.js";
import type { EstimatedDomain, EstimatesSummary, GroupEstimate } from "../src/report/estimates/types.js";
import type { Summary } from "../src/report/summary/summary.js";
import { tempDir } from "./helpers/batch-harness.js";

const golden = JSON.parse(readFileSync(new URL("./fixtures/report-golden/summary.json", import.meta.url), "utf8")) as unknown;
const NO_SHARE: Interval = { estimate: null, low: null, high: null };
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

const keys = new ShareKeys(Object.keys((golden as { estimates: EstimatedDomain }).estimates.shares));
const interval = (x: number, auxiliary: boolean): Interval => ({ estimate: x, low: Math.max(0, x - 0.05), high: Math.min(1, x + 0.05), ...(auxiliary ? { auxiliary: true as const } : {}) });
/** A group's estimates made up from its number: sizes heavy-tailed, shares spread over [0, 1]. */
const group = (i: number) =>
  new PackedDomain(
    { postcodes: 1 + ((i * 7919) % 997) * ((i % 13) + 1), answeredPostcodes: i % 50, answeredPerLookup: { broadband: i % 50, mobile: i % 47 }, exact: false, shares: keys.keys.map((_, k) => (i % 11 === 0 ? NO_SHARE : interval(((i * 31 + k * 17) % 1000) / 1000, k % 3 === 0))) },
    keys,
  );
/** The golden report's summary with `dimensions` of groups: their estimates built directly, as computeEstimates makes them. */
function summaryWith(dimensions: Record<string, number>): Summary {
  const base = golden as Summary & { estimates: EstimatesSummary };
  let n = 0;
  const groups = Object.fromEntries(Object.entries(dimensions).map(([name, count]) => [name, Object.fromEntries(Array.from({ length: count }, () => [`${name}-${n}`, group(n++)]))]));
  return { ...base, estimates: { ...base.estimates, groups } };
}

describe("summary.json", () => {
  const dir = tempDir();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it("holds summaryJson's value as JSON.stringify(value, null, 2) writes it, with a line end, valid against the schema", async () => {
    const summary = summaryWith({ district: 30, sector: 120 });
    const path = join(dir, "summary.json");
    await writeSummaryJson(summary, path);
    const text = readFileSync(path, "utf8");
    expect(text).toBe(JSON.stringify(summaryJson(summary), null, 2) + "\n");
    expect(readSummaryJson(path).schemaVersion).toBe(SUMMARY_SCHEMA_VERSION);
  });

  it("stays under 5 MB with 15,000 groups: the largest and the worst of each dimension listed, and the rule in words", async () => {
    const summary = summaryWith({ district: 2_500, sector: 12_500 });
    // every group's estimates would be tens of megabytes
    expect(JSON.stringify(summary, null, 2).length).toBeGreaterThan(5_000_000);
    const path = join(dir, "summary-15000.json");
    await writeSummaryJson(summary, path);
    expect(statSync(path).size).toBeLessThanOrEqual(5_000_000);
    const written = readSummaryJson(path);
    for (const [dimension, count] of [["district", 2_500], ["sector", 12_500]] as const) {
      const all = Object.entries(summary.estimates!.groups[dimension]!);
      const listed = written.estimates!.groups[dimension]!;
      expect(listed.count).toBe(count);
      expect(listed.rule).toMatch(/^The 50 groups with the most postcodes .* every group's figures are in groups\.csv and the export's Parquet\.$/);
      const byPostcodes = [...all].sort(([a, x], [b, y]) => y.postcodes - x.postcodes || naturalOrder(a, b, byLocale)).slice(0, GROUPS_PER_RANKING);
      expect(listed.rankings.largest).toEqual(byPostcodes.map(([g]) => g));
      const estimate = (g: GroupEstimate) => g.share("belowSuperfast")?.estimate ?? null;
      const worst = all.filter(([, g]) => estimate(g) !== null).sort(([a, x], [b, y]) => estimate(y)! - estimate(x)! || naturalOrder(a, b, byLocale));
      expect(listed.rankings["worst belowSuperfast"]).toEqual(worst.slice(0, GROUPS_PER_RANKING).map(([g]) => g));
      expect(Object.keys(listed.rankings)).toEqual(["largest", "worst belowSuperfast", "worst indoorVoiceTotalNotspot"]);
      const names = new Set(Object.values(listed.rankings).flat());
      expect(Object.keys(listed.list).sort()).toEqual([...names].sort());
      expect(listed.listed).toBe(names.size);
      const [name, first] = byPostcodes[0]!;
      expect(listed.list[name]).toEqual({
        postcodes: first.postcodes,
        answeredPostcodes: first.answeredPostcodes,
        answeredPerLookup: first.answeredPerLookup,
        exact: false,
        shares: { belowSuperfast: first.share("belowSuperfast"), indoorVoiceTotalNotspot: first.share("indoorVoiceTotalNotspot") },
        listedAs: expect.arrayContaining(["largest"]),
      });
    }
  });

  it("lists a dimension of fewer groups than a ranking whole", () => {
    const written = summaryJson(summaryWith({ ward: 7 }));
    expect(written.estimates!.groups.ward!.count).toBe(7);
    expect(Object.keys(written.estimates!.groups.ward!.list)).toHaveLength(7);
  });
});

describe("summary.json's schema", () => {
  it("is shipped with the package, and versioned as the code writes it", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { files: string[] };
    expect(pkg.files).toContain("schema");
    expect(SUMMARY_SCHEMA.$id).toBe(`urn:postcode-coverage:summary:v${SUMMARY_SCHEMA_VERSION}`);
    expect(SUMMARY_SCHEMA.properties.schemaVersion.const).toBe(SUMMARY_SCHEMA_VERSION);
  });

  it("refuses a field it does not document, a wrong type, a missing field and another version", () => {
    const value = summaryJson(summaryWith({ district: 3 })) as unknown as Record<string, unknown>;
    expect(summarySchemaErrors(value)).toEqual([]);
    expect(summarySchemaErrors({ ...value, extra: 1 }).join()).toMatch(/must NOT have additional properties/);
    expect(summarySchemaErrors({ ...value, runId: "7" }).join()).toMatch(/\/runId must be integer,null/);
    const { attribution: _, ...without } = value;
    expect(summarySchemaErrors(without).join()).toMatch(/must have required property 'attribution'/);
    expect(summarySchemaErrors({ ...value, schemaVersion: SUMMARY_SCHEMA_VERSION + 1 }).join()).toMatch(/\/schemaVersion must be equal to constant/);
  });
});

describe("summary.json's worst groups", () => {
  const group = (postcodes: number, share: Interval): GroupEstimate => ({
    postcodes,
    answeredPostcodes: postcodes,
    answeredPerLookup: { broadband: postcodes, mobile: postcodes },
    exact: false,
    share: (key: string) => (key === "belowSuperfast" ? share : undefined),
    toJSON: () => ({}) as EstimatedDomain,
  }) as unknown as GroupEstimate;
  it("ranks as the reports do, by the low end of each group's interval: one address at 100% does not lead a large group clearly worse off", () => {
    const d = listDimension(
      {
        DY: group(1, { estimate: 1, low: 0.21, high: 1 }),
        SA: group(120, { estimate: 0.96, low: 0.94, high: 0.97 }),
        CF: group(80, { estimate: 0.5, low: 0.4, high: 0.6 }),
      },
      ["belowSuperfast"],
    );
    expect(d.rankings["worst belowSuperfast"]).toEqual(["SA", "CF", "DY"]);
    expect(d.rule).toMatch(/low end of each estimate's 95% interval/);
  });
});
