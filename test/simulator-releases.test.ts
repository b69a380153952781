// The simulator's dataset releases: deterministic, about a tenth of postcodes changed per release,
// mostly upgrades, a new mobile DBName, and served over HTTP with --release.
import { describe, expect, it } from "vitest";
import { generatePostcode, generatePostcodes, LIVE_DB_NAME, releaseDbName, startSimulator } from "../src/simulator/index.js";
import { API_KEY_HEADER, lookupPath } from "../src/contract/types.js";

const SEED = 21;
const postcodes = generatePostcodes(SEED, 1000);

describe("simulator releases", () => {
  it("release 1 is the base dataset; release 2 changes about a tenth of postcodes, mostly upwards, the same every time", () => {
    let changed = 0;
    let faster = 0;
    let slower = 0;
    for (const p of postcodes) {
      const one = generatePostcode(SEED, p, undefined, 1);
      expect(one).toEqual(generatePostcode(SEED, p));
      const two = generatePostcode(SEED, p, undefined, 2);
      expect(two).toEqual(generatePostcode(SEED, p, undefined, 2));
      if (!one || !two) {
        expect(one).toBe(two); // a postcode the service does not know stays unknown
        continue;
      }
      expect(two.release).toBe(2);
      if (JSON.stringify(one.addresses) !== JSON.stringify(two.addresses)) changed++;
      const before = new Map(one.addresses.map((a) => [a.UPRN, a.speeds.MaxPredictedDown]));
      for (const a of two.addresses) {
        const was = before.get(a.UPRN);
        if (was !== undefined && a.speeds.MaxPredictedDown > was) faster++;
        if (was !== undefined && a.speeds.MaxPredictedDown < was) slower++;
      }
    }
    expect(changed).toBeGreaterThan(60);
    expect(changed).toBeLessThan(140);
    expect(faster).toBeGreaterThan(3 * slower);
    expect(slower).toBeGreaterThan(0);
  });

  it("names each release's mobile DBName; release 1 keeps the live one", async () => {
    expect(releaseDbName(1)).toBe(LIVE_DB_NAME);
    expect(releaseDbName(2)).not.toBe(LIVE_DB_NAME);
    const known = postcodes.find((p) => generatePostcode(SEED, p) !== null)!;
    const sim = await startSimulator({ port: 0, seed: SEED, key: "k", release: 2 });
    try {
      const res = await fetch(sim.url + lookupPath("mobile", known.replace(" ", "")), { headers: { [API_KEY_HEADER]: "k" } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { DBName: string }).DBName).toBe(releaseDbName(2));
    } finally {
      await sim.close();
    }
    await expect(startSimulator({ release: 0 })).rejects.toThrow(/release must be a whole number 1..1000/);
  });
});
