// Small pure helpers for figures.

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("median of no values");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/** Rounded to `digits` decimals, for bench.json and the table. */
export function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function percent(share: number, digits = 2): string {
  return `${(share * 100).toFixed(digits)}%`;
}

/** Scales a full-run size down for --quick, never below `min`. */
export function scaled(full: number, quick: boolean, factor: number, min = 1): number {
  return quick ? Math.max(min, Math.round(full * factor)) : full;
}

export function thousands(n: number): string {
  return Math.round(n).toLocaleString("en-GB");
}
