// Where the batch's CPU per postcode goes, beyond what the bare loop also does (HTTP and JSON.parse):
// the same answers run through the project's own classifier (validation included) and its own
// answer writer, each timed alone in this process. Done on the simulator's bodies for the same
// postcodes, so the figures add up against the overhead scenario's CPU per postcode.
import { join } from "node:path";
import { classify } from "../../src/fetch/classify.js";
import { normalisePostcode } from "../../src/contract/postcode.js";
import { generatePostcode, generatePostcodes, okBodyText } from "../../src/simulator/index.js";
import { DEFAULT_PROVIDERS, LOOKUPS, type Lookup } from "../../src/contract/fields.js";
import type { FinalRecord } from "../../src/contract/records.js";
import { openStore } from "../../src/store/open-store.js";
import { BENCH_SEED } from "./input-file.js";

export interface CostBreakdown {
  postcodes: number;
  /** CPU ms per postcode (both lookups) */
  jsonParseMs: number;
  classifyMs: number;
  storeMs: number;
}

export async function measureCostBreakdown(dir: string, n: number): Promise<CostBreakdown> {
  const providers = DEFAULT_PROVIDERS;
  const bodies: { lookup: Lookup; postcode: string; body: string }[] = [];
  for (const display of generatePostcodes(BENCH_SEED, n)) {
    const data = generatePostcode(BENCH_SEED, display, providers);
    const normalised = normalisePostcode(display);
    if (!data || !normalised.ok) continue; // a 404 costs next to nothing on either side
    for (const lookup of LOOKUPS) bodies.push({ lookup, postcode: normalised.compact, body: okBodyText(lookup, "live", data, providers) });
  }

  const parse = cpuMs(() => {
    for (const b of bodies) JSON.parse(b.body);
  });
  const records: FinalRecord[] = [];
  const fetchedAt = new Date().toISOString();
  const classifyMs = cpuMs(() => {
    for (const b of bodies) {
      const outcome = classify({ lookup: b.lookup, requested: b.postcode, providers, status: 200, headers: {}, body: b.body, now: Date.now() });
      if (outcome.kind !== "ok") throw new Error(`cost breakdown: the simulator's body for ${b.postcode} did not validate`);
      records.push({ postcode: b.postcode, lookup: b.lookup, status: "ok", httpStatus: 200, attempts: 1, lastError: null, fetchedAt, runId: 0, answer: outcome.answer });
    }
  });
  const store = await openStore(join(dir, "breakdown.sqlite"));
  try {
    await store.answers.prepareProviders(providers);
    const runId = await store.runs.create({ startedAt: fetchedAt, simulated: true, inputName: "bench", args: {}, lookups: [...LOOKUPS], providers });
    const writer = await store.answers.openWriter({ providers });
    for (const r of records) r.runId = runId;
    // one commit per answer: the batch's worst case (it commits answers that arrive together at once)
    const before = process.cpuUsage();
    for (const r of records) {
      writer.write(r);
      await writer.flush();
    }
    const storeMs = cpuSince(before);
    return { postcodes: n, jsonParseMs: parse / n, classifyMs: classifyMs / n, storeMs: storeMs / n };
  } finally {
    await store.close();
  }
}

function cpuMs(work: () => void): number {
  const before = process.cpuUsage();
  work();
  return cpuSince(before);
}

function cpuSince(before: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}
