/** "A", ..., "Z", "AA", ..., "ZZ", "AAA": a column's letters from its 1-based number. */
export function columnLetter(n: number): string {
  let s = "";
  for (let i = n; i > 0; i = Math.floor((i - 1) / 26)) s = String.fromCharCode(65 + ((i - 1) % 26)) + s;
  return s;
}
