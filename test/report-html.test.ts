// report.html's pieces without a browser: the figures its data module counts in SQLite (on the
// golden fixture database), and every section renderer, including groups and changes, on sample
// data. test/report-html-browser.test.ts opens real reports in Chromium.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SPEED_THRESHOLDS, TIERS } from "../src/figures/definitions.js";
import { collectHtmlReportData, SPEED_BIN_EDGES } from "../src/report/html/data.js";
import { formatCount, formatShare, formatTime } from "../src/report/html/format.js";
import { renderHtmlReport, type GroupRow, type HtmlReportData } from "../src/report/html/index.js";
import { worstGroups, WORST_GROUPS } from "../src/report/html/sections/groups.js";
import { rankedGroupEstimates } from "../src/report/html/sections/estimates.js";
import { computeSummary, type Summary } from "../src/report/summary/summary.js";
import type { Store } from "../src/store/store.js";
import { buildFixture, FIXED_NOW, PLACES } from "./fixtures/report-golden/build-fixture.js";
import { PackedDomain, ShareKeys } from "../src/report/estimates/packed-domain.js";

/** The SVG marks (bars) ECharts drew inside the figure with this id. */
function bars(html: string, figureId: string): number {
  const figure = figureHtml(html, figureId);
  return (figure.match(/ecmeta_ssr_type="chart"/g) ?? []).length;
}
function figureHtml(html: string, figureId: string): string {
  const start = html.indexOf(`<figure id="${figureId}"`);
  if (start < 0) throw new Error(`no figure ${figureId}`);
  return html.slice(start, html.indexOf("</figure>", start));
}
/** The table rows of a figure: row header, then cells, as text. */
function tableRows(html: string, figureId: string): string[][] {
  const body = figureHtml(html, figureId).split("<tbody>")[1]!.split("</tbody>")[0]!;
  return [...body.matchAll(/<tr>(.*?)<\/tr>/g)].map((m) => [...m[1]!.matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/g)].map((c) => c[1]!));
}

describe("the data module over the fixture database", () => {
  let dir: string;
  let db: Store;
  let data: HtmlReportData;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pcc-html-"));
    db = (await buildFixture(join(dir, "coverage.sqlite"))).store;
    data = await db.snapshot({ nowMs: Date.now() }, async (snapshot) => {
      await snapshot.preparePostcodes(3);
      return collectHtmlReportData(snapshot, await computeSummary(snapshot, 3, FIXED_NOW.toISOString()));
    });
  });
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("counts each address in one exclusive tier, adding up to the summary's figures", () => {
    const b = data.summary.broadband!;
    const t = Object.fromEntries(data.tiers.map((x) => [x.tier, x.addresses]));
    expect(data.tiers.map((x) => x.tier)).toEqual([...TIERS]);
    // the fixture's six broadband addresses: 1000, 350, 30.5, 15 (1 up), 9.5 and -1 Mbit/s down
    expect(t).toEqual({ Gigabit: 1, Ultrafast: 1, Superfast: 1, Decent: 1, "Below decent": 1, "No data": 1 });
    expect(data.tiers.reduce((s, x) => s + x.addresses, 0)).toBe(b.addresses);
    expect(t["Below decent"]! + t.Decent!).toBe(b.belowSuperfast);
    expect(t.Superfast! + t.Ultrafast! + t.Gigabit!).toBe(b.superfast);
    expect(t.Gigabit).toBe(b.gigabit);
    expect(t["No data"]).toBe(b.noData);
  });

  it("bins MaxPredictedDown of the addresses with a prediction, every threshold an edge", () => {
    for (const edge of [SPEED_THRESHOLDS.decentDown, SPEED_THRESHOLDS.superfast, SPEED_THRESHOLDS.ultrafast, SPEED_THRESHOLDS.gigabit])
      expect(SPEED_BIN_EDGES).toContain(edge);
    // independently: the run's postcodes' MaxPredictedDown (the 7th speed), binned here
    const downs = ["CF101AA", "SW1A2AA"].flatMap((p) => (PLACES[p]!.broadband as { speeds: (number | null)[] }[]).map((a) => a.speeds[6]!));
    const expected = SPEED_BIN_EDGES.map((from, i) => downs.filter((d) => d >= from && d < (SPEED_BIN_EDGES[i + 1] ?? Infinity)).length);
    expect(data.speedBins.map((b) => b.addresses)).toEqual(expected);
    expect(data.speedBins.reduce((s, b) => s + b.addresses, 0)).toBe(5);
    expect(data.speedBins.at(-1)).toMatchObject({ from: 1000, to: null, tier: "Gigabit", addresses: 1 });
    expect(data.speedBins[0]).toMatchObject({ from: 0, to: 2, tier: "Below decent" });
  });

  it("reads the run's own row", () => {
    expect(data.run).toMatchObject({ id: 1, state: "completed", requests: 0 });
  });
});

// ---- renderers, on sample data ----

function sampleSummary(over: Partial<Summary> = {}): Summary {
  return {
    simulated: true,
    generatedAt: "2026-01-02T03:04:05.000Z",
    runId: 7,
    scope: "run",
    lookups: ["broadband", "mobile"],
    providers: ["ProvA", "ProvB"],
    goodRating: 3,
    postcodes: { input: 12_500, invalid: 20, unique: 12_000 },
    changes: null,
    attribution: "Source: Ofcom (mobile: MobileAvailability-202601)",
    broadband: {
      postcodes: { ok: 11_900, notFound: 80, failed: 15, pending: 5 },
      addresses: 250_000,
      noData: 5_000,
      belowDecent: 20_000,
      belowSuperfast: 30_000,
      superfast: 215_000,
      ultrafast: 100_000,
      gigabit: 60_000,
      shares: { noData: 0.02, belowDecent: 0.08, belowSuperfast: 0.12, superfast: 0.86, ultrafast: 0.4, gigabit: 0.24 },
    },
    mobile: {
      postcodes: { ok: 11_950, notFound: 50, failed: 0, pending: 0 },
      addresses: 240_000,
      providers: {
        ProvA: { indoorVoiceNotspots: 24_000, indoorDataNotspots: 48_000, outdoorVoiceNotspots: 2_400, outdoorDataNotspots: 12_000, indoorDataNeeds4g: 30_000 },
        ProvB: { indoorVoiceNotspots: 36_000, indoorDataNotspots: 60_000, outdoorVoiceNotspots: 4_800, outdoorDataNotspots: 24_000, indoorDataNeeds4g: 1_234 },
      },
      indoorVoice: { totalNotspots: 12_000, partialNotspots: 36_000 },
      indoorData: { totalNotspots: 24_000, partialNotspots: 60_000 },
      shares: {
        providers: {
          ProvA: { indoorVoiceNotspots: 0.1, indoorDataNotspots: 0.2, outdoorVoiceNotspots: 0.01, outdoorDataNotspots: 0.05, indoorDataNeeds4g: 0.125 },
          ProvB: { indoorVoiceNotspots: 0.15, indoorDataNotspots: 0.25, outdoorVoiceNotspots: 0.02, outdoorDataNotspots: 0.1, indoorDataNeeds4g: 0.0051 },
        },
        indoorVoice: { totalNotspots: 0.05, partialNotspots: 0.15 },
        indoorData: { totalNotspots: 0.1, partialNotspots: 0.25 },
      },
      scale: "legacy",
      goodRating: 3,
      scaleReason: "12 ratings of 1 or 2 among 7,680,000 ratings of MobileAvailability-202601: Ofcom's earlier 0-4 scale",
      scaleChange: null,
      ratings: {},
    },
    releases: { broadband: [], mobile: [{ release: "MobileAvailability-202601", fetchedFrom: "2026-01-01T00:00:00.000Z", fetchedTo: "2026-01-02T00:00:00.000Z", postcodes: 11_950, addresses: 240_000 }] },
    ...over,
  };
}

function sampleData(over: Partial<HtmlReportData> = {}): HtmlReportData {
  return {
    summary: sampleSummary(),
    tiers: [
      { tier: "Gigabit", addresses: 60_000 },
      { tier: "Ultrafast", addresses: 40_000 },
      { tier: "Superfast", addresses: 115_000 },
      { tier: "Decent", addresses: 10_000 },
      { tier: "Below decent", addresses: 20_000 },
      { tier: "No data", addresses: 5_000 },
    ],
    speedBins: SPEED_BIN_EDGES.map((from, i) => ({ from, to: SPEED_BIN_EDGES[i + 1] ?? null, tier: "Superfast" as const, addresses: i === 3 ? 0 : 1_000 * (i + 1) })),
    run: { id: 7, state: "completed", startedAt: "2026-01-02T01:00:00Z", endedAt: "2026-01-02T02:00:00Z", requests: 24_321, retries: 12, throttled: 3, message: null },
    ...over,
  };
}

/** 25 regions with rising shares below superfast, one without broadband, and two districts. */
function sampleGroups(): GroupRow[] {
  const regions: GroupRow[] = Array.from({ length: 25 }, (_, i) => ({
    dimension: "region",
    group: `Region ${String(i + 1).padStart(2, "0")}`,
    belowSuperfast: { count: i * 10, of: 1_000 },
    indoorVoiceTotalNotspots: { count: 25 - i, of: 500 },
  }));
  return [
    ...regions,
    { dimension: "region", group: "Mobile only", belowSuperfast: null, indoorVoiceTotalNotspots: { count: 1, of: 2 } },
    { dimension: "district", group: "CF10 <Cardiff> & co", belowSuperfast: { count: 3, of: 4 }, indoorVoiceTotalNotspots: { count: 0, of: 4 } },
    { dimension: "district", group: "CF11", belowSuperfast: { count: 0, of: 0 }, indoorVoiceTotalNotspots: { count: 0, of: 3 } },
  ];
}

describe("renderHtmlReport", () => {
  it("formats numbers for people: thousands separators, shares to one decimal", () => {
    expect(formatCount(1_234_567)).toBe("1,234,567");
    expect(formatShare(1, 3)).toBe("33.3%");
    expect(formatShare(1, 0)).toBe("–");
    expect(formatTime("2026-01-02T03:04:05.000Z")).toBe("2 Jan 2026, 03:04 UTC");
  });

  it("is one self-contained page: no script, nothing to fetch, simulated said in the headline", () => {
    const html = renderHtmlReport(sampleData({ groups: sampleGroups(), changes: { baseline: "r2 against r1", tierUp: 5, tierDown: 2, notspots: [] } }));
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    // the one link is to rejects.csv beside the page: followed by the reader, never fetched
    expect(html.replace('<a href="rejects.csv">', "<a>")).not.toMatch(/<script|<link|<img|<iframe|\ssrc=|\shref=|url\(|@import/i);
    expect(html).toContain("default-src 'none'");
    expect(html).toMatch(/<strong>Simulated<\/strong>/);
    expect(html).toContain("<title>Coverage report, run 7 (simulated)</title>");
    expect(html).toContain("release MobileAvailability-202601, 11,950 postcodes, fetched 1 Jan 2026 to 2 Jan 2026");
  });

  it("draws the tiers worst first with count and share on each bar, and their table", () => {
    const html = renderHtmlReport(sampleData());
    expect(bars(html, "broadband-tiers")).toBe(6);
    expect(figureHtml(html, "broadband-tiers")).toContain(">115,000 · 46.0%<");
    expect(tableRows(html, "broadband-tiers").map((r) => [r[0], r[2], r[3]])).toEqual([
      ["No data", "5,000", "2.0%"],
      ["Below decent", "20,000", "8.0%"],
      // a band says its range: the bare "Superfast" never stands for the nested "at least superfast"
      ["Decent (10–30)", "10,000", "4.0%"],
      ["Superfast (30–300)", "115,000", "46.0%"],
      ["Ultrafast (300–1,000)", "40,000", "16.0%"],
      ["Gigabit (1,000+)", "60,000", "24.0%"],
    ]);
    expect(figureHtml(html, "broadband-tiers")).toContain("12.0% of addresses (30,000) cannot get superfast");
    // a zero bin draws no bar (ECharts still emits its path, of zero size) but the table lists it
    expect(tableRows(html, "broadband-speeds")[3]).toEqual(["10–20", "0", "0.0%"]);
    expect(tableRows(html, "broadband-speeds").at(-1)![0]).toBe("1,000+");
  });

  it("draws per provider the four good-coverage shares, the notspots and needs-4G", () => {
    const html = renderHtmlReport(sampleData());
    expect(bars(html, "mobile-good")).toBe(2 * 4);
    // ProvA indoor voice: 240,000 - 24,000 notspots = 216,000 good, 90.0%
    expect(tableRows(html, "mobile-good")[0]).toEqual(["ProvA", "216,000", "90.0%", "192,000", "80.0%", "237,600", "99.0%", "228,000", "95.0%"]);
    expect(figureHtml(html, "mobile-good")).toContain(">Indoor voice 90.0%<");
    expect(tableRows(html, "mobile-notspots")).toEqual([
      ["Indoor voice: no provider good", "12,000", "5.0%"],
      ["Indoor voice: some, not all", "36,000", "15.0%"],
      ["Indoor data: no provider good", "24,000", "10.0%"],
      ["Indoor data: some, not all", "60,000", "25.0%"],
    ]);
    expect(tableRows(html, "mobile-needs-4g")[1]).toEqual(["ProvB", "1,234", "0.5%"]);
    // the best provider first, in words that read right whichever way the shares run
    expect(figureHtml(html, "mobile-good")).toMatch(/Good indoor voice: at most 90\.0% of addresses \(ProvA\), at least [\d.]+% \(ProvB\)\./);
  });

  it("draws the 20 worst groups per dimension and measure, worst first, escaping group names", () => {
    const groups = sampleGroups();
    const html = renderHtmlReport(sampleData({ groups }));
    expect(html).toContain(">1. Broadband<");
    expect(html).toContain(">3. Groups<");
    expect(html).toContain(">4. Definitions and what the run did<");
    const sf = "groups-region-below-superfast";
    expect(bars(html, sf)).toBe(WORST_GROUPS);
    const rows = tableRows(html, sf);
    expect(rows).toHaveLength(20);
    expect(rows[0]).toEqual(["Region 25", "240", "1,000", "24.0%", "21.5%–26.7%"]);
    expect(rows[19]).toEqual(["Region 06", "50", "1,000", "5.0%", "3.8%–6.5%"]);
    expect(rows.map((r) => r[0])).not.toContain("Mobile only");
    // the voice measure: Mobile only (1 of 2, 50%) is worst
    expect(tableRows(html, "groups-region-voice-notspots")[0]).toEqual(["Mobile only", "1", "2", "50.0%", "9.5%–90.5%"]);
    expect(bars(html, "groups-district-below-superfast")).toBe(1);
    expect(html).toContain("CF10 &lt;Cardiff&gt; &amp; co");
    expect(html).not.toContain("<Cardiff>");
    // no district has a voice notspot: a sentence, not an empty chart
    expect(figureHtml(html, "groups-district-voice-notspots")).toContain(`<p class="empty">No district group has addresses with no provider good`);
    expect(figureHtml(html, "groups-district-voice-notspots")).not.toContain("<svg");
    const regions = groups.filter((g) => g.dimension === "region");
    expect(worstGroups(regions, "belowSuperfast", 3).map((g) => g.group)).toEqual(["Region 25", "Region 24", "Region 23"]);
  });

  it("ranks groups allowing for their size, and says so beside the ranking: 1 of 1 and 7 of 7 below 762 of 794", () => {
    const area = (group: string, count: number, of: number): GroupRow => ({ dimension: "area", group, belowSuperfast: { count, of }, indoorVoiceTotalNotspots: null });
    const groups = [area("DY", 1, 1), area("DA", 7, 7), area("SA", 762, 794), area("CF", 40, 900)];
    expect(worstGroups(groups, "belowSuperfast").map((g) => g.group)).toEqual(["SA", "DA", "DY", "CF"]);
    const html = renderHtmlReport(sampleData({ groups }));
    const figure = figureHtml(html, "groups-area-below-superfast");
    expect(figure).toContain("Worst: SA, 96.0% of its 794 broadband addresses (762; 95% interval 94.4%–97.1%). Groups are ranked by the low end of each share&#39;s 95% interval");
    expect(tableRows(html, "groups-area-below-superfast").map((r) => r[0])).toEqual(["SA", "DA", "DY", "CF"]);
    expect(figure).toMatch(/<caption>[^<]*ranked by the low end of each share&#39;s 95% interval/);
  });

  it("draws the changes: tiers up and down, notspots closed and opened per provider", () => {
    const changes = {
      baseline: "release 2 against release 1",
      tierUp: 1_520,
      tierDown: 230,
      notspots: [
        { provider: "ProvA", closed: 40, opened: 5 },
        { provider: "ProvB", closed: 0, opened: 12 },
      ],
    };
    const html = renderHtmlReport(sampleData({ changes }));
    expect(html).toContain(">3. Changes since the previous release<");
    expect(bars(html, "changes-tiers")).toBe(2);
    expect(tableRows(html, "changes-tiers")).toEqual([
      ["Up a tier", "1,520"],
      ["Down a tier", "230"],
    ]);
    expect(bars(html, "changes-notspots")).toBe(4);
    expect(tableRows(html, "changes-notspots")).toEqual([
      ["ProvA", "40", "5", "35"],
      ["ProvB", "0", "12", "-12"],
    ]);
    expect(figureHtml(html, "changes-notspots")).toContain("<tfoot><tr><th scope=\"row\">All providers</th><td>40</td><td>17</td><td>23</td></tr></tfoot>");
    expect(figureHtml(html, "changes-notspots")).toContain(">opened 12<");
    const none = renderHtmlReport(sampleData({ changes: { ...changes, tierUp: 0, tierDown: 0, notspots: [] } }));
    expect(figureHtml(none, "changes-tiers")).toContain("No address moved broadband tier.");
    expect(none.match(/<figure id="changes-[^"]*"[^]*?<\/figure>/g)!.join("")).not.toContain("<svg");
  });

  it("says in words what is missing instead of drawing empty charts", () => {
    const s = sampleSummary();
    const noMobile = renderHtmlReport(sampleData({ summary: { ...s, lookups: ["broadband"], mobile: null } }));
    expect(noMobile).toContain("This run did not ask for the mobile lookup");
    expect(noMobile).not.toContain('id="mobile-good"');
    expect(noMobile).not.toContain("Groups<");
    const zero = { ...s.broadband!, addresses: 0, noData: 0, belowDecent: 0, belowSuperfast: 0, superfast: 0, ultrafast: 0, gigabit: 0 };
    const nothing = renderHtmlReport(
      sampleData({
        summary: { ...s, broadband: zero, mobile: { ...s.mobile!, addresses: 0 } },
        tiers: TIERS.map((tier) => ({ tier, addresses: 0 })),
        speedBins: [],
      }),
    );
    expect(nothing).not.toContain("<svg");
    expect(figureHtml(nothing, "broadband-tiers")).toContain("No broadband addresses: none of the 12,000 postcodes");
    expect(figureHtml(nothing, "broadband-speeds")).toContain("No address has a predicted download speed");
    expect(nothing).toContain("No mobile addresses: none of the 12,000 postcodes");
  });

  it("--all: says it covers all stored postcodes, and which run is the latest", () => {
    const s = sampleSummary({ runId: null, scope: "all", postcodes: { input: null, invalid: null, unique: 12_000 } });
    const html = renderHtmlReport(sampleData({ summary: s }));
    expect(html).toContain("<title>Coverage report, all stored postcodes (simulated)</title>");
    expect(html).toContain("All stored postcodes · report generated 2 Jan 2026, 03:04 UTC");
    expect(html).toContain(`<th scope="row">Run</th><td>7 (the latest; this report covers all stored postcodes)</td>`);
    expect(html).not.toContain("input rows");
  });

  it("reports what the run did: requests, failures and pending postcodes", () => {
    const html = renderHtmlReport(sampleData());
    expect(html).toContain(`<th scope="row">Requests</th><td>24,321</td>`);
    expect(html).toContain(`<th scope="row">broadband</th><td>11,900 (99.2%)</td><td>80 (0.7%)</td><td>15 (0.1%)</td><td>5 (0.0%)</td>`);
    expect(html).toContain("failures.csv says why");
    expect(html).toContain(`${SPEED_THRESHOLDS.superfast} to under 300 Mbit/s down; &quot;at least superfast&quot; counts every address at ${SPEED_THRESHOLDS.superfast} or more`);
  });
});

// ---- a partly answered list ----

describe("report.html of a partly answered list", () => {
  const interval = (estimate: number, low: number, high: number) => ({ estimate, low, high });
  const domain = (answered: number, postcodes: number, share: ReturnType<typeof interval> | null) => ({
    postcodes,
    answeredPostcodes: answered,
    answeredPerLookup: { broadband: answered, mobile: answered },
    exact: answered === postcodes,
    shares: { belowSuperfast: share ?? { estimate: null, low: null, high: null }, indoorVoiceTotalNotspot: share ?? { estimate: null, low: null, high: null } },
  });
  const shareKeys = new ShareKeys(["belowSuperfast", "indoorVoiceTotalNotspot"]);
  const packed = (d: ReturnType<typeof domain>) => new PackedDomain(d, shareKeys);
  const basis = (answered: number, answeredBy: string | null) => ({ answeredPostcodes: answered, answeredAddresses: 1_517, exact: false, unanswered: 288 - answered, answeredBy, quota: { perPeriod: 25_000, source: "monthly-quota" as const }, capacity: { postcodes: 23_387, exceeded: false, quotaNeeded: 312 } });
  const estimates = {
    ...domain(59, 288, interval(0.201, 0.119, 0.318)),
    answeredPerLookup: { broadband: 61, mobile: 59 },
    lookups: { broadband: basis(61, "2026-12-01"), mobile: basis(59, "2026-12-01") },
    capacity: null,
    assumption: "The estimates assume that the unanswered postcodes resemble the answered ones of their stratum (their district, and the values of your --group-by columns).",
    caveats: ["Your input's rows show the unanswered postcodes to be unlike the answered ones."],
    // as computeEstimates keeps a group's estimates: packed
    groups: { district: { LS1: packed(domain(1, 12, null)), LS2: packed(domain(9, 20, interval(0.3, 0.2, 0.4))) } },
  };
  const partial = sampleSummary({ estimates, input: { postcodeColumn: "Post Code" } });
  const html = renderHtmlReport(sampleData({ summary: partial }));

  it("opens with the whole list's estimate, what is answered and when the rest will be, the answered-only figure beside it", () => {
    const lead = html.slice(html.indexOf(`<section id="lead"`), html.indexOf("</section>", html.indexOf(`<section id="lead"`)));
    expect(html.indexOf(`<section id="lead"`)).toBeLessThan(html.indexOf(`id="broadband"`));
    expect(lead).toContain(
      "<strong>Partly answered</strong>: 61 of 288 postcodes answered for broadband, 59 for mobile; broadband: the other 227 by 2026-12-01 at the current quota (25,000 requests a quota period, --monthly-quota); mobile: the other 229 by 2026-12-01",
    );
    expect(lead).toContain("all the list's addresses, estimated (95% interval)</dt>");
    expect(lead).toContain(">20.1% (11.9% to 31.8%)</dd>");
    expect(lead).toContain("answered postcodes only: 12.0% (30,000 of 250,000 addresses)");
    expect(lead).toContain(estimates.assumption);
    expect(lead).toContain("<strong>Caution</strong>: Your input&#39;s rows show");
    // the answered-only section says what it counts
    expect(figureHtml(html, "broadband-tiers")).toContain("Answered postcodes only: 12.0% of addresses");
    // the chart's basis, per lookup
    expect(figureHtml(html, "estimates-chart")).toContain("broadband: estimated from 61 of 288 postcodes (95% interval); mobile: estimated from 59 of 288 postcodes (95% interval)");
  });

  it("gives a group of one answered postcode no estimate, and says why in the groups' own words", () => {
    const table = tableRows(html, "estimates-district");
    expect(table.find((r) => r[0] === "LS1")).toEqual(["LS1", "1 of 12", "no estimate: fewer than 2 of its postcodes answered", "no estimate: fewer than 2 of its postcodes answered"]);
    expect(table.find((r) => r[0] === "LS2")![2]).toBe("30.0% (20.0% to 40.0%)");
  });

  it("charts the groups' estimates ranked by their interval's low end, and says so", () => {
    const group = (i: ReturnType<typeof interval>) => ({ share: () => i });
    // a small group's high estimate with a wide interval ranks below a large group's clear one
    const groups = { LS3: group(interval(0.9, 0.1, 0.99)), LS4: group(interval(0.6, 0.55, 0.65)), LS5: group(interval(0.5, 0.12, 0.8)) };
    expect(rankedGroupEstimates(groups, "belowSuperfast").map(([g]) => g)).toEqual(["LS4", "LS5", "LS3"]);
    expect(figureHtml(html, "estimates-district")).toContain("groups ranked by the low end of each estimate&#39;s 95% interval");
  });

  it("names the input's postcode column in the run details", () => {
    expect(html).toContain(`<th scope="row">Postcode column</th><td>Post Code (the input column the postcodes were read from)</td>`);
  });

  it("leads with nothing new once every postcode is answered: the page is as before", () => {
    const exact = { ...estimates, ...domain(288, 288, interval(0.2, 0.2, 0.2)), lookups: { broadband: { ...basis(288, null), exact: true }, mobile: { ...basis(288, null), exact: true } }, caveats: [] };
    // (each chart's instance numbers its classes, counting on through the process: zr13-cls-58, ...)
    const page = (estimates?: typeof exact) => renderHtmlReport(sampleData({ summary: sampleSummary(estimates ? { estimates } : {}) })).replace(/zr\d*(-cls-\d+)?/g, "zr");
    const before = page();
    const after = page(exact);
    expect(after).toBe(before);
    expect(before).not.toContain(`id="lead"`);
  });
});
