// npm run status: the last runs and what the database holds.
import { rmSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePostcode, generatePostcodes, startSimulator } from "../src/simulator/index.js";
import { openStore } from "../src/store/open-store.js";
import type { DatabaseStatus } from "../src/store/types.js";
import { formatStatus } from "../src/cli/status-text.js";
import { formatReleaseStatus } from "../src/cli/status-text.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { instantSleepClock } from "./helpers/fake-clock.js";
import { spawnCli } from "./helpers/child-cli.js";

const KEY = "Zr8-qW2v-K9pd-Hx3";
const env = { COVERAGE_API_KEY: KEY };
const postcodes = generatePostcodes(5, 12);
const unknown = postcodes.filter((p) => generatePostcode(5, p) === null).length;
let d: string;
let db: string;

beforeAll(async () => {
  d = tempDir("pcc-status-");
  db = join(d, "coverage.sqlite");
  const input = writeCsv(d, "in.csv", ["postcode", ...postcodes, "nonsense"]);
  const good = await startSimulator({ port: 0, seed: 5, key: KEY });
  // every mobile answer a 500: an outage, which after --outage-limit stops the run (exit 3) with the postcodes pending
  const bad = await startSimulator({ port: 0, seed: 5, key: KEY, failRate: 1 });
  try {
    // npm run status reads this database as a child, on the wall clock: the batches run on it too
    const deps = { clock: instantSleepClock };
    expect((await runIn(d, { in: input, baseUrl: good.url, lookups: "broadband" }, env, deps)).exitCode).toBe(0);
    // five postcodes fail one by one; the sixth 500 in a row makes it an outage, and --outage-limit 0s stops at once
    expect((await runIn(d, { in: input, baseUrl: bad.url, lookups: "mobile", retries: 0, outageLimit: "0s" }, env, deps)).exitCode).toBe(3);
  } finally {
    await Promise.all([good.close(), bad.close()]);
  }
});
afterAll(() => rmSync(d, { recursive: true, force: true }));

async function status(isAlive?: (pid: number) => boolean): Promise<DatabaseStatus> {
  const h = await openStore(db, { readonly: true, isAlive: isAlive && ((holder) => isAlive(holder.pid)) });
  try {
    return await h.status.database(10, Date.now());
  } finally {
    await h.close();
  }
}

describe("status", () => {
  it("lists the runs newest first with their counts, and the stored answers", async () => {
    const s = await status();
    expect(s.runs.map((r) => [r.id, r.state, r.exit_code])).toEqual([
      [2, "stopped", 3],
      [1, "completed", 0],
    ]);
    expect(s.runs[1]).toMatchObject({ input_rows: 13, postcodes: 12, rejects: 1, ok: 12 - unknown, not_found: unknown, requests: 12 });
    expect(s.runs[0]).toMatchObject({ failed: 5, pending: 7, retries: 0 });
    expect(s.runs[0]!.message).toMatch(/^mobile: stopped by an API outage: the API has failed \(HTTP 500\) for 0 s, past --outage-limit; a re-run resumes$/);
    expect(s.lookups.map((l) => [l.lookup, l.status, l.postcodes])).toEqual([
      ["broadband", "not_found", unknown],
      ["broadband", "ok", 12 - unknown],
      ["mobile", "failed", 5],
    ]);
    expect(s.postcodes).toBe(12);
    expect(s.addresses.broadband).toBeGreaterThan(0);
    expect(s.addresses.mobile).toBe(0);
    expect(s.failures).toEqual([{ lookup: "mobile", last_error: expect.stringMatching(/^HTTP 500/), postcodes: 5 }]);
    expect(s.lock).toBeNull();

    const text = formatStatus(s, db);
    expect(text).toContain("#2 ");
    expect(text).toContain("stopped, exit 3");
    expect(text).toContain(`lookups: ok ${12 - unknown}, not found ${unknown}, failed 0, pending 0`);
    expect(text).toContain("mobile failed: 5");
    expect(text).toMatch(/mobile x5: HTTP 500/);
  });

  it("says whether the lock's holder still runs", async () => {
    const w = await openStore(db);
    let taken;
    try {
      taken = await w.leases.take({ host: hostname(), pid: 424242, process: null }, Date.now(), 60_000);
    } finally {
      await w.close();
    }
    try {
      expect(formatStatus(await status(() => false), db)).toContain("lock: left by a killed batch (pid 424242");
      expect(formatStatus(await status(() => true), db)).toContain("lock: a batch is running (pid 424242");
    } finally {
      const w2 = await openStore(db);
      await w2.leases.release(taken.lease.id);
      await w2.close();
    }
  });

  it("npm run status prints it; --json gives the same as data; a missing database is one clear error", async () => {
    const [text, json, missing] = await Promise.all([
      spawnCli("status", ["--db", db]).done,
      spawnCli("status", ["--db", db, "--json", "--runs", "1"]).done,
      spawnCli("status", ["--db", join(d, "nope.sqlite")]).done,
    ]);
    expect(text.code).toBe(0);
    // the database status, then its releases (no --monthly-quota here: no quota plan)
    const reader = await openStore(db, { readonly: true });
    const releases = await reader.status.releases(Date.now());
    await reader.close();
    expect(releases.map((r) => r.lookup)).toEqual(["broadband"]);
    expect(text.stdout).toBe(formatStatus(await status(), db) + formatReleaseStatus(releases));
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as DatabaseStatus;
    expect(parsed.runs.map((r) => r.id)).toEqual([2]);
    expect(parsed.lookups).toEqual((await status()).lookups);
    expect((parsed as unknown as { releases: unknown }).releases).toEqual(releases);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`error: no database at ${join(d, "nope.sqlite")} (run a batch first, or give --db PATH)\n`);
  });
});
