// The quota counts what the API could have seen: a request sent on a connection made to it. A host
// name that does not resolve or a refused connection never reached it, so it spends no quota and
// the ledger (which the metrics file's quota_used_requests reads) holds no row for it. A request the
// run abandons in flight after it went out may have been counted, so its row stays. One sent whose
// row the database failed to write (a server restart) stays counted by its reservation.
import http from "node:http";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { AddressInfo, LookupFunction } from "node:net";
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";
import { NetworkError, createHttpClient } from "../src/fetch/http-client.js";
import { quotaPeriod } from "../src/plan/quota-plan.js";
import { generatePostcodes, startSimulator } from "../src/simulator/index.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { FakeClock } from "./helpers/fake-clock.js";
import { withStore } from "./helpers/stored.js";
import { freshPostgresDatabase, requiresPostgres } from "./helpers/postgres.js";

const KEY = "unsent-key-5b7e-4Qx-31aa";
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A resolver that fails as a name that does not exist, without asking any DNS server. */
const noSuchHost: LookupFunction = (hostname, _options, callback) => {
  const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND", hostname });
  process.nextTick(() => (callback as (e: NodeJS.ErrnoException) => void)(err));
};

async function refusedPort(): Promise<number> {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  return port;
}

async function failureOf(url: string, lookup?: LookupFunction): Promise<NetworkError> {
  const client = createHttpClient({ maxSockets: 1, timeoutMs: 5000, maxBodyBytes: 1000, ...(lookup ? { lookup } : {}) });
  try {
    const err = await client.get(new URL(url), {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    return err as NetworkError;
  } finally {
    client.close();
  }
}

describe("the HTTP client says whether a failed request reached the server", () => {
  it("a refused connection and an unresolved name did not; a connection dropped after the request did", async () => {
    const refused = await failureOf(`http://127.0.0.1:${await refusedPort()}/x`);
    expect([refused.failure, refused.reached]).toEqual(["refused", false]);
    const dns = await failureOf("http://nonexistent.invalid/x", noSuchHost);
    expect([dns.failure, dns.reached]).toEqual(["dns", false]);
    const dropping = http.createServer((req) => req.socket.destroy());
    await new Promise<void>((resolve) => dropping.listen(0, "127.0.0.1", resolve));
    try {
      const reset = await failureOf(`http://127.0.0.1:${(dropping.address() as AddressInfo).port}/x`);
      expect([reset.failure, reset.reached]).toEqual(["reset", true]);
    } finally {
      await new Promise((resolve) => dropping.close(resolve));
    }
  });
});

describe("a night whose requests never reach the API", () => {
  const night = async (baseUrl: string, deps: { resolveHost?: LookupFunction } = {}) => {
    const d = tempDir("pcc-unsent-");
    dirs.push(d);
    const clock = new FakeClock(Date.parse("2026-03-03T02:00:00Z"));
    const input = writeCsv(d, "in.csv", ["postcode", ...generatePostcodes(3, 4)]);
    const r = await runIn(d, { in: input, baseUrl, monthlyQuota: "100", reports: false }, { COVERAGE_API_KEY: KEY }, { clock, ...deps });
    const used = await withStore(join(d, "coverage.sqlite"), async (store) => (await store.ledger.figures(quotaPeriod(clock.t).key, clock.t)).used);
    return { r, used };
  };

  it("refused connections spend no quota", async () => {
    const { r, used } = await night(`http://127.0.0.1:${await refusedPort()}`);
    expect(r.exitCode).toBe(1);
    expect(r.logs.join("\n")).toMatch(/refused/);
    expect(used).toEqual({ broadband: 0, mobile: 0 });
  });

  it("a host name that does not resolve spends no quota", async () => {
    const { r, used } = await night("https://nonexistent.invalid", { resolveHost: noSuchHost });
    expect(r.exitCode).toBe(1);
    expect(r.logs.join("\n")).toMatch(/ENOTFOUND|dns/);
    expect(used).toEqual({ broadband: 0, mobile: 0 });
  });
});

describe("requests abandoned in flight", () => {
  it("are in the ledger when they reached the API: a key the other lookup refuses abandons them, and their reservation stays spent", async () => {
    const d = tempDir("pcc-unsent-");
    dirs.push(d);
    const clock = new FakeClock(Date.parse("2026-03-03T02:00:00Z"));
    // broadband's answers never come; mobile refuses the broadband key the batch sends it, at once
    const sim = await startSimulator({ port: 0, seed: 17, key: KEY, mobileKey: `${KEY}-mobile`, stallRate: 1, now: () => clock.t });
    try {
      const input = writeCsv(d, "in.csv", ["postcode", ...generatePostcodes(17, 20)]);
      const r = await runIn(d, { in: input, baseUrl: sim.url, monthlyQuota: "100", probe: 0, reports: false, concurrency: 4 }, { COVERAGE_API_KEY: KEY }, { clock });
      expect(r.exitCode).toBe(1);
      expect(r.logs.join("\n")).toMatch(/"stopReason":"auth"/);
      const used = await withStore(join(d, "coverage.sqlite"), async (store) => (await store.ledger.figures(quotaPeriod(clock.t).key, clock.t)).used);
      expect(used.broadband).toBeGreaterThan(0);
      // the service reads each abandoned request off its connection a moment after the run ends
      await vi.waitFor(() => expect(sim.counters.requests).toEqual(used), { timeout: 5000, interval: 10 });
    } finally {
      await sim.close();
    }
  });
});

/** Makes the database refuse its `nth` request_ledger row, once, as a server restarting would end the session (57P01). */
async function failNthLedgerRow(url: string, nth: number): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE TABLE fault (n int); INSERT INTO fault VALUES (0);
      CREATE FUNCTION fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN UPDATE fault SET n = n + 1;
        IF (SELECT n FROM fault) = ${nth} THEN RAISE EXCEPTION 'terminating connection due to administrator command' USING ERRCODE = '57P01'; END IF;
        RETURN NEW; END $$;
      CREATE TRIGGER fail_once BEFORE INSERT ON request_ledger FOR EACH ROW EXECUTE FUNCTION fail_once();`);
  } finally {
    await admin.end();
  }
}

describe.skipIf(requiresPostgres().skip)("requests whose ledger rows the database failed to write", () => {
  it("stay counted: the run gives back only what it never sent, and its release keeps the rest", async () => {
    const d = tempDir("pcc-unsent-");
    dirs.push(d);
    const url = await freshPostgresDatabase({ schema: true });
    await failNthLedgerRow(url, 6);
    const sim = await startSimulator({ port: 0, seed: 31, key: KEY });
    try {
      const input = writeCsv(d, "in.csv", ["postcode", ...generatePostcodes(31, 40)]);
      const flags = { in: input, baseUrl: sim.url, db: url, monthlyQuota: "100", lookups: "broadband", probe: 0, concurrency: 1, reports: false };
      // the scenario's clock (runIn): the team clock shifts it to the server's time
      const r = await runIn(d, flags, { COVERAGE_API_KEY: KEY });
      expect(r.exitCode).toBe(1);
      expect(r.logs.join("\n")).toMatch(/"stopReason":"database"/);
      const now = r.clock.now();
      const used = await withStore(url, async (store) => (await store.ledger.figures(quotaPeriod(now).key, now)).used);
      // the failed group's rows are lost, but not the requests: the ledger counts each one the API received, and no more
      expect(sim.counters.requests.broadband).toBeGreaterThanOrEqual(6);
      expect(used).toEqual(sim.counters.requests);
    } finally {
      await sim.close();
    }
  });
});
