// The sample's design on a real SQLite store: strata from --group-by's input columns, and a seed
// the database keeps from its first batch, so every night plans the same order.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { planFetches } from "../src/plan/plan.js";
import { postcodeStratum } from "../src/plan/sample-order.js";
import { sampleDesign } from "../src/plan/sample-strata.js";
import { DEFAULT_PROVIDERS } from "../src/contract/fields.js";
import { openStore } from "../src/store/open-store.js";
import type { Store } from "../src/store/store.js";

const LETTERS = [..."ABDEFGHJLNPQRSTUWXYZ"];
// 4 districts of 150 postcodes; 5 wards across them of very different sizes, the file sorted by ward
const WARDS = [["Tiny", 12], ["Small", 48], ["Mid", 120], ["Large", 180], ["Huge", 240]] as const;
const postcodes = Array.from({ length: 4 }, (_, d) => Array.from({ length: 150 }, (_, i) => `CF${d + 1}${i % 10}${LETTERS[Math.floor(i / 10)]}${LETTERS[(i * 7 + d) % 20]}`)).flat();
const wardOf = new Map<string, string>();
{
  // each ward takes every k-th postcode, so that wards cut across districts
  let at = 0;
  for (const [ward, size] of WARDS) for (let i = 0; i < size; i++) wardOf.set(postcodes[(at++ * 7) % postcodes.length]!, ward);
}
const rows = [...postcodes].sort((a, b) => wardOf.get(a)!.localeCompare(wardOf.get(b)!) || a.localeCompare(b));

let dir = "";
let store: Store | null = null;
afterEach(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function storeWithRun(): Promise<{ store: Store; runId: number }> {
  dir = mkdtempSync(join(tmpdir(), "pcc-sample-"));
  store = await openStore(join(dir, "coverage.sqlite"));
  const runId = await store.runs.create({ startedAt: "2026-03-01T00:00:00.000Z", simulated: false, inputName: "in.csv", args: {}, lookups: ["broadband", "mobile"], providers: [...DEFAULT_PROVIDERS], leaseId: null });
  await store.runs.setInput(runId, ["postcode", "Ward"], "postcode");
  const w = await store.inputRows.openWriter(runId);
  for (const [i, p] of rows.entries()) await w.add({ line: i + 2, value: p, postcode: p, reason: null, cells: [p, wardOf.get(p)!] });
  await w.flush();
  return { store, runId };
}

const plan = (s: Store, runId: number, groupBy: string[], sampleSeed?: string) =>
  planFetches(s, { probe: 0, runId, lookups: ["broadband", "mobile"], freshSince: "2026-02-01T00:00:00.000Z", refresh: false, providers: DEFAULT_PROVIDERS, simulated: false, groupBy, sampleSeed });

describe("the sample's design", () => {
  it("with --group-by ward, any first n postcodes hold each ward's share and each district's, give or take a few", async () => {
    const { store: s, runId } = await storeWithRun();
    const order = (await plan(s, runId, ["ward"])).toFetch.get("broadband")!;
    expect(order).toHaveLength(600);
    for (const n of [25, 50, 100, 200]) {
      const head = order.slice(0, n);
      for (const [ward, size] of WARDS) expect(Math.abs(head.filter((p) => wardOf.get(p) === ward).length - (n * size) / 600), `${ward} in ${n}`).toBeLessThanOrEqual(4);
      for (let d = 1; d <= 4; d++) expect(Math.abs(head.filter((p) => postcodeStratum(p) === `CF${d}`).length - n / 4), `CF${d} in ${n}`).toBeLessThanOrEqual(5);
    }
    // the tiny ward (2% of the list) has its share in the first 50
    expect(order.slice(0, 50).filter((p) => wardOf.get(p) === "Tiny").length).toBeGreaterThanOrEqual(1);
    // both lookups take the same postcodes in the same order
    expect((await plan(s, runId, ["ward"])).toFetch.get("mobile")).toEqual(order);
  });

  it("keeps the seed its first batch chose: every night plans the same order; another database another", async () => {
    const { store: s, runId } = await storeWithRun();
    const first = await sampleDesign(s, runId, [], "chosen-first");
    expect(first.seed).toBe("chosen-first");
    expect((await sampleDesign(s, runId, [], "another")).seed).toBe("chosen-first");
    const night1 = (await plan(s, runId, ["district"])).toFetch.get("broadband");
    const night2 = (await plan(s, runId, ["district"], "yet-another")).toFetch.get("broadband");
    expect(night2).toEqual(night1);
    await s.close();
    store = null;
    rmSync(dir, { recursive: true, force: true });
    const { store: fresh, runId: freshRun } = await storeWithRun();
    // a new database first planned on another day keeps another seed: another order
    const other = await planFetches(fresh, { probe: 0, runId: freshRun, lookups: ["broadband"], freshSince: "2026-02-01T00:00:00.000Z", refresh: false, providers: DEFAULT_PROVIDERS, simulated: false, now: "2026-03-02T01:00:00.000Z" });
    expect(other.toFetch.get("broadband")).not.toEqual(night1);
    expect(await fresh.sample.seed("x")).toBe("sample-2026-03-02");
  });
});
