// Numbers and text as report.html writes them: thousands separators, shares to one decimal (the
// rounding of summary.csv's Percent), and HTML escaping for every piece of text from the data.
import { percent } from "../words/figure-labels.js";

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** 1234567 -> "1,234,567". */
export function formatCount(n: number): string {
  return n.toLocaleString("en-GB");
}

/** 1 -> "1 row", 1234 -> "1,234 rows" (plural by adding "s", or the given plural). */
export function formatCounted(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** 12.345% of a whole -> "12.3%"; "–" (n/a) without a whole. */
export function formatShare(value: number, of: number): string {
  const p = percent(value, of);
  return p === "" ? "–" : `${p}%`;
}

/** The share as a number (one decimal), for chart bars; 0 without a whole. */
export function shareValue(value: number, of: number): number {
  const p = percent(value, of);
  return p === "" ? 0 : Number(p);
}

/** An ISO time as "23 Nov 2026, 16:47 UTC". */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const date = d.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
  const time = d.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit", timeZone: "UTC" });
  return `${date}, ${time} UTC`;
}

/** An ISO time's date: "23 Nov 2026". */
export function formatDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
}
