// Which character separates the cells: spreadsheets in many locales export ";" and some tools tabs.
// Decided from the header line: the candidate seen most often outside quotes; "," when none is.
// Excel also honours a first line "sep=;" naming the delimiter, and some exports write one.

export const DELIMITERS = [",", ";", "\t", "|"] as const;
export type Delimiter = (typeof DELIMITERS)[number];
export const DELIMITER_NAMES: Record<Delimiter, string> = { ",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe" };

export function detectDelimiter(firstLine: string): Delimiter {
  const counts = new Map<Delimiter, number>(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const ch of firstLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && counts.has(ch as Delimiter)) counts.set(ch as Delimiter, counts.get(ch as Delimiter)! + 1);
  }
  let best: Delimiter = ",";
  for (const d of DELIMITERS) if (counts.get(d)! > counts.get(best)!) best = d;
  return best;
}

/** The delimiter an Excel "sep=X" first line names, or null when the first line is not one. */
export function excelSepLine(firstLine: string): Delimiter | null {
  const m = /^sep=(.) *$/i.exec(firstLine);
  if (!m) return null;
  return (DELIMITERS as readonly string[]).includes(m[1]!) ? (m[1] as Delimiter) : null;
}
