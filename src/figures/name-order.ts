// The order of group names in every report (postcode areas, districts, sectors, input and area-file
// values): natural, so a number inside a name counts as a number (LS1, LS2, LS10, LS11, not LS1,
// LS10, LS11, LS2). Only where both names hold a number at the same place does it differ from the
// order it refines; the reports sort in JavaScript, so both engines give the same order.

/** Byte order of the UTF-8 text (code-point order): what SQLite's ORDER BY gives text by default. */
export function codePointOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/** The user's language's order, as the estimates' groups were sorted before numbers counted. */
export const byLocale = (a: string, b: string): number => a.localeCompare(b);

/** `a` before `b` (negative), after (positive) or the same (0): digit runs as numbers, the rest by `text`. */
export function naturalOrder(a: string, b: string, text: (a: string, b: string) => number = codePointOrder): number {
  // split on digit runs: text at even indexes, digits at odd ones
  const xs = a.split(/(\d+)/);
  const ys = b.split(/(\d+)/);
  for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
    const [x, y] = [xs[i]!, ys[i]!];
    if (x === y) continue;
    if (i % 2 === 1) {
      const d = compareNumbers(x, y);
      if (d !== 0) return d;
      continue;
    }
    // the names part here: the rest of each, in the refined order
    return text(xs.slice(i).join(""), ys.slice(i).join(""));
  }
  return text(a, b);
}

/** Two runs of digits as whole numbers, any length (leading zeros aside). */
function compareNumbers(x: string, y: string): number {
  const [p, q] = [x.replace(/^0+(?=\d)/, ""), y.replace(/^0+(?=\d)/, "")];
  return p.length - q.length || codePointOrder(p, q);
}
