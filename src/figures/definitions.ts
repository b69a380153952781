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

/** Excel's sheet holds 1,048,576 rows, the header included. */
export const EXCEL_MAX_ROWS = 1_048_576;

/**
 * The tier rule, written once: the first rule whose thresholds an address's overall maximum speeds
 * meet gives its tier (they nest, best first); none met is "Below decent", no download is "No data".
 * tierOf (JavaScript), tierSql (measures.ts) and the histogram's bins (report/html/data.ts) all read it.
 */
export const TIER_RULES: readonly { tier: Tier; minDown: number; minUp?: number }[] = [
  { tier: "Gigabit", minDown: SPEED_THRESHOLDS.gigabit },
  { tier: "Ultrafast", minDown: SPEED_THRESHOLDS.ultrafast },
  { tier: "Superfast", minDown: SPEED_THRESHOLDS.superfast },
  // An absent or -1 upload does not meet the USO's 1 Mbit/s.
  { tier: "Decent", minDown: SPEED_THRESHOLDS.decentDown, minUp: SPEED_THRESHOLDS.decentUp },
];

/**
 * An address's tier from its overall maximum speeds, in JavaScript: for what SQL cannot see (the
 * stored versions of changes.csv). tierSql in measures.ts is the same rule; a test holds them equal.
 */
export function tierOf(down: number | null, up: number | null): Tier {
  if (down === null || down < 0) return "No data";
  return TIER_RULES.find((r) => down >= r.minDown && (r.minUp === undefined || (up ?? -1) >= r.minUp))?.tier ?? "Below decent";
}

/** The tier a download speed alone reaches (a histogram bin knows no upload, so Decent needs only its download). */
export function downloadTier(down: number): Tier {
  return TIER_RULES.find((r) => down >= r.minDown)?.tier ?? "Below decent";
}
