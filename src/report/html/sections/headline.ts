// 1. Headline: what the report covers, from which release(s), when, and whether it is simulated.
import { escapeHtml, formatCount, formatCounted, formatDate, formatTime } from "../format.js";
import type { Summary } from "../../summary.js";
import type { HtmlReportData } from "../types.js";

export function headlineSection(data: HtmlReportData): string {
  const s = data.summary;
  const scope = s.runId === null ? "All stored postcodes" : `Run ${s.runId}`;
  const figures: [string, string][] = [["Postcodes", formatCount(s.postcodes.unique)]];
  if (s.broadband) figures.push(["Broadband addresses", formatCount(s.broadband.addresses)]);
  if (s.mobile) figures.push(["Mobile addresses", formatCount(s.mobile.addresses)]);
  const input =
    s.postcodes.input === null
      ? ""
      : `<p>From ${formatCounted(s.postcodes.input, "input row")}: ${formatCounted(s.postcodes.unique, "distinct valid postcode")}, ${formatCounted(s.postcodes.invalid ?? 0, "row")} without a valid postcode.</p>`;
  return [
    `<header id="headline">`,
    `<h1>Broadband and mobile coverage</h1>`,
    `<p class="meta">${escapeHtml(scope)} · report generated ${escapeHtml(formatTime(s.generatedAt))}</p>`,
    s.simulated
      ? `<p class="simulated"><strong>Simulated</strong>: these figures come from the bundled simulator, not the real coverage API. Do not quote them.</p>`
      : "",
    `<dl class="figures">${figures.map(([k, v]) => `<div><dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd></div>`).join("")}</dl>`,
    input,
    releases(s),
    `</header>`,
  ].join("");
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
