// The stylesheet, inlined in report.html: a readable column on screen, the chart and its table
// side by side where there is room, and clean A4 pages in print (no figure split across pages).
import { INK } from "./palette.js";

export const CSS = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1180px; padding: 24px 32px 48px; font: 15px/1.45 Helvetica, Arial, sans-serif; color: ${INK}; background: #fff; }
h1 { font-size: 28px; margin: 0 0 4px; }
h2 { font-size: 21px; margin: 36px 0 8px; padding-top: 8px; border-top: 2px solid ${INK}; }
h3 { font-size: 16px; margin: 20px 0 4px; }
p { margin: 6px 0; }
.meta { color: #444; }
.simulated { border: 2px dashed ${INK}; padding: 8px 12px; font-weight: normal; }
dl.figures { display: flex; flex-wrap: wrap; gap: 12px 40px; margin: 16px 0; }
dl.figures dt { font-size: 13px; color: #444; }
dl.figures dd { margin: 0; font-size: 28px; font-weight: bold; }
.releases ul { margin: 2px 0; padding-left: 20px; }
figure { margin: 12px 0 24px; break-inside: avoid; page-break-inside: avoid; }
.reading { font-style: italic; }
.empty { padding: 10px 12px; border-left: 4px solid #888; background: #f3f3f3; }
.keep { display: contents; }
figure.pair { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); column-gap: 24px; align-items: start;
  grid-template-areas: "title title" "reading reading" "plot numbers"; }
figure.pair h3 { grid-area: title; }
figure.pair .reading { grid-area: reading; }
figure.pair .plot { grid-area: plot; }
figure.pair .numbers { grid-area: numbers; }
.stack .numbers { margin-top: 8px; }
.plot svg.chart { display: block; max-width: 100%; height: auto; }
table { border-collapse: collapse; font-size: 13px; width: 100%; }
caption { text-align: left; font-size: 13px; color: #444; padding-bottom: 4px; caption-side: top; }
th, td { padding: 3px 8px; border-bottom: 1px solid #ccc; }
th[scope="col"] { text-align: right; border-bottom: 2px solid ${INK}; vertical-align: bottom; }
th[scope="col"]:first-child, th[scope="col"].text { text-align: left; }
th[scope="row"] { text-align: left; font-weight: normal; white-space: nowrap; }
td { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.text { text-align: left; white-space: normal; }
tfoot th, tfoot td { font-weight: bold; border-top: 2px solid ${INK}; }
dl.terms { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; }
dl.terms dt { font-weight: bold; }
dl.terms dd { margin: 0; }
section > table, section > p + table { max-width: 720px; margin: 12px 0; }
@media (max-width: 900px) { figure.pair { grid-template-columns: 1fr; grid-template-areas: "title" "reading" "plot" "numbers"; } }
@page { size: A4; margin: 14mm 12mm; }
@media print {
  body { max-width: none; padding: 0; font-size: 10.5pt; }
  h2, h3, .reading { break-after: avoid; page-break-after: avoid; }
  /* a figure may continue on the next page between its chart and its table, so that no page is
     left half empty; the chart itself, full width, and each table row stay whole */
  figure { break-inside: auto; page-break-inside: auto; }
  figure.pair { display: block; }
  .keep { display: block; break-inside: avoid; page-break-inside: avoid; }
  .numbers { margin-top: 6px; }
  .plot svg.chart { width: 100%; height: auto; max-height: 240mm; }
  tr, dl.terms { break-inside: avoid; page-break-inside: avoid; }
  thead { display: table-header-group; }
}
`;
