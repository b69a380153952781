// 6. Definitions, and what the run did: requests, failures, pending postcodes.
import type { Lookup } from "../../../contract/fields.js";
import { SPEED_THRESHOLDS as T } from "../../../figures/definitions.js";
import { goodJudgingWords, ratingWords, SCALES, type MobileScale } from "../../../contract/mobile-scales.js";
import { judgingOfSummary, scaleMixWords } from "../../scale/scale-figures.js";
import type { OutcomeCounts } from "../../../contract/counts.js";
import { section } from "../figure.js";
import { escapeHtml, formatCount, formatCounted, formatShare, formatTime } from "../format.js";
import { table } from "../tables.js";
import type { HtmlReportData } from "../types.js";

const n = formatCount;

export function aboutSection(data: HtmlReportData, title: string): string {
  return section("about", title, definitions(data) + runTables(data));
}

function definitions(data: HtmlReportData): string {
  const terms: [string, string][] = [
    ["Speeds", "Mbit/s, the best predicted service at the address (MaxPredictedDown and MaxPredictedUp); -1 means no prediction."],
    ["No data", "no predicted speed (-1 or absent): counted apart, in no other tier."],
    ["Below decent", `a prediction, but under ${T.decentDown} Mbit/s down or under ${T.decentUp} Mbit/s up: short of the broadband Universal Service Obligation.`],
    ["Decent", `at least ${T.decentDown} Mbit/s down and ${T.decentUp} up (the Universal Service Obligation).`],
    ["Superfast (band)", `${T.superfast} to under ${n(T.ultrafast)} Mbit/s down; "at least superfast" counts every address at ${T.superfast} or more.`],
    ["Ultrafast (band)", `${n(T.ultrafast)} to under ${n(T.gigabit)} Mbit/s down; "at least ultrafast" counts every address at ${n(T.ultrafast)} or more.`],
    ["Gigabit", `at least ${n(T.gigabit)} Mbit/s down.`],
    ["Tiers", "each address is counted in the highest tier it reaches, so the tiers add up to all addresses."],
    ...mobileScaleTerms(data),
    ["Notspot", "a provider's rating below good at the address (indoor voice: VoiceIndoor; indoor data: DataIndoor)."],
    ["Total notspot", "no provider is good at the address; partial: some providers are good, not all."],
    ["Needs 4G", "good indoor data with 4G, not good without it (the No4g rating)."],
    ["Shares", "of all the lookup's addresses in the report, one decimal place."],
  ];
  if (data.map?.layout)
    terms.push(
      ["Map", "each hexagon sums the addresses of the postcodes placed in it by --area-file; its colour is their share affected, in the classes of the legend."],
      ["Map data", "coastline and borders from Natural Earth (naturalearthdata.com, public domain), through the world-atlas package (ISC licence); postcode positions from the area file (for the ONS Postcode Directory: Open Government Licence, with its Ordnance Survey and Royal Mail attributions)."],
    );
  return (
    `<h3>Definitions</h3><dl class="terms">${terms.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join("")}</dl>` +
    `<p class="meta attribution">${escapeHtml(data.summary.attribution)}</p>` +
    `<p>Every figure here is also in summary.json and summary.csv; the addresses behind them are in broadband.csv, mobile.csv and coverage.csv (docs/reports.md describes them).</p>`
  );
}

/** The mobile scale in Ofcom's words: which one, why, and what is good on it. */
function mobileScaleTerms(data: HtmlReportData): [string, string][] {
  const m = data.summary.mobile;
  if (!m) return [];
  const judging = judgingOfSummary(m);
  const words = (scale: MobileScale) => `${SCALES[scale].title}: ${SCALES[scale].values.map((v) => ratingWords(scale, v.rating)).join("; ")}`;
  const mix = scaleMixWords(m);
  return [
    ["Mobile ratings", `${judging.map((j) => words(j.scale)).join(". ")}. Used because: ${m.scaleReason}.`],
    ["Good mobile coverage", `${goodJudgingWords(judging)}.`],
    ...(mix ? [["Two scales", `${mix}.`] as [string, string]] : []),
    ...(m.scaleChange ? [["Change of scale", `${m.scaleChange}.`] as [string, string]] : []),
  ];
}

function runTables(data: HtmlReportData): string {
  const s = data.summary;
  const run = data.run;
  const parts: string[] = [`<h3>What the run did</h3>`];
  if (run) {
    const rows: [string, string][] = [
      ["Run", `${run.id}${s.scope === "all" ? " (the latest; this report covers all stored postcodes)" : ""}`],
      ...(s.input?.postcodeColumn ? [["Postcode column", `${s.input.postcodeColumn} (the input column the postcodes were read from)`] as [string, string]] : []),
      ["State", run.state + (run.message ? `: ${run.message}` : "")],
      ["Started", formatTime(run.startedAt)],
      ["Ended", run.endedAt ? formatTime(run.endedAt) : "not ended"],
      ["Requests", n(run.requests)],
      ["Retries", n(run.retries)],
      ["Rate limited (429)", n(run.throttled)],
    ];
    parts.push(table({ caption: "The run", columns: ["Figure", "Value"], rows: rows.map(([header, value]) => ({ header, cells: [value] })) }));
  }
  const lookups: [Lookup, OutcomeCounts][] = [];
  if (s.broadband) lookups.push(["broadband", s.broadband.postcodes]);
  if (s.mobile) lookups.push(["mobile", s.mobile.postcodes]);
  if (lookups.length > 0) {
    const u = s.postcodes.unique;
    const cell = (v: number) => `${n(v)} (${formatShare(v, u)})`;
    parts.push(
      table({
        caption: `Postcodes by the answer of each lookup, of ${formatCounted(u, "postcode")}`,
        columns: ["Lookup", "Found", "Not found", "Failed", "Pending", "Expired, awaiting refresh"],
        rows: lookups.map(([l, p]) => ({ header: l, cells: [cell(p.ok), cell(p.notFound), cell(p.failed), cell(p.pending), cell(p.expired ?? 0)] })),
      }),
    );
    const failed = lookups.some(([, p]) => p.failed > 0);
    const pending = lookups.some(([, p]) => p.pending > 0);
    const expired = lookups.some(([, p]) => (p.expired ?? 0) > 0);
    if (failed || pending || expired)
      parts.push(
        `<p>${escapeHtml(
          [
            failed ? "failures.csv says why each failed postcode failed" : "",
            pending ? "pending postcodes have no answer yet (the run stopped early)" : "",
            expired ? "expired postcodes' answers are past the retention (--retention) and are not shown, as Ofcom's terms ask" : "",
          ]
            .filter(Boolean)
            .join("; ") + "; the next batch fetches them again.",
        )}</p>`,
      );
  }
  return parts.join("");
}
