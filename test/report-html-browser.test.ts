// report.html opened in a real browser (Debian's chromium driven by playwright-core; nothing is
// downloaded), from real batches against the bundled simulator: a normal run, one postcode, no
// mobile lookup, and every postcode not found. One browser for all of them.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePostcode, generatePostcodes, simulatedAreaFile } from "../src/simulator/index.js";
import type { Summary } from "../src/report/summary/summary.js";
import { percent } from "../src/report/words/figure-labels.js";
import { noAnswerWords } from "../src/report/summary/without-answers.js";
import type { OutcomeCounts } from "../src/contract/counts.js";
import { runIn, tempDir, writeCsv, type HarnessRun } from "./helpers/batch-harness.js";
import { CHROMIUM_PATH, requiresTool, TOOLS } from "./helpers/requires-tool.js";
import { readSummaryJson } from "./helpers/summary-json.js";

const BROWSER = requiresTool(TOOLS.chromium);
const SEED = 11;
const pool = generatePostcodes(SEED, 400);
const known = pool.filter((p) => generatePostcode(SEED, p) !== null);
const unknown = pool.filter((p) => generatePostcode(SEED, p) === null);

interface Case {
  name: string;
  postcodes: string[];
  lookups: string;
  /** with the simulator's area file for its postcodes: a map */
  map?: boolean;
  /** --max-requests: a list the run only partly answers (exit 3) */
  maxRequests?: number;
}
/** A page with figures has charts to check (the loops over them must not pass by having none); the all-not-found page has none. */
async function expectCharts(page: Page, name: string): Promise<void> {
  const charts = await page.$$eval("svg.chart", (svgs) => svgs.length);
  expect(charts > 0, `${name}: charts on the page`).toBe(name !== "all not found");
}

const CASES: Case[] = [
  { name: "normal", postcodes: [...known.slice(0, 40), ...unknown.slice(0, 2)], lookups: "broadband,mobile", map: true },
  { name: "one postcode", postcodes: known.slice(0, 1), lookups: "broadband,mobile" },
  { name: "no mobile lookup", postcodes: known.slice(0, 10), lookups: "broadband" },
  { name: "all not found", postcodes: unknown.slice(0, 3), lookups: "broadband,mobile" },
  { name: "partly answered", postcodes: known.slice(0, 60), lookups: "broadband,mobile", maxRequests: 40 },
];

interface Opened {
  run: HarnessRun;
  summary: Summary;
  dir: string;
  consoleErrors: string[];
  requests: string[];
  page: Page;
}

let browser: Browser;
const opened = new Map<string, Opened>();
const dirs: string[] = [];

/** The environment less libfaketime's preload and settings. */
function withoutFakedTime(env: NodeJS.ProcessEnv): Record<string, string> {
  const kept = Object.entries(env).filter(([name, value]) => value !== undefined && !name.startsWith("FAKETIME") && name !== "LD_PRELOAD");
  const preload = (env.LD_PRELOAD ?? "").split(/[: ]/).filter((lib) => lib !== "" && !lib.includes("faketime"));
  return Object.fromEntries([...(kept as [string, string][]), ...(preload.length > 0 ? [["LD_PRELOAD", preload.join(":")]] : [])]);
}

beforeAll(async () => {
  if (BROWSER.skip) return;
  expect(unknown.length).toBeGreaterThanOrEqual(3);
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    // The browser only reads the written file, at no particular time: it gets the real clock. Under
    // libfaketime (CI's evening run, .ci/at-utc) Chromium's page loads stall.
    env: withoutFakedTime(process.env),
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  for (const c of CASES) {
    const dir = tempDir("pcc-html-browser-");
    dirs.push(dir);
    const input = writeCsv(dir, "in.csv", ["postcode", ...c.postcodes]);
    const areaFile = c.map ? writeCsv(dir, "areas.csv", simulatedAreaFile(c.postcodes)) : undefined;
    const run = await runIn(dir, { in: input, simulate: true, lookups: c.lookups, areaFile, ...(c.maxRequests ? { maxRequests: c.maxRequests } : {}) }, {}, { simulator: { seed: SEED } });
    expect(run.exitCode).toBe(c.maxRequests ? 3 : 0);
    const summary = readSummaryJson<Summary>(join(dir, "out", "summary.json"));
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const consoleErrors: string[] = [];
    const requests: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") consoleErrors.push(m.text());
    });
    page.on("pageerror", (e) => consoleErrors.push(e.message));
    page.on("request", (r) => requests.push(r.url()));
    // anything but the file itself would leave the machine: refuse it (and the test sees it above)
    await page.route(/^(?!file:)/, (route) => route.abort());
    await page.goto(pathToFileURL(join(dir, "out", "report.html")).href);
    opened.set(c.name, { run, summary, dir, consoleErrors, requests, page });
  }
}, 120_000);

afterAll(async () => {
  await browser?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const get = (name: string) => opened.get(name)!;
const n = (x: number) => x.toLocaleString("en-GB");
const share = (x: number, of: number) => `${percent(x, of)}%`;

/** A figure's table as rows of cell texts (row header first); [] when the figure has none. */
function rows(page: Page, figureId: string): Promise<string[][]> {
  return page.$$eval(`#${figureId} table tbody tr`, (trs) => trs.map((tr) => [...tr.querySelectorAll("th, td")].map((c) => c.textContent ?? "")));
}

describe.skipIf(BROWSER.skip)("report.html of a partly answered list", () => {
  it("opens with the whole list's estimate in the first screenful, above the answered-only sections", async () => {
    const { page, summary } = get("partly answered");
    const e = summary.estimates!;
    expect(e.exact).toBe(false);
    const lead = await page.$eval("#lead", (el) => ({ top: el.getBoundingClientRect().top, bottom: el.getBoundingClientRect().bottom, text: el.textContent ?? "" }));
    expect(lead.bottom).toBeLessThan(900);
    const broadbandTop = await page.$eval("#broadband", (el) => el.getBoundingClientRect().top);
    expect(broadbandTop).toBeGreaterThan(lead.bottom);
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
    const below = e.shares.belowSuperfast!;
    expect(lead.text).toContain(`${pct(below.estimate!)} (${pct(below.low!)} to ${pct(below.high!)})`);
    expect(lead.text).toContain(`answered postcodes only: ${share(summary.broadband!.belowSuperfast, summary.broadband!.addresses)}`);
    expect(lead.text).toContain(e.assumption);
  });
});

describe.skipIf(BROWSER.skip).each(CASES.map((c) => c.name))("report.html of the %s case", (name) => {
  it("loads with no console error and no request but the file itself", () => {
    const o = get(name);
    expect(o.consoleErrors).toEqual([]);
    expect(o.requests).toEqual([pathToFileURL(join(o.dir, "out", "report.html")).href]);
  });

  it("has marks in every chart, a sentence where there is nothing to draw, and fits 1280 px", async () => {
    const { page } = get(name);
    const figures = await page.$$eval("figure", (fs) =>
      fs.map((f) => {
        // an ECharts chart's marks, or a map's hexagons
        const svg = f.querySelector("svg.chart, svg.map");
        const marks = svg ? [...svg.querySelectorAll('path[ecmeta_ssr_type="chart"], g.bins path')] : [];
        const drawn = marks.filter((m) => {
          const box = (m as SVGGraphicsElement).getBBox();
          return box.width > 0 && box.height > 0;
        });
        const shown = svg ? svg.getBoundingClientRect() : null;
        return {
          id: f.id,
          marks: marks.length,
          drawn: drawn.length,
          visible: shown !== null && shown.width > 100 && shown.height > 50,
          empty: f.querySelector("p.empty")?.textContent ?? null,
          table: f.querySelector("table caption") !== null,
        };
      }),
    );
    expect(figures.length).toBeGreaterThan(0);
    for (const f of figures) {
      if (f.empty === null) {
        expect(f, f.id).toMatchObject({ visible: true, table: true });
        expect(f.drawn, f.id).toBeGreaterThan(0);
      } else {
        expect(f.empty.length, f.id).toBeGreaterThan(20);
        expect(f.marks, f.id).toBe(0);
      }
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
  });

  it("draws no chart text outside its chart or over other text, in this machine's fonts", async () => {
    const { page } = get(name);
    await expectCharts(page, name);
    const problems = await page.$$eval("svg.chart", (svgs) =>
      svgs.flatMap((svg) => {
        const chart = svg.getBoundingClientRect();
        const texts = [...svg.querySelectorAll("text")].map((t) => ({ text: t.textContent ?? "", box: t.getBoundingClientRect(), turned: (t.getCTM()?.b ?? 0) !== 0 }));
        const out: string[] = [];
        for (const { text, box } of texts)
          if (box.left < chart.left - 0.5 || box.right > chart.right + 0.5 || box.top < chart.top - 0.5 || box.bottom > chart.bottom + 0.5) out.push(`cut: ${text}`);
        // turned labels (many columns) have boxes wider than their ink: only upright ones are compared
        const upright = texts.filter((t) => !t.turned);
        for (const [i, a] of upright.entries())
          for (const b of upright.slice(i + 1))
            if (a.box.left < b.box.right - 1 && b.box.left < a.box.right - 1 && a.box.top < b.box.bottom - 1 && b.box.top < a.box.bottom - 1)
              out.push(`overlap: ${a.text} | ${b.text}`);
        return out;
      }),
    );
    expect(problems, JSON.stringify(problems)).toEqual([]);
  });

  it("prints every chart at the page's full width", async () => {
    const { page } = get(name);
    await page.emulateMedia({ media: "print" });
    try {
      await page.setViewportSize({ width: 703, height: 1000 }); // A4's 186 mm between the margins, at 96 px an inch
      const widths = await page.$$eval("svg.chart", (svgs) => svgs.map((s) => Math.round(s.getBoundingClientRect().width)));
      await expectCharts(page, name);
      const body = await page.evaluate(() => Math.round(document.body.getBoundingClientRect().width));
      for (const w of widths) expect(w).toBe(body);
    } finally {
      await page.emulateMedia({ media: "screen" });
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it("shows the headline and the run's figures as summary.json has them", async () => {
    const { page, summary, run } = get(name);
    const figures = await page.$$eval("dl.figures div", (ds) => Object.fromEntries(ds.map((d) => [d.querySelector("dt")!.textContent, d.querySelector("dd")!.textContent])));
    expect(figures.Postcodes).toBe(n(summary.postcodes.unique));
    // beside a partly answered list's lead, the addresses are labelled as the answered postcodes'
    const answered = summary.estimates && !summary.estimates.exact ? " (answered postcodes only)" : "";
    // a lookup without answers (summary.json's null) says why instead of 0
    const addresses = (l: { addresses: number | null; postcodes: OutcomeCounts }) => (l.addresses === null ? noAnswerWords(l.postcodes) : n(l.addresses));
    if (summary.broadband) expect(figures[`Broadband addresses${answered}`]).toBe(addresses(summary.broadband));
    if (summary.mobile) expect(figures[`Mobile addresses${answered}`]).toBe(addresses(summary.mobile));
    else expect(figures["Mobile addresses"]).toBeUndefined();
    expect(await page.textContent(".simulated")).toContain("Simulated");
    const about = await page.$$eval("#about table tbody tr", (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent ?? "")));
    expect(about).toContainEqual(["Requests", n(run.counts!.requests)]);
    const u = summary.postcodes.unique;
    for (const l of ["broadband", "mobile"] as const) {
      const p = summary[l]?.postcodes;
      if (p) expect(about).toContainEqual([l, ...[p.ok, p.notFound, p.failed, p.pending, p.expired ?? 0].map((v) => `${n(v)} (${share(v, u)})`)]);
    }
  });

  it("tables equal summary.json: tiers, speeds, mobile coverage, notspots, needs 4G", async () => {
    const { page, summary: s } = get(name);
    const b = s.broadband;
    if (b && b.addresses > 0) {
      const tiers: [string, number][] = [
        ["No data", b.noData],
        ["Below decent", b.belowDecent],
        // the bands say their range: a bare "Superfast" would read as the nested "at least superfast"
        ["Decent (10–30)", b.belowSuperfast - b.belowDecent],
        ["Superfast (30–300)", b.superfast - b.ultrafast],
        ["Ultrafast (300–1,000)", b.ultrafast - b.gigabit],
        ["Gigabit (1,000+)", b.gigabit],
      ];
      expect((await rows(page, "broadband-tiers")).map((r) => [r[0], r[2], r[3]])).toEqual(tiers.map(([t, v]) => [t, n(v), share(v, b.addresses)]));
      const foot = await page.$$eval("#broadband-tiers tfoot td", (tds) => tds.map((td) => td.textContent));
      expect(foot[1]).toBe(n(b.addresses));
      const bins = await rows(page, "broadband-speeds");
      const withData = b.addresses - b.noData;
      expect(bins.reduce((sum, r) => sum + Number(r[1]!.replace(/,/g, "")), 0)).toBe(withData);
      for (const r of bins) expect(r[2]).toBe(share(Number(r[1]!.replace(/,/g, "")), withData));
    } else expect(await page.$("#broadband-tiers svg")).toBeNull();

    const m = s.mobile;
    if (m && m.addresses > 0) {
      const good = await rows(page, "mobile-good");
      expect(good).toEqual(
        s.providers.map((p) => {
          const f = m.providers[p]!;
          const g = [f.indoorVoiceNotspots, f.indoorDataNotspots, f.outdoorVoiceNotspots, f.outdoorDataNotspots].map((x) => m.addresses - x);
          return [p, ...g.flatMap((v) => [n(v), share(v, m.addresses)])];
        }),
      );
      expect((await rows(page, "mobile-notspots")).map((r) => r.slice(1))).toEqual(
        [m.indoorVoice.totalNotspots, m.indoorVoice.partialNotspots, m.indoorData.totalNotspots, m.indoorData.partialNotspots].map((v) => [n(v), share(v, m.addresses)]),
      );
      expect(await rows(page, "mobile-needs-4g")).toEqual(
        s.providers.map((p) => [p, n(m.providers[p]!.indoorDataNeeds4g), share(m.providers[p]!.indoorDataNeeds4g, m.addresses)]),
      );
    } else expect(await page.$("#mobile svg")).toBeNull();
  });

  it("makes a 1280-px screenshot and an A4 PDF", async () => {
    const { page, dir } = get(name);
    const png = await page.screenshot({ fullPage: true });
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    expect(png.readUInt32BE(16)).toBe(1280); // IHDR width
    const pdf = await page.pdf({ format: "A4", preferCSSPageSize: true });
    writeFileSync(join(dir, "report.pdf"), pdf);
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    // A4 is 210 x 297 mm, 595 x 842 points (Chromium rounds to whole pixels: 595.92 x 842.88)
    const boxes = [...pdf.toString("latin1").matchAll(/\/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]/g)].map((b) => [Number(b[1]), Number(b[2])]);
    expect(boxes.length).toBeGreaterThan(0);
    for (const [w, h] of boxes) {
      expect(Math.abs(w! - 595.3)).toBeLessThan(1.5);
      expect(Math.abs(h! - 841.9)).toBeLessThan(1.5);
    }
  });
});

describe.skipIf(BROWSER.skip)("what each edge case shows instead of charts", () => {
  it("the batch's closing lines name report.html", () => {
    const { run, dir } = get("normal");
    const file = join(dir, "out", "report.html");
    const last = run.logs.map((l) => JSON.parse(l) as { message: string }).filter((l) => / first: /.test(l.message));
    // one "open first" line, naming the workbook first and report.html beside it
    expect(last.map((l) => l.message)).toEqual([`open ${join(dir, "out", "coverage.xlsx")} first: the summary, figures per group and your rows with their figures; ${file} shows them as charts in a browser`]);
  });

  it("one postcode: every chart drawn from its few addresses", async () => {
    const { page, summary } = get("one postcode");
    expect(summary.postcodes.unique).toBe(1);
    // six charts of the figures (with the addresses per rating of the scale), and the groups of
    // groups.csv (by default the postcode's area and district): below superfast and, on the current
    // scale where 4 is good, indoor voice notspots too, for each
    expect(await page.$$("#groups svg.chart")).toHaveLength(4);
    expect(await page.$$("#mobile-ratings svg.chart")).toHaveLength(1);
    expect(await page.$$("svg.chart")).toHaveLength(10);
    // counted in the singular where there is one
    expect(await page.textContent("#headline")).toContain("From 1 input row: 1 distinct valid postcode, 0 rows without a valid postcode, 0 rows repeating an earlier row's postcode (duplicates, looked up once).");
  });

  it("with coordinates: two maps whose hexagons, titles and legend are in the page with scripts off", async () => {
    const { dir, summary } = get("normal");
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      const requests: string[] = [];
      page.on("request", (r) => requests.push(r.url()));
      await page.route(/^(?!file:)/, (route) => route.abort());
      const file = pathToFileURL(join(dir, "out", "report.html")).href;
      await page.goto(file);
      expect(requests).toEqual([file]);
      for (const id of ["map-below-superfast", "map-voice-notspots"]) {
        const hexagons = await page.$$eval(`#${id} svg.map g.bins path`, (ps) => ps.map((p) => p.querySelector("title")?.textContent ?? ""));
        expect(hexagons.length, id).toBeGreaterThan(5);
        for (const t of hexagons) expect(t, id).toMatch(/^\d+ postcodes?, /);
        const legend = await page.$$eval(`#${id} svg.map g.legend text`, (ts) => ts.map((t) => t.textContent));
        expect(legend.slice(0, 6)).toEqual(["0–<10%", "10–<25%", "25–<50%", "50–<75%", "75–100%", "no addresses"]);
        // and how many of the postcodes shown its colours come from
        expect(legend[6]).toMatch(new RegExp(`^Colours from [\\d,]+ of the ${n(summary.postcodes.unique)} postcodes shown \\(those with (broadband|mobile) addresses\\)$`));
        // the legend's table adds up to the postcodes on the map with addresses
        const total = await page.$eval(`#${id} tfoot`, (f) => [...f.querySelectorAll("td")].map((c) => c.textContent));
        expect(Number(total[1]!.replace(/,/g, ""))).toBeLessThanOrEqual(summary.postcodes.unique);
      }
      expect(await page.textContent("#map")).toContain(`${n(summary.postcodes.unique)} postcodes on the map`);
      const png = await page.locator("#map").screenshot({ path: join(dir, "map.png") });
      expect(png.subarray(1, 4).toString()).toBe("PNG");
    } finally {
      await context.close();
    }
  });

  it("no mobile lookup: says so, with no mobile chart", async () => {
    const { page } = get("no mobile lookup");
    expect(await page.textContent("#mobile")).toContain("This run did not ask for the mobile lookup");
    expect(await page.$$("#mobile svg")).toHaveLength(0);
    expect(await page.$$("#broadband svg.chart")).toHaveLength(2);
  });

  it("all postcodes not found: sentences, not one chart", async () => {
    const { page, summary } = get("all not found");
    expect(summary.broadband!.postcodes.notFound).toBe(3);
    expect(await page.$$("svg")).toHaveLength(0);
    expect(await page.textContent("#broadband")).toContain("No broadband figures: none found: the API knows none of these postcodes (0 postcodes found, 3 not found, 0 failed).");
    expect(await page.textContent("#mobile")).toContain("No mobile figures: none found: the API knows none of these postcodes (0 postcodes found, 3 not found, 0 failed).");
    const figures = await page.$$eval("dl.figures dd", (dds) => dds.map((d) => d.textContent));
    expect(figures.slice(1)).toEqual(["none found: the API knows none of these postcodes", "none found: the API knows none of these postcodes"]);
    expect(await page.textContent("#headline")).toContain("No lookup has found any of these postcodes");
  });
});

describe.skipIf(BROWSER.skip)("while postcodes are unanswered", () => {
  it("charts the estimates with an error bar per share and the basis sentence beside", async () => {
    const dir = tempDir("pcc-html-browser-");
    dirs.push(dir);
    const input = writeCsv(dir, "in.csv", ["postcode", ...known.slice(0, 80)]);
    const run = await runIn(dir, { in: input, simulate: true, maxRequests: 40 }, {}, { simulator: { seed: SEED } });
    expect(run.exitCode).toBe(3);
    const summary = readSummaryJson<Summary>(join(dir, "out", "summary.json"));
    const e = summary.estimates!;
    expect(e.exact).toBe(false);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await page.route(/^(?!file:)/, (route) => route.abort());
      await page.goto(pathToFileURL(join(dir, "out", "report.html")).href);
      expect(await page.textContent("#estimates-chart .reading")).toContain(`estimated from ${e.answeredPostcodes} of 80 postcodes (95% interval)`);
      // the error bars: a custom series' lines (silent marks), each drawn, one line and two caps per share with an interval
      const bars = await page.$$eval('#estimates-chart svg.chart path[ecmeta_ssr_type="chart"]', (ps) =>
        ps.map((p) => {
          const { width, height } = (p as SVGGraphicsElement).getBBox();
          return { whisker: p.getAttribute("ecmeta_silent") === "true", box: { width, height } };
        }),
      );
      const withInterval = ["belowDecent", "belowSuperfast", "indoorVoiceTotalNotspot", "indoorDataTotalNotspot"].filter((k) => e.shares[k]!.high! > e.shares[k]!.low!);
      expect(withInterval.length).toBeGreaterThan(0);
      const whiskers = bars.filter((b) => b.whisker);
      expect(whiskers).toHaveLength(3 * withInterval.length);
      for (const w of whiskers) expect(w.box.width + w.box.height).toBeGreaterThan(4);
      expect(bars.filter((b) => !b.whisker).length).toBeGreaterThan(0);
      // each bar's label past its interval, none cut off or overlapping
      const labels = await page.$$eval("#estimates-chart svg.chart text", (ts) => ts.map((t) => t.textContent ?? ""));
      for (const k of withInterval) expect(labels.some((l) => / \(\d+\.\d% to \d+\.\d%\)$/.test(l)), k).toBe(true);
      const box = await page.$eval("#estimates-chart svg.chart", (s) => s.getBoundingClientRect().right);
      const rights = await page.$$eval("#estimates-chart svg.chart text", (ts) => ts.map((t) => t.getBoundingClientRect().right));
      for (const r of rights) expect(r).toBeLessThanOrEqual(box + 0.5);
    } finally {
      await page.close();
    }
  });
});
