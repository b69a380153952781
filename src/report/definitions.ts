// What the reports' words mean, as numbers: one place for every threshold (docs/reports.md cites
// the sources). SQL expressions and CSV columns are generated from these.

/** Speeds are Mbit/s. Decent = the UK broadband Universal Service Obligation (10 down, 1 up). */
export const SPEED_THRESHOLDS = {
  decentDown: 10,
  decentUp: 1,
  superfast: 30,
  ultrafast: 300,
  gigabit: 1000,
} as const;

/** The Tier column of broadband.csv, best first. */
export const TIERS = ["Gigabit", "Ultrafast", "Superfast", "Decent", "Below decent", "No data"] as const;
export type Tier = (typeof TIERS)[number];

/** Ratings at or above this count as good mobile coverage (3 = "Green"). */
export const DEFAULT_GOOD_RATING = 3;

/** Excel's sheet holds 1,048,576 rows, the header included. */
export const EXCEL_MAX_ROWS = 1_048_576;

/**
 * An address's tier from its overall maximum speeds, in JavaScript: for what SQL cannot see (the
 * stored versions of changes.csv). The same rules as tierSql in measures.ts; a test holds them equal.
 */
export function tierOf(down: number | null, up: number | null): Tier {
  const T = SPEED_THRESHOLDS;
  if (down === null || down < 0) return "No data";
  if (down >= T.gigabit) return "Gigabit";
  if (down >= T.ultrafast) return "Ultrafast";
  if (down >= T.superfast) return "Superfast";
  if (down >= T.decentDown && (up ?? -1) >= T.decentUp) return "Decent";
  return "Below decent";
}
