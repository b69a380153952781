// Data tables: a caption, column headers, a header cell for each row (scope set, so a screen
// reader names the row and column of every number), numbers right-aligned as text people copy.
import { escapeHtml } from "./format.js";

export interface TableSpec {
  caption: string;
  /** the first names the row header column */
  columns: string[];
  rows: { header: string; cells: string[] }[];
  /** a final row of totals, marked up as the table's foot */
  total?: { header: string; cells: string[] };
  /** indexes (into cells) of columns of words, which wrap and align left */
  textColumns?: number[];
}

export function table(spec: TableSpec): string {
  const text = new Set(spec.textColumns ?? []);
  const row = (r: { header: string; cells: string[] }) =>
    `<tr><th scope="row">${escapeHtml(r.header)}</th>${r.cells.map((c, i) => `<td${text.has(i) ? ` class="text"` : ""}>${escapeHtml(c)}</td>`).join("")}</tr>`;
  return [
    `<table>`,
    `<caption>${escapeHtml(spec.caption)}</caption>`,
    // columns[i + 1] heads cells[i]
    `<thead><tr>${spec.columns.map((c, i) => `<th scope="col"${text.has(i - 1) ? ` class="text"` : ""}>${escapeHtml(c)}</th>`).join("")}</tr></thead>`,
    `<tbody>${spec.rows.map(row).join("")}</tbody>`,
    spec.total ? `<tfoot>${row(spec.total)}</tfoot>` : "",
    `</table>`,
  ].join("");
}
