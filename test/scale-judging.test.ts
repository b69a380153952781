// Each mobile answer judged on its own release's scale, in every figure: a stand-in API (real HTTP
// over loopback, answering in the live form with a release name) gives the exact ratings, and each
// scenario's nights run on one injected clock. A release is on the scale all of its stored ratings
// show, not only those of the postcodes a report covers; releases are ordered by when the API first
// returned them; a release whose answers hold no rating decides nothing; changes.csv reads each side
// of a pair on its own scale; with both scales, a per-rating share is of the addresses on its scale.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { mobileFields } from "../src/contract/fields.js";
import { openStore } from "../src/store/open-store.js";
import { writeReports, type Summary } from "../src/report/index.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { FakeClock } from "./helpers/fake-clock.js";
import { readSummaryJson } from "./helpers/summary-json.js";

const KEY = "scale-judging-key-4b7e-Wq2p-xyz";
const env = { COVERAGE_API_KEY: KEY };
const DAY = 24 * 3600 * 1000;
const T0 = Date.UTC(2026, 11, 1, 2, 0);
const PROVIDERS = ["ProvA", "ProvB", "ProvC", "ProvD"];
const [P1, P2] = ["SW1A2AA", "CF101AA"];
const [R1, R2, R3] = ["MobileAvailability-202401010000", "MobileAvailability-202402010000", "MobileAvailability-202406041254"];

interface Address {
  uprn: number;
  /** every rating field at `base`, but those named */
  base: number;
  ratings?: Record<string, number>;
}
type Answer = { release: string; addresses: Address[]; providers?: string[] } | "fails";
const answers = new Map<string, Answer>();
const indoorVoice = (v: number) => Object.fromEntries(PROVIDERS.map((p) => [`${p}VoiceIndoor`, v]));

let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const postcode = decodeURIComponent(/\/mobile\/coverage\/([^/?]+)/.exec(req.url ?? "")?.[1] ?? "").replace(/\s+/g, "").toUpperCase();
    const a = answers.get(postcode);
    const send = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (a === undefined) return send(404, { PostCode: postcode, Error: "Post code not found" });
    if (a === "fails") return send(500, { Error: "unavailable" });
    send(200, {
      PostCode: postcode,
      DBName: a.release,
      Availability: a.addresses.map((x) => ({
        UPRN: x.uprn,
        AddressShortDescription: `${x.uprn} HIGH STREET`,
        PostCode: postcode,
        ...Object.fromEntries(mobileFields(a.providers ?? PROVIDERS).map((f) => [f, x.ratings?.[f] ?? x.base])),
      })),
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
const dirs: string[] = [];
afterAll(() => {
  server.close();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});
beforeEach(() => answers.clear());

/** A scenario: its folder, its clock, and a night for a list of postcodes. */
function scenario() {
  const dir = tempDir("pcc-scale-judging-");
  dirs.push(dir);
  const clock = new FakeClock(T0);
  let n = 0;
  const night = async (postcodes: string[], flags: Record<string, unknown> = {}) => {
    const input = writeCsv(dir, `in-${++n}.csv`, ["postcode", ...postcodes]);
    return runIn(dir, { in: input, baseUrl: url, lookups: "mobile", probe: 0, retries: 0, ...flags }, env, { clock, rateWindowMs: 1e-6, rateMarginMs: 0 });
  };
  /** The whole store reported at the scenario's clock. */
  const reportAll = async (name: string) => {
    const out = join(dir, name);
    const store = await openStore(join(dir, "coverage.sqlite"), { readonly: true });
    try {
      await writeReports(store, { outDir: out, all: true, now: () => new Date(clock.now()) });
    } finally {
      await store.close();
    }
    return out;
  };
  return { dir, clock, night, reportAll };
}

const summaryOf = (out: string) => readSummaryJson<Summary>(join(out, "summary.json"));
const csv = (out: string, file: string) => parse(readFileSync(join(out, file), "utf8"), { bom: true, columns: true }) as Record<string, string>[];

describe("each answer judged on its own release's scale", () => {
  it("changes.csv reads a pair on two legacy releases at Green (3), also when the report holds current-scale answers too", async () => {
    const s = scenario();
    // Green (3) and Enhanced (4) indoor voice on a legacy release (its 2s show the scale)
    answers.set(P1, { release: R1, addresses: [{ uprn: 1001, base: 2, ratings: indoorVoice(3) }, { uprn: 1002, base: 2, ratings: indoorVoice(4) }] });
    answers.set(P2, { release: R1, addresses: [{ uprn: 2001, base: 1 }] });
    expect((await s.night(["SW1A 2AA", "CF10 1AA"])).exitCode).toBe(0);
    // next legacy release: 1001 Green to Amber (loses good coverage), 1002 Enhanced to Green (still good)
    s.clock.t = T0 + DAY;
    answers.set(P1, { release: R2, addresses: [{ uprn: 1001, base: 2, ratings: indoorVoice(2) }, { uprn: 1002, base: 2, ratings: indoorVoice(3) }] });
    expect((await s.night(["SW1A 2AA"], { refresh: true })).exitCode).toBe(0);
    // then P2 on a current-scale release: the whole store's report combines both scales
    s.clock.t = T0 + 2 * DAY;
    answers.set(P2, { release: R3, addresses: [{ uprn: 2001, base: 4 }] });
    expect((await s.night(["CF10 1AA"], { refresh: true })).exitCode).toBe(0);
    const out = await s.reportAll("mixed");
    const summary = summaryOf(out);
    expect(summary.mobile!.goodRatings).toEqual({ legacy: 3, current: 4 });
    const p1 = csv(out, "changes.csv").filter((r) => r.PostCode === "SW1A 2AA");
    expect(p1.map((r) => `${r.UPRN} ${r.Change} ${r.Before}->${r.After}`)).toEqual(PROVIDERS.map((p) => `1001 ${p} indoor voice 3->2`));
    expect(summary.changes!.mobile!.providers.ProvA!.indoorVoice).toEqual({ opened: 1, closed: 0 });
    // with both scales, each rating's share is of the addresses on its scale: 2 legacy, 1 current
    const shares = summary.mobile!.ratings.ProvA!.indoorVoice.filter((r) => r.addresses > 0).map((r) => `${r.scale} ${r.rating} ${r.addresses} ${r.share}`);
    expect(shares).toEqual(["legacy 3 1 0.5", "legacy 2 1 0.5", "current 4 1 1"]);
    const rows = csv(out, "summary.csv").filter((r) => /^ProvA: addresses with indoor voice (Green|Likely)/.test(r.Figure!));
    expect(rows.map((r) => [r.Share, r.Of])).toEqual([
      ["0.5", "2 addresses whose answer is on Ofcom's earlier 0-4 scale"],
      ["1", "1 addresses whose answer is on Ofcom's current 0/3/4 scale"],
    ]);
  });

  it("a report of a few postcodes reads them on their release's scale, which all of the release's stored ratings show", async () => {
    const s = scenario();
    // one legacy release: P1's addresses hold 1s and 2s, P2's only Green (3) and Enhanced (4)
    answers.set(P1, { release: R1, addresses: [{ uprn: 1001, base: 2 }, { uprn: 1002, base: 1 }] });
    answers.set(P2, { release: R1, addresses: [{ uprn: 2001, base: 4, ratings: indoorVoice(3) }] });
    expect((await s.night(["SW1A 2AA", "CF10 1AA"])).exitCode).toBe(0);
    s.clock.t = T0 + DAY;
    const run = await s.night(["CF10 1AA"], { out: join(s.dir, "p2") });
    expect(run.exitCode).toBe(0);
    const summary = summaryOf(join(s.dir, "p2"));
    expect([summary.mobile!.scale, summary.mobile!.goodRating]).toEqual(["legacy", 3]);
    expect(summary.mobile!.scaleReason).toMatch(/^\d+ ratings of 1 or 2 among \d+ ratings of MobileAvailability-202401010000/);
    expect(summary.mobile!.providers.ProvA!.indoorVoiceNotspots).toBe(0);
    expect(csv(join(s.dir, "p2"), "mobile.csv").map((r) => `${r.UPRN} ${r.ProvAVoiceIndoor} ${r.ProvAIndoorVoiceGood}`)).toEqual(["2001 3 yes"]);
  });

  it("changes.csv reads a version from a release outside the report's scope on that release's recorded scale", async () => {
    const s = scenario();
    // a legacy release: P1's 1s and 2s show it; P2's answer holds only Green (3) and Enhanced (4)
    answers.set(P1, { release: R1, addresses: [{ uprn: 1001, base: 1 }] });
    answers.set(P2, { release: R1, addresses: [{ uprn: 2001, base: 4, ratings: indoorVoice(3) }] });
    expect((await s.night(["SW1A 2AA", "CF10 1AA"])).exitCode).toBe(0);
    // P2 again on a current-scale release, alone: its report's scope holds no answer on R1
    s.clock.t = T0 + DAY;
    // (another rating moves, so that the answer is a new version)
    answers.set(P2, { release: R3, addresses: [{ uprn: 2001, base: 4, ratings: { ...indoorVoice(3), ProvADataOutdoor: 0 } }] });
    expect((await s.night(["CF10 1AA"], { refresh: true })).exitCode).toBe(0);
    // Green (3) on the legacy release is good, Limited (3) on the current one is not: a change of scale
    const rows = csv(join(s.dir, "out"), "changes.csv")
      .filter((r) => r.Change!.includes("indoor voice"))
      .map((r) => `${r.UPRN} ${r.Change} ${r.Before}->${r.After}`);
    expect(rows).toEqual(PROVIDERS.map((p) => `2001 ${p} indoor voice (change of scale) 3->3`));
  });

  it("a failed refresh does not make an older release the newest: the scale and the change of scale stay as the API returned them", async () => {
    const s = scenario();
    answers.set(P1, { release: R1, addresses: [{ uprn: 1001, base: 2, ratings: indoorVoice(3) }] });
    expect((await s.night(["SW1A 2AA"])).exitCode).toBe(0);
    s.clock.t = T0 + 1.5 * DAY;
    answers.set(P2, { release: R3, addresses: [{ uprn: 2001, base: 4, ratings: indoorVoice(3) }] });
    expect((await s.night(["CF10 1AA"])).exitCode).toBe(0);
    const change = /R1 is on Ofcom's earlier 0-4 scale, R3 on Ofcom's current 0\/3\/4 scale; a rating of 3 means Green on the first and Limited on the second$/;
    const named = (t: string | null | undefined) => (t ?? "").replace(R1, "R1").replace(R3, "R3");
    const before = summaryOf(await s.reportAll("before")).mobile!;
    expect([before.scale, named(before.scaleChange)]).toEqual(["current", expect.stringMatching(change)]);
    // P1's refresh fails two days on: its answer is kept, returned no later than before
    s.clock.t = T0 + 2 * DAY;
    answers.set(P1, "fails");
    expect((await s.night(["SW1A 2AA", "CF10 1AA"], { maxAge: "1d" })).exitCode).not.toBe(0);
    const after = summaryOf(await s.reportAll("after")).mobile!;
    expect([after.scale, named(after.scaleChange)]).toEqual(["current", expect.stringMatching(change)]);
  });

  it("an address whose answer holds no rating from a provider is neither good nor a notspot for it, in report.html too", async () => {
    const s = scenario();
    const three = PROVIDERS.slice(0, 3);
    // None (0) everywhere from three providers; then a fourth is asked for and the refetch fails, so
    // the kept answer has no rating from it
    answers.set(P1, { release: R3, providers: three, addresses: [{ uprn: 1001, base: 0 }, { uprn: 1002, base: 0 }] });
    expect((await s.night(["SW1A 2AA"], { providers: three.join(",") })).exitCode).toBe(0);
    s.clock.t = T0 + DAY;
    answers.set(P1, "fails");
    expect((await s.night(["SW1A 2AA"], { providers: PROVIDERS.join(",") })).exitCode).not.toBe(0);
    const out = join(s.dir, "out");
    const m = summaryOf(out).mobile!;
    expect(m.unrated).toEqual({ ProvA: 0, ProvB: 0, ProvC: 0, ProvD: 2 });
    expect(m.providers.ProvD!.indoorVoiceNotspots).toBe(0);
    const row = csv(out, "summary.csv").find((r) => r.Figure!.startsWith("ProvD: addresses whose answer has no rating"));
    expect([row?.Count, row?.Of]).toEqual(["2", "2 addresses the mobile lookup returned"]);
    const html = readFileSync(join(out, "report.html"), "utf8");
    const at = html.indexOf("Addresses with good coverage per provider");
    const table = html.slice(at, html.indexOf("</table>", at)).replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
    expect(table).toMatch(/ProvD 0 0\.0% 0 0\.0% 0 0\.0% 0 0\.0%/);
    expect(html).toContain("Without a rating, counted neither good nor a notspot (answers stored before the provider was asked for): 2 addresses for ProvD.");
    // the kept answer counts in the estimates as in every other figure: the list is answered, no lead
    const summary = summaryOf(out);
    expect(summary.estimates!.lookups.mobile!.answeredPostcodes).toBe(1);
    expect(csv(out, "summary.csv").filter((r) => r.Section === "Whole list (partly answered)")).toEqual([]);
  });

  it("a legacy release stays legacy once its answers holding a 1 or 2 have moved to a newer release: the unchanged answer keeps Green (3) good, changes.csv its change of scale", async () => {
    const s = scenario();
    // P1 rated only Green (3) and Enhanced (4); P2's 1s show R1 is legacy
    answers.set(P1, { release: R1, addresses: [{ uprn: 1001, base: 4, ratings: indoorVoice(3) }] });
    answers.set(P2, { release: R1, addresses: [{ uprn: 2001, base: 1 }] });
    expect((await s.night(["SW1A 2AA", "CF10 1AA"])).exitCode).toBe(0);
    // a refresh moves P2 onto a current-scale release
    s.clock.t = T0 + DAY;
    answers.set(P2, { release: R3, addresses: [{ uprn: 2001, base: 4 }] });
    expect((await s.night(["CF10 1AA"], { refresh: true })).exitCode).toBe(0);
    const out = await s.reportAll("after-refresh");
    const m = summaryOf(out).mobile!;
    // on main: R1 was recorded again as current, and P1's Green (3) read as Limited, a notspot
    expect(m.scaleReason).toMatch(/both scales/);
    expect(m.indoorVoice.totalNotspots).toBe(0);
    expect(csv(out, "mobile.csv").map((r) => `${r.UPRN} ${r.ProvAIndoorVoiceGood}`).sort()).toEqual(["1001 yes", "2001 yes"]);
    const changes = csv(out, "changes.csv").filter((r) => r.PostCode === "CF10 1AA" && r.Change!.includes("indoor voice"));
    expect(changes.map((r) => r.Change)).toEqual(PROVIDERS.map((p) => `${p} indoor voice (change of scale)`));
  });

  it("a newest release whose answers hold no address decides nothing: the rated release's scale stands", async () => {
    const s = scenario();
    answers.set(P1, { release: R1, addresses: [{ uprn: 1001, base: 2, ratings: indoorVoice(3) }] });
    expect((await s.night(["SW1A 2AA"])).exitCode).toBe(0);
    s.clock.t = T0 + DAY;
    answers.set(P2, { release: R3, addresses: [] });
    expect((await s.night(["SW1A 2AA", "CF10 1AA"])).exitCode).toBe(0);
    const m = summaryOf(join(s.dir, "out")).mobile!;
    expect([m.scale, m.goodRating]).toEqual(["legacy", 3]);
    expect(m.indoorVoice.totalNotspots).toBe(0);
  });
});
