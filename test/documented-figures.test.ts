// The quota and the mobile rating scales are each stated once, on one page (docs/api-notes.md's
// "The quota", docs/reports.md's "Mobile ratings"); every other page links there. This reads
// README.md and docs/ for figures that contradict those statements, or the code they describe.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ROOT } from "./helpers/child-cli.js";
import { SCALES, MOBILE_SCALES, type MobileScale } from "../src/contract/mobile-scales.js";
import { BATCH_OPTIONS, DEFAULT_RATE } from "../src/cli/batch-options.js";
import { DEFAULT_RETENTION_DAYS, expiryShortfall } from "../src/plan/retention.js";
import { allowance, quotaPeriod } from "../src/plan/quota-plan.js";
import { capacity } from "../src/plan/capacity.js";

const DAY_MS = 24 * 3600 * 1000;
const QUOTA_PAGE = "docs/api-notes.md";
const SCALE_PAGE = "docs/reports.md";
/** The Basic and Premium plans' requests per product in 28 days, as the one statement gives them. */
const PLAN_QUOTAS = ["50,000", "150,000"];

function pages(): { page: string; text: string }[] {
  const names = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
  // a page's line breaks are only wrapping: a phrase may span two lines
  return names.map((page) => ({ page, text: readFileSync(join(ROOT, page), "utf8").replace(/\s*\n\s*/g, " ") }));
}

/** The text of a page's `## heading` (or `### heading`) section, up to the next heading of its level. */
function section(page: string, heading: string): string {
  const text = readFileSync(join(ROOT, page), "utf8");
  const level = /^#+/.exec(heading)![0];
  const start = text.indexOf(`\n${heading}\n`);
  expect(start, `${page} has a section "${heading}"`).toBeGreaterThanOrEqual(0);
  const rest = text.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n${level} `));
  return (end < 0 ? rest : rest.slice(0, end)).replace(/\s*\n\s*/g, " ");
}

const n = (x: number) => x.toLocaleString("en-GB");

/** Every `pattern` match of every page but `except`, as "page: match". */
function matchesOutside(pattern: RegExp, except: string[] = []): string[] {
  return pages()
    .filter((p) => !except.includes(p.page))
    .flatMap((p) => [...p.text.matchAll(pattern)].map((m) => `${p.page}: ${m[0]}`));
}

describe("the quota, stated once", () => {
  const quota = () => section(QUOTA_PAGE, "## The quota");

  test("its page gives each product's quota in 28 days and what a postcode costs", () => {
    const text = quota();
    expect(text).toContain("| Basic | 100 | 50,000 |");
    expect(text).toContain("| Premium | 500 | 150,000 |");
    expect(text).toMatch(/requests in 28 days, per product/);
    expect(text).toMatch(/One request per lookup/);
    expect(text).toMatch(/a Basic key pair answers up to 50,000 postcodes in 28 days, both lookups for each/);
    expect(DEFAULT_RATE).toBe(100);
  });

  test("its worked example is what the planning code does with 40,000 and 60,000 postcodes", () => {
    const text = quota();
    const quotaN = 50_000;
    const period = { days: 28, startMs: Date.UTC(2026, 0, 5) };
    const retentionMs = DEFAULT_RETENTION_DAYS * DAY_MS;
    // the first night: new postcodes may take all the period has left, at --rate's default
    const first = allowance(quotaN, 0, 40_000, period.startMs, quotaPeriod(period.startMs, period), false);
    expect(first.remaining).toBeGreaterThanOrEqual(40_000);
    const minutes = 40_000 / DEFAULT_RATE;
    expect(text).toContain(`${minutes} minutes (${Math.floor(minutes / 60)} h ${minutes % 60} min)`);
    // what the quota keeps answered within the retention: the planner's own capacity
    const keep = (listSize: number) => capacity({ quota: quotaN, periodDays: period.days, maxAgeMs: 30 * DAY_MS, retentionMs, listSize });
    const kept = keep(40_000);
    expect(text).toContain(`50,000 × ${kept.lifeNights} ÷ 28 = ${n(kept.postcodes)} postcodes answered at once`);
    expect(kept.exceeded).toBe(false);
    expect(text).toContain(`about ${n(kept.quotaNeeded)} requests a period`);
    expect(expiryShortfall({ listSize: 40_000, quota: quotaN, periodDays: period.days, maxAgeMs: 30 * DAY_MS, retentionMs, oldestAnswer: null }).postcodes).toBe(0);
    const lost = expiryShortfall({ listSize: 60_000, quota: quotaN, periodDays: period.days, maxAgeMs: 30 * DAY_MS, retentionMs, oldestAnswer: null }).postcodes;
    expect(lost).toBe(60_000 - keep(60_000).postcodes);
    expect(text).toContain(`keeps only ${n(kept.postcodes)} of them answered: ${n(lost)} expire unanswered`);
    // the defaults it names are the options' own
    expect(text).toContain(`\`--max-age\` (${parseInt(String(BATCH_OPTIONS.maxAge.default), 10)} days)`);
    expect(String(BATCH_OPTIONS.maxAge.default)).toBe("30d");
    expect(text).toContain(`deleted ${DEFAULT_RETENTION_DAYS} days after the API returned it`);
  });

  test("no other page restates the plans' quotas, and none counts the quota in postcodes a month", () => {
    const restated = new RegExp(`\\b(?:${PLAN_QUOTAS.join("|")}|25,000)\\b[^.|]{0,40}\\b(?:month|28 days|period|quota)\\b|\\b(?:month|28 days)\\b[^.|]{0,30}\\b(?:${PLAN_QUOTAS.join("|")}|25,000)\\b`, "gi");
    expect(matchesOutside(restated, [QUOTA_PAGE, "docs/bench.md", "docs/measurements.md"])).toEqual([]);
    expect(matchesOutside(/\b[\d,]+ postcodes (?:a|per|each) month\b/gi)).toEqual([]);
  });

  test("the pages that speak of the plans' quota link to its statement", () => {
    for (const page of ["README.md", "docs/history-and-quota.md", "docs/open-data.md"])
      expect(readFileSync(join(ROOT, page), "utf8"), page).toMatch(/api-notes\.md#the-quota/);
  });
});

describe("the rating scales' words and the default good rating, stated once", () => {
  const labels = MOBILE_SCALES.flatMap((scale) => SCALES[scale].values.map((v) => ({ scale, ...v })));
  const labelPattern = new RegExp(`\\b(${[...new Set(labels.map((l) => l.label))].join("|")}) \\((\\d)\\)`, "g");
  /** The scales that give `label` to `rating`. */
  const scalesOf = (label: string, rating: number): MobileScale[] => labels.filter((l) => l.label === label && l.rating === rating).map((l) => l.scale);

  test("its page's table is the declaration: every rating, label, meaning and good mark", () => {
    const text = section(SCALE_PAGE, "### Mobile ratings");
    for (const scale of MOBILE_SCALES)
      for (const v of SCALES[scale].values) {
        const good = v.rating >= SCALES[scale].goodRating ? "yes" : "";
        expect(text).toMatch(new RegExp(`\\| ${v.rating} \\| ${v.label} \\| ${v.meaning} \\| ${good} ?\\|`));
      }
  });

  test("every page names each rating by its own label", () => {
    const wrong = pages().flatMap((p) => [...p.text.matchAll(labelPattern)].filter((m) => scalesOf(m[1]!, Number(m[2])).length === 0).map((m) => `${p.page}: ${m[0]}`));
    expect(wrong).toEqual([]);
  });

  test("every page's good coverage is the scale's: no rating below its scale's good one is called good", () => {
    const notGood = pages().flatMap((p) =>
      [...p.text.matchAll(/good coverage\**:\** ((?:\w+ \(\d\)(?:, | or )?)+)/g)].flatMap((m) =>
        [...m[1]!.matchAll(labelPattern)]
          .filter((l) => !scalesOf(l[1]!, Number(l[2])).some((scale) => Number(l[2]) >= SCALES[scale].goodRating))
          .map((l) => `${p.page}: ${m[0]} (${l[0]})`),
      ),
    );
    expect(notGood).toEqual([]);
  });

  test("no page gives the default good rating as one bare number, or counts a number and above as good", () => {
    expect(matchesOutside(/--good-rating`?[^.|]{0,40}?\bdefaults?(?: to| is)?:? \d\b(?! \()/gi)).toEqual([]);
    expect(matchesOutside(/\b\d (?:and above|or above|or more) (?:as|is|are|count as) good\b/gi)).toEqual([]);
  });

  test("Ofcom's meanings are given only on the scales' page; the others link to it", () => {
    // a meaning of two words ("no signal") is common English too: the longer ones tell
    const meanings = labels.filter((l) => l.meaning.split(" ").length > 2).map((l) => l.meaning.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    expect(matchesOutside(new RegExp(meanings.join("|"), "gi"), [SCALE_PAGE])).toEqual([]);
    for (const page of ["README.md", "docs/api-notes.md", "docs/history-and-quota.md"])
      expect(readFileSync(join(ROOT, page), "utf8"), page).toMatch(/reports\.md#mobile-ratings/);
  });
});
