// The evidence for each mobile release's rating scale (contract/mobile-scales.ts) as SQL: per release
// the scope's answers name, how many ratings its addresses hold and how many of them are 1 or 2.
// Each answer's counts are stored with it when it is written (lookups' STORED_EVIDENCE columns), so
// the evidence is a sum over answers, not over every rating of every address; an answer stored
// before those columns has them NULL and is counted from its addresses. So are the summary's
// addresses at each rating of the rating places (STORED_RATING_COUNTS). Standard SQL: both engines
// run it as it is (PostgreSQL's order and casts passed in).
import { mobileFields, RATING_MAX, RATING_MIN } from "../../contract/fields.js";
import { LEGACY_ONLY_RATINGS, MOBILE_SCALES, ratingPlaceFields, type MobileScale } from "../../contract/mobile-scales.js";
import { MOBILE_SCALE_COLUMN } from "../../figures/postcode-columns.js";
import { providersOfKey } from "../provider-key.js";
import type { Cell, RowBatches } from "../snapshot.js";

/** The answers whose addresses are counted (alias l of lookups): an answer, or a failed refresh's kept one. */
export const EVIDENCE_ANSWERS = "(l.status = 'ok' OR (l.status = 'failed' AND l.address_count > 0))";

/** The lookups columns holding each mobile answer's evidence: its ratings, and those of 1 or 2. */
export const STORED_EVIDENCE = { ratings: "scale_ratings", legacy: "scale_legacy_ratings" } as const;

/** An answer's evidence from its address rows ([uprn, address, ...ratings]): what STORED_EVIDENCE holds. */
export function ratingEvidence(rows: readonly (readonly unknown[])[]): { ratings: number; legacy: number } {
  let ratings = 0;
  let legacy = 0;
  for (const row of rows)
    for (let i = 2; i < row.length; i++) {
      const v = row[i];
      if (v === null || v === undefined) continue;
      ratings++;
      if (LEGACY_ONLY_RATINGS.includes(v as number)) legacy++;
    }
  return { ratings, legacy };
}

/**
 * `postcodeTable` is the snapshot's scope; `order` is appended to ORDER BY's text keys (PostgreSQL's
 * byte order); `stored`: the database has the STORED_EVIDENCE columns (a reader of an older schema,
 * which never migrates, counts every answer from its addresses, over `providers`' fields).
 */
export function scaleEvidenceSql(postcodeTable: string, providers: readonly string[], { order = "", stored }: { order?: string; stored: boolean }): string {
  const fields = mobileFields(providers).map((f) => `m.${f}`);
  const present = fields.map((f) => `(CASE WHEN ${f} IS NULL THEN 0 ELSE 1 END)`).join(" + ");
  const legacy = fields.map((f) => `(CASE WHEN ${f} IN (${LEGACY_ONLY_RATINGS.join(", ")}) THEN 1 ELSE 0 END)`).join(" + ");
  const fromAddresses = (sum: string) => `(SELECT COALESCE(SUM(${sum}), 0) FROM mobile_addresses m WHERE m.postcode = l.postcode)`;
  const counted = (column: string, sum: string) => (stored ? `CASE WHEN l.${column} IS NULL THEN ${fromAddresses(sum)} ELSE l.${column} END` : fromAddresses(sum));
  // releases in the order the API first returned them: a failed refresh since does not make one newer
  // (a schema with the stored evidence has returned_at; an older one, only fetched_at)
  const returned = stored ? "COALESCE(l.returned_at, l.fetched_at)" : "l.fetched_at";
  return `SELECT l.dataset AS release, SUM(${counted(STORED_EVIDENCE.ratings, present)}) AS ratings, SUM(${counted(STORED_EVIDENCE.legacy, legacy)}) AS legacy
            FROM ${postcodeTable} s JOIN lookups l ON l.postcode = s.postcode AND l.lookup = 'mobile'
           WHERE ${EVIDENCE_ANSWERS}
           GROUP BY l.dataset ORDER BY MIN(${returned}${order}), l.dataset${order}`;
}

/**
 * One row: per field, per value, the addresses in scope (with `scale`, whose answer is on it) whose
 * field holds that rating (column `c<field index>_<value index>`). `unstored`: only the postcodes
 * whose mobile answer has no STORED_RATING_COUNTS (stored before them), the rest being summed from
 * those (an address row is only ever written with its answer's status row). `join`: the dialect's
 * orderedJoin (the scope's postcodes first).
 */
export function ratingCountsSql(postcodeTable: string, fields: readonly string[], values: readonly number[], scale?: MobileScale, { unstored = false, join = "JOIN" } = {}): string {
  const cells = fields.flatMap((f, i) => values.map((v, j) => `COUNT(CASE WHEN m.${f} = ${Number(v)} THEN 1 END) AS c${i}_${j}`));
  const on = scale === undefined ? "" : ` WHERE s.${MOBILE_SCALE_COLUMN} = '${MOBILE_SCALES.find((x) => x === scale)!}'`;
  // a join, not NOT EXISTS: SQLite would test that for every address row, not once a postcode
  const answers = unstored ? ` ${join} lookups l ON l.postcode = s.postcode AND l.lookup = 'mobile' AND l.${STORED_RATING_COUNTS} IS NULL` : "";
  return `SELECT ${cells.join(", ")} FROM ${postcodeTable} s${answers} ${join} mobile_addresses m ON m.postcode = s.postcode${on}`;
}

/** The lookups column holding each mobile answer's addresses at each rating of each rating place (ratingCountsText). */
export const STORED_RATING_COUNTS = "rating_counts";

/**
 * The answers' stored rating counts in scope (with `scale`, on it): each with its provider key, which
 * names their fields. `join` is the dialect's orderedJoin: the scope's postcodes first, each answer
 * found by its key (a small run in a large database reads its own answers, not all of them).
 */
export function storedRatingCountsSql(postcodeTable: string, scale?: MobileScale, join = "JOIN"): string {
  const on = scale === undefined ? "" : ` AND s.${MOBILE_SCALE_COLUMN} = '${MOBILE_SCALES.find((x) => x === scale)!}'`;
  return `SELECT l.providers AS providers, l.${STORED_RATING_COUNTS} AS counts FROM ${postcodeTable} s ${join} lookups l ON l.postcode = s.postcode AND l.lookup = 'mobile'
           WHERE l.${STORED_RATING_COUNTS} IS NOT NULL${on}`;
}

const RATINGS = RATING_MAX - RATING_MIN + 1;
// per provider key (the same few for every answer): where each rating place's field is in an answer's rows
const placeColumns = new Map<string | null, number[]>();
function placeColumnsOf(providers: string | null): number[] {
  let columns = placeColumns.get(providers);
  if (!columns) {
    const values = mobileFields(providersOfKey(providers));
    // rows are [uprn, address, ...values]
    placeColumns.set(providers, (columns = ratingPlaceFields(providersOfKey(providers)).map((f) => 2 + values.indexOf(f))));
  }
  return columns;
}

/**
 * An answer's rating counts as stored with it: per field of ratingPlaceFields(its providers), the
 * addresses at each rating from RATING_MIN to RATING_MAX, "," between ratings (a 0 left empty) and
 * ";" between fields (",,,3,9;,,,,12;..."): short, as every mobile status row holds one.
 */
export function ratingCountsText(rows: readonly (readonly unknown[])[], providers: string | null): string {
  const columns = placeColumnsOf(providers);
  const counts = new Array<number>(columns.length * RATINGS).fill(0);
  for (const row of rows)
    columns.forEach((c, k) => {
      const v = row[c];
      if (typeof v === "number" && v >= RATING_MIN && v <= RATING_MAX) counts[k * RATINGS + v - RATING_MIN]!++;
    });
  const field = (k: number) => counts.slice(k * RATINGS, (k + 1) * RATINGS).map((n) => (n === 0 ? "" : String(n))).join(",");
  return columns.map((_, k) => field(k)).join(";");
}

/**
 * Per field, per value (as ratingCountsOf gives them): the sum of the answers' stored counts
 * (storedRatingCountsSql's rows: provider key, counts), read a batch at a time: a row per postcode,
 * all held at once, would sit at the reports' memory peak.
 */
export async function sumStoredRatingCounts(rows: RowBatches<Cell[]>, fields: readonly string[], values: readonly number[]): Promise<number[][]> {
  const sums = fields.map(() => values.map(() => 0));
  const where = new Map<string | null, number[]>();
  for await (const batch of rows)
    for (const [providers, counts] of batch) {
      const key = providers === null || providers === undefined ? null : String(providers);
      let at = where.get(key);
      if (!at) {
        const placed = ratingPlaceFields(providersOfKey(key));
        where.set(key, (at = fields.map((f) => placed.indexOf(f))));
      }
      const stored = String(counts ?? "").split(";");
      at.forEach((k, i) => {
        if (k < 0) return;
        const byRating = (stored[k] ?? "").split(",");
        values.forEach((v, j) => (sums[i]![j]! += Number(byRating[v - RATING_MIN] || 0)));
      });
    }
  return sums;
}

/** The counts of ratingCountsSql's row, per field then value. */
export function ratingCountsOf(row: Record<string, unknown> | undefined, fields: readonly string[], values: readonly number[]): number[][] {
  return fields.map((_, i) => values.map((_v, j) => Number(row?.[`c${i}_${j}`] ?? 0)));
}

/** Every stored mobile answer's postcode: recordScales' scope (all of the store, not one report's). */
export const ALL_MOBILE_POSTCODES = "(SELECT DISTINCT postcode FROM lookups WHERE lookup = 'mobile')";

/** `column` set to `value` where that is more: the recorded evidence only grows. */
const kept = (column: string, value: string) => `CASE WHEN ${column} IS NULL OR ${column} < ${value} THEN ${value} ELSE ${column} END`;

/**
 * The UPDATE that adds one release's evidence to its record ($1..$3 or ? in order: ratings, legacy
 * ratings, name): each count keeps the larger of the recorded and the counted, so that answers moved
 * to a newer release, or deleted by the retention, never take a release's 1s and 2s (its scale) away.
 * Returns the counts kept, from which the caller records the scale (recordScaleOfSql).
 */
export function recordEvidenceSql(param: (i: number) => string): string {
  return `UPDATE releases SET scale_ratings = ${kept("scale_ratings", param(1))}, scale_legacy_ratings = ${kept("scale_legacy_ratings", param(2))}
           WHERE lookup = 'mobile' AND name = ${param(3)} RETURNING scale_ratings AS ratings, scale_legacy_ratings AS legacy`;
}

/** The UPDATE that records one release's scale, as its kept evidence shows it ($1, $2: scale, name). */
export function recordScaleOfSql(param: (i: number) => string): string {
  return `UPDATE releases SET scale = ${param(1)} WHERE lookup = 'mobile' AND name = ${param(2)}`;
}

/** Each mobile release's evidence as last recorded over every stored answer (recordScaleSql), for releases recorded. */
export const RECORDED_SCALES_SQL =
  "SELECT name AS release, scale_ratings AS ratings, scale_legacy_ratings AS legacy FROM releases WHERE lookup = 'mobile' AND scale_ratings IS NOT NULL AND scale_legacy_ratings IS NOT NULL";
