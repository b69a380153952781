// --uprn-column says what it did: how many of the UPRNs named in the input matched an address of
// their postcode's answer, and for the rest whether they look mangled by a spreadsheet (Excel
// shows a 12-digit number as 1.00023E+11 and saves it so, or keeps only its first digits) or are
// simply not in the answer. Only rows whose postcode has an answer count.
import type { ReportSnapshot } from "../../store/snapshot.js";
import { propertyColumns } from "./property-figures.js";

export type UprnMiss = "scientific" | "lost_digits" | "not_in_answer";

export interface UprnMatching {
  /** rows naming a UPRN whose postcode has an answer */
  named: number;
  matched: number;
  /** the unmatched rows, in input order */
  misses: { line: number; cell: string; why: UprnMiss }[];
}

/** A UPRN rounded to its first digits, the rest zeros. */
const ROUNDED = /^([1-9]\d*?)(0{3,})$/;

/** How a UPRN that matched nothing looks, given the UPRNs of its postcode's answer. */
export function classifyUprnMiss(cell: string, answerUprns: readonly number[]): UprnMiss {
  const text = cell.trim();
  if (/^[+]?\d+(?:[.,]\d+)?[eE][+]?\d+$/.test(text)) return "scientific";
  // rounded to its first digits, the rest zeros: an answer's UPRN of the same length starts with them
  const rounded = ROUNDED.exec(text);
  if (rounded && answerUprns.some((u) => String(u).length === text.length && String(u).startsWith(rounded[1]!))) return "lost_digits";
  return "not_in_answer";
}

export async function uprnMatching(snapshot: ReportSnapshot, uprnColumn: string): Promise<UprnMatching> {
  const { index } = propertyColumns(snapshot.scope, uprnColumn);
  const rows = await snapshot.uprnCandidates(index);
  const misses: UprnMatching["misses"] = [];
  for (const r of rows) {
    if (r.found) continue;
    // only a rounded-looking cell needs its postcode's UPRNs: no query per row of a wrong column
    const uprns = ROUNDED.test(r.cell.trim()) ? await snapshot.answerUprns(r.postcode) : [];
    misses.push({ line: r.line, cell: r.cell, why: classifyUprnMiss(r.cell, uprns) });
  }
  return { named: rows.length, matched: rows.length - misses.length, misses };
}

const EXAMPLES = 3;

/** One line for the log: what matched, and what to do about the rest. */
export function describeUprnMatching(m: UprnMatching, uprnColumn: string): string {
  const head = `--uprn-column ${uprnColumn}: `;
  if (m.named === 0) return `${head}no row of a found postcode names a UPRN`;
  if (m.misses.length === 0)
    return head + (m.named === 1 ? "the 1 UPRN matches an address in its postcode's answer" : `all ${m.named} UPRNs match an address in their postcode's answer`);
  const examples = (misses: UprnMatching["misses"]) =>
    misses
      .slice(0, EXAMPLES)
      .map((x) => `line ${x.line}: ${x.cell}`)
      .join(", ") + (misses.length > EXAMPLES ? ", ..." : "");
  const mangled = m.misses.filter((x) => x.why !== "not_in_answer");
  const absent = m.misses.filter((x) => x.why === "not_in_answer");
  const parts = [`${m.matched} of ${m.named} UPRNs match an address in their postcode's answer`];
  if (mangled.length > 0) {
    const kinds = [
      mangled.some((x) => x.why === "scientific") ? "scientific notation" : "",
      mangled.some((x) => x.why === "lost_digits") ? "digits lost to rounding" : "",
    ].filter(Boolean);
    parts.push(
      `${mangled.length} look mangled by a spreadsheet (${kinds.join(", ")}: ${examples(mangled)}); format the column as text in the spreadsheet, type the UPRNs again and save`,
    );
  }
  if (absent.length > 0)
    parts.push(`${absent.length} ${absent.length === 1 ? "is not in its postcode's answer" : "are not in their postcode's answer"} (${examples(absent)})`);
  return head + parts.join("; ");
}
