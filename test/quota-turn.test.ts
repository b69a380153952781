// A run that crosses into a fresh quota period mid-run: what the old period's spent quota left for
// later is planned again under the new period's quota and answered that night, not reported as
// "quota exhausted ... wait for the next period's quota" while the new period has quota.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generatePostcodes, startSimulator } from "../src/simulator/index.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { FakeClock } from "./helpers/fake-clock.js";
import { withStore } from "./helpers/stored.js";

const KEY = "qt-7a1c-Hb20-93xe-L0pz";
const SEED = 17;
const env = { COVERAGE_API_KEY: KEY };
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const PERIOD = { lookups: "broadband", monthlyQuota: "40", quotaPeriod: "28", quotaStart: "2026-03-01", probe: 0, reports: false, retention: "none", maxAge: "60d", concurrency: 1 };

/**
 * A first night of 30 postcodes on March 1, then a night of 60 started five seconds before the
 * period that begins on March 29: its plan is made under the old period's 10 remaining requests.
 */
async function nightAtTheTurn(extra: Record<string, unknown>) {
  const d = tempDir("pcc-turn-");
  dirs.push(d);
  const all = generatePostcodes(SEED, 60);
  const sim = await startSimulator({ port: 0, seed: SEED, key: KEY });
  const clock = new FakeClock(Date.parse("2026-03-01T02:00:00Z"));
  try {
    const first = await runIn(d, { in: writeCsv(d, "a.csv", ["postcode", ...all.slice(0, 30)]), baseUrl: sim.url, ...PERIOD }, env, { clock });
    expect(first.exitCode).toBe(0);
    clock.t = Date.parse("2026-03-28T23:59:55Z");
    const r = await runIn(d, { in: writeCsv(d, "b.csv", ["postcode", ...all]), baseUrl: sim.url, ...PERIOD, rate: 60, ...extra }, env, { clock });
    return { r, log: r.logs.join("\n"), d, clock };
  } finally {
    await sim.close();
  }
}

describe("a run crossing into a fresh quota period", () => {
  it("plans again at the turn: the postcodes the old period's quota left out are answered from the new one's, in the ledger's new period", async () => {
    const { r, log, d, clock } = await nightAtTheTurn({});
    // before: exit 3, "broadband: quota exhausted, re-run resumes (--monthly-quota: 20 postcodes wait for the next period's quota)"
    expect(log).not.toMatch(/quota exhausted|wait for the next period's quota/);
    expect(log).toMatch(/broadband: the quota period turned during the run; planning again under the new period's quota/);
    expect(r.exitCode).toBe(0);
    expect(r.counts).toMatchObject({ pending: 0, requests: 30 });
    // the old period's 40 never overspent; the rest counted in the new period (from March 29)
    const used = (period: string) => withStore(join(d, "coverage.sqlite"), (store) => store.ledger.used("broadband", period, clock.t));
    expect(await used("2026-03-01")).toBeLessThanOrEqual(40);
    expect((await used("2026-03-01")) + (await used("2026-03-29"))).toBe(60);
  });

  it("with --max-requests (which bounds one plan's fetch) it says the period turned, not that the quota is exhausted", async () => {
    const { r, log } = await nightAtTheTurn({ maxRequests: 1000 });
    expect(r.exitCode).toBe(3);
    expect(log).not.toMatch(/quota exhausted|wait for the next period's quota/);
    expect(log).toMatch(/broadband: the quota period turned during the run, re-run resumes \(--monthly-quota: 20 postcodes were left for a later period by tonight's plan; the period that began 2026-03-29 has its quota for them\)/);
  });
});
