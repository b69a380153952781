// 5. Changes since the previous release: addresses up and down a tier, and indoor voice notspots
// closed and opened per provider.
import { barChart, nothingToDraw } from "../charts.js";
import { figure, section } from "../figure.js";
import { escapeHtml, formatCount } from "../format.js";
import { PALETTE } from "../palette.js";
import { table } from "../tables.js";
import type { ChangesData } from "../types.js";

const n = formatCount;

export function changesSection(c: ChangesData, title: string): string {
  return section("changes", title, `<p class="meta">Compared: ${escapeHtml(c.baseline)}</p>` + tierFigure(c) + notspotFigure(c));
}


function tierFigure(c: ChangesData): string {
  const rows = [
    { name: "Up a tier", value: c.tierUp, colour: PALETTE[0] },
    { name: "Down a tier", value: c.tierDown, colour: PALETTE[4] },
  ];
  const values = rows.map((r) => r.value);
  return figure({
    id: "changes-tiers",
    title: "Addresses that moved broadband tier",
    reading: `${n(c.tierUp)} address${c.tierUp === 1 ? "" : "es"} moved up a tier and ${n(c.tierDown)} down.`,
    chart: nothingToDraw([{ values }])
      ? null
      : barChart({
          title: "Addresses that moved broadband tier",
          categories: rows.map((r) => r.name),
          series: [{ name: "Addresses", values, labels: values.map(n), colour: rows.map((r) => r.colour) }],
          orientation: "horizontal",
          valueAxis: "addresses",
        }),
    empty: "No address moved broadband tier.",
    table: table({
      caption: "Addresses that moved broadband tier",
      columns: ["Change", "Addresses"],
      rows: rows.map((r) => ({ header: r.name, cells: [n(r.value)] })),
    }),
  });
}

function notspotFigure(c: ChangesData): string {
  const closed = c.notspots.map((p) => p.closed);
  const opened = c.notspots.map((p) => p.opened);
  const totalClosed = closed.reduce((a, b) => a + b, 0);
  const totalOpened = opened.reduce((a, b) => a + b, 0);
  const series = [
    { name: "Closed", values: closed, labels: closed.map((v) => `closed ${n(v)}`), colour: PALETTE[1] },
    { name: "Opened", values: opened, labels: opened.map((v) => `opened ${n(v)}`), colour: PALETTE[4] },
  ];
  return figure({
    id: "changes-notspots",
    title: "Indoor voice notspots closed and opened, per provider",
    reading: `Across providers, ${n(totalClosed)} indoor voice notspot${totalClosed === 1 ? " was" : "s were"} closed and ${n(totalOpened)} opened.`,
    chart:
      c.notspots.length === 0 || nothingToDraw(series)
        ? null
        : barChart({
            title: "Indoor voice notspots closed and opened per provider",
            categories: c.notspots.map((p) => p.provider),
            series,
            orientation: "horizontal",
            valueAxis: "addresses",
          }),
    empty: "No indoor voice notspot closed or opened.",
    table: table({
      caption: "Indoor voice notspots closed (the rating rose to good) and opened (fell below good)",
      columns: ["Provider", "Closed", "Opened", "Net closed"],
      rows: c.notspots.map((p) => ({ header: p.provider, cells: [n(p.closed), n(p.opened), n(p.closed - p.opened)] })),
      total: { header: "All providers", cells: [n(totalClosed), n(totalOpened), n(totalClosed - totalOpened)] },
    }),
  });
}
