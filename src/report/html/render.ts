// report.html from its data: one self-contained page (inline CSS, inline SVG, no script, nothing
// fetched). A pure function, so every section is tested with sample data.
import { CSS } from "./css.js";
import { escapeHtml } from "./format.js";
import { aboutSection } from "./sections/about.js";
import { broadbandSection } from "./sections/broadband.js";
import { changesSection } from "./sections/changes.js";
import { groupsSection } from "./sections/groups.js";
import { headlineSection } from "./sections/headline.js";
import { mobileSection } from "./sections/mobile.js";
import { openDataSection } from "./sections/open-data.js";
import { mapSection } from "./sections/map.js";
import { estimatesSection, showsEstimates } from "./sections/estimates.js";
import type { HtmlReportData } from "./types.js";
import { isAnsweredOnly } from "../words/answered-only.js";

export function renderHtmlReport(data: HtmlReportData): string {
  const s = data.summary;
  // Sections are numbered as shown: groups and changes appear only when there are some.
  const sections: ((title: (name: string) => string) => string)[] = [
    (t) => broadbandSection(data, t("Broadband")),
    (t) => mobileSection(data, t("Mobile")),
  ];
  if (showsEstimates(s)) sections.push((t) => estimatesSection(s, t("Estimates for the whole list")));
  if (s.openData) sections.push((t) => openDataSection(s.openData!, t("Open data for postcodes without API figures")));
  const lookups = { broadband: s.broadband !== null, mobile: s.mobile !== null };
  if (data.map) sections.push((t) => mapSection(data.map!, lookups, t("Where"), isAnsweredOnly(s)));
  if (data.groups && data.groups.length > 0) sections.push((t) => groupsSection(data.groups!, t("Groups"), isAnsweredOnly(s)));
  if (data.changes) sections.push((t) => changesSection(data.changes!, t("Changes since the previous release")));
  sections.push((t) => aboutSection(data, t("Definitions and what the run did")));
  const body = sections.map((render, i) => render((name) => `${i + 1}. ${name}`)).join("\n");
  const title = `Coverage report, ${s.runId === null ? "all stored postcodes" : `run ${s.runId}`}${s.simulated ? " (simulated)" : ""}`;
  return [
    "<!DOCTYPE html>",
    `<html lang="en-GB">`,
    "<head>",
    `<meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    // nothing may be loaded from anywhere: the page must open the same offline
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<title>${escapeHtml(title)}</title>`,
    `<style>${CSS}</style>`,
    "</head>",
    "<body>",
    headlineSection(data),
    `<main>`,
    body,
    `</main>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
