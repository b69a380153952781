// 1. Headline: what the report covers, from which release(s), when, and whether it is simulated.
import { escapeHtml, formatCount, formatCounted, formatDate, formatTime } from "../format.js";
import { duplicateRows, type Summary } from "../../summary/summary.js";
import type { HtmlReportData } from "../types.js";
import { answeredOnlyWords, answeredWords, listLead, restWords } from "../../summary/list-lead.js";
import { intervalText } from "../../words/estimate-words.js";
import { TOO_FEW_ANSWERED } from "../../estimates/estimate-caveats.js";
import { ANSWERED_ONLY } from "../../words/answered-only.js";
import { hasAnswers, noAnswerWords, type LookupAnswers } from "../../summary/without-answers.js";

export function headlineSection(data: HtmlReportData): string {
  const s = data.summary;
  const scope = s.runId === null ? "All stored postcodes" : `Run ${s.runId}`;
  const figures: [string, string][] = [["Postcodes", formatCount(s.postcodes.unique)]];
  // beside a partly answered list's lead, the addresses are the answered postcodes' alone
  const answered = listLead(s) ? ` (${ANSWERED_ONLY})` : "";
  // a lookup without answers has no address count: it says why instead of 0
  const addresses = (l: LookupAnswers) => (hasAnswers(l) ? formatCount(l.addresses) : noAnswerWords(l.postcodes));
  if (s.broadband) figures.push([`Broadband addresses${answered}`, addresses(s.broadband)]);
  if (s.mobile) figures.push([`Mobile addresses${answered}`, addresses(s.mobile)]);
  return [
    `<header id="headline">`,
    `<h1>Broadband and mobile coverage</h1>`,
    `<p class="meta">${escapeHtml(scope)} · report generated ${escapeHtml(formatTime(s.generatedAt))}</p>`,
    s.simulated
      ? `<p class="simulated"><strong>Simulated</strong>: these figures come from the bundled simulator, not the real coverage API. Do not quote them.</p>`
      : "",
    leadBlock(s),
    `<dl class="figures">${figures.map(([k, v]) => `<div><dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd></div>`).join("")}</dl>`,
    inputParagraph(s),
    releases(s),
    `</header>`,
  ].join("");
}

/** The input's rows: distinct postcodes, the rows without one (pointing at rejects.csv, beside this page) and the duplicates. */
function inputParagraph(s: Summary): string {
  if (s.postcodes.input === null) return "";
  const invalid = s.postcodes.invalid ?? 0;
  const rejects = invalid === 0 ? "" : ` (each listed with its cells and the reason in <a href="rejects.csv">rejects.csv</a>)`;
  const duplicates = duplicateRows(s) ?? 0;
  return (
    `<p class="input-rows">From ${formatCounted(s.postcodes.input, "input row")}: ${formatCounted(s.postcodes.unique, "distinct valid postcode")}, ` +
    `${formatCounted(invalid, "row")} without a valid postcode${rejects}, ` +
    `${formatCounted(duplicates, "row")} repeating an earlier row's postcode (duplicates, looked up once).</p>`
  );
}

/** The summary's releases (summary.json `releases`), so the page names exactly what the figures come from. */
function releases(s: Summary): string {
  const list = s.lookups.flatMap((lookup) => s.releases[lookup].map((r) => ({ lookup, ...r })));
  if (list.length === 0) return `<p class="releases">No lookup has found any of these postcodes, so there is no release to name.</p>`;
  const line = (r: (typeof list)[number]) => {
    const name = r.release === null ? "release not named by the API" : `release ${r.release}`;
    const from = r.fetchedFrom === null ? null : formatDate(r.fetchedFrom);
    const to = r.fetchedTo === null ? null : formatDate(r.fetchedTo);
    const when = from === null ? "" : from === to || to === null ? `, fetched ${from}` : `, fetched ${from} to ${to}`;
    return `<li>${escapeHtml(`${r.lookup}: ${name}, ${formatCount(r.postcodes)} postcode${r.postcodes === 1 ? "" : "s"}${when}`)}</li>`;
  };
  return `<div class="releases"><p>Data:</p><ul>${list.map(line).join("")}</ul></div>`;
}

/**
 * A partly answered list opens with the whole list: its estimates with their 95% intervals, how much
 * is answered and when the rest will be, the answered-only figures beside them; nothing when every
 * postcode is answered (the sections below are then exact).
 */
function leadBlock(s: Summary): string {
  const lead = listLead(s);
  if (!lead) return "";
  const figure = (f: (typeof lead.figures)[number]) =>
    `<div><dt style="font-size:13px;color:#444">${escapeHtml(f.label)}: all the list's addresses, ${f.exact ? "exact (every postcode answered)" : "estimated (95% interval)"}</dt>` +
    `<dd class="estimate" style="margin:0;font-size:26px;font-weight:bold">${escapeHtml(f.estimate.estimate === null ? TOO_FEW_ANSWERED : intervalText(f.estimate))}</dd>` +
    `<dd class="answered-only" style="margin:0">${ANSWERED_ONLY}: ${escapeHtml(answeredOnlyWords(f))}</dd></div>`;
  return [
    // styled in place: the stylesheet of a fully answered list's page stays as it was
    `<section id="lead" class="lead" style="border:2px solid currentColor;padding:8px 16px;margin:16px 0">`,
    `<p class="lead-status"><strong>Partly answered</strong>: ${escapeHtml(answeredWords(lead))}; ${escapeHtml(restWords(lead))}. The figures below estimate the whole list from them (95% interval); the sections further down count the ${ANSWERED_ONLY}.</p>`,
    lead.capacity ? `<p class="capacity">${escapeHtml(lead.capacity.sentences.join(" "))}</p>` : "",
    `<dl class="lead-figures" style="display:flex;flex-wrap:wrap;gap:12px 40px;margin:12px 0">${lead.figures.map(figure).join("")}</dl>`,
    `<p class="assumption">${escapeHtml(lead.assumption)}</p>`,
    ...lead.caveats.map((c) => `<p class="caution"><strong>Caution</strong>: ${escapeHtml(c)}</p>`),
    `</section>`,
  ].join("");
}
