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
  const id = escapeHtml(f.id);
  const title = `<h3 id="${id}-title">${escapeHtml(f.title)}</h3>`;
  const attributes = `id="${id}" aria-labelledby="${id}-title"`;
  if (f.chart === null) return `<figure ${attributes}>${title}<p class="empty">${escapeHtml(f.empty)}</p></figure>`;
  // title, reading and chart in one block that printing keeps on one page; on screen the block
  // dissolves into the figure's grid, the table beside the chart
  const keep = `<div class="keep">${title}<p class="reading">${escapeHtml(f.reading)}</p><div class="plot">${f.chart}</div></div>`;
  return `<figure ${attributes} class="${f.wide ? "stack" : "pair"}">${keep}<div class="numbers">${f.table ?? ""}</div></figure>`;
}

/** A numbered section of the report. */
export function section(id: string, title: string, content: string): string {
  return `<section id="${escapeHtml(id)}" aria-labelledby="${escapeHtml(id)}-h"><h2 id="${escapeHtml(id)}-h">${escapeHtml(title)}</h2>${content}</section>`;
}

/** A paragraph of plain text. */
export function paragraph(text: string, className?: string): string {
  return `<p${className ? ` class="${className}"` : ""}>${escapeHtml(text)}</p>`;
}
