// One figure of the report: a title, a one-line reading, the chart (or a sentence when there is
// nothing to draw) and the table of the chart's numbers beside it.
import { escapeHtml } from "./format.js";

export interface FigureSpec {
  id: string;
  title: string;
  /** one line saying what the chart shows */
  reading: string;
  /** the chart's SVG; null when there is nothing to draw */
  chart: string | null;
  /** said instead of the chart when it is null */
  empty: string;
  /** the table's HTML; null with the chart */
  table: string | null;
  /** a wide table goes below the chart instead of beside it */
  wide?: boolean;
}

export function figure(f: FigureSpec): string {
  const body =
    f.chart === null
      ? `<p class="empty">${escapeHtml(f.empty)}</p>`
      : `<div class="${f.wide ? "stack" : "pair"}"><div class="plot">${f.chart}</div><div class="numbers">${f.table ?? ""}</div></div>`;
  const reading = f.chart === null ? "" : `<p class="reading">${escapeHtml(f.reading)}</p>`;
  return `<figure id="${escapeHtml(f.id)}" aria-labelledby="${escapeHtml(f.id)}-title"><h3 id="${escapeHtml(f.id)}-title">${escapeHtml(f.title)}</h3>${reading}${body}</figure>`;
}

/** A numbered section of the report. */
export function section(id: string, title: string, content: string): string {
  return `<section id="${escapeHtml(id)}" aria-labelledby="${escapeHtml(id)}-h"><h2 id="${escapeHtml(id)}-h">${escapeHtml(title)}</h2>${content}</section>`;
}

/** A paragraph of plain text. */
export function paragraph(text: string, className?: string): string {
  return `<p${className ? ` class="${className}"` : ""}>${escapeHtml(text)}</p>`;
}
