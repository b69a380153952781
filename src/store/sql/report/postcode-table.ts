// The snapshot's postcode table: a temporary table with one row per postcode in scope, in display
// order, holding each lookup's status and every per-postcode figure. postcodes.csv, enriched.csv
// and the summary read it; the address files join it to get their rows in PostCode order. The
// snapshot makes its temporary tables when it opens (PostgreSQL refuses CREATE once the
// transaction is read only) and fills them as the reports ask.
import type { Lookup } from "../../../contract/fields.js";
import { MOBILE_SCALES, oneGoodRating, type AnswerScales } from "../../../contract/mobile-scales.js";
import { OPEN_DATA_COLUMNS, OPEN_DATA_MONTH_COLUMN } from "../../../contract/open-data.js";
import { COORDINATE_COLUMNS } from "../../../figures/coordinates.js";
import { countColumns, DOWNLOAD_RANGE_COLUMNS, MOBILE_GOOD_COLUMN, MOBILE_SCALE_COLUMN, openDataColumns, SCALE_ADDRESSES_COLUMN } from "../../../figures/postcode-columns.js";
import type { ReportScope } from "../../snapshot.js";
import { broadbandMeasures, count, downloadWithDataSql, mobileMeasures, tierSql } from "../measures.js";
import type { SqlSession } from "../session.js";
import { postcodeRowsSql } from "./postcode-rows.js";

export const POSTCODE_TABLE = "report_postcodes";
export const AREA_TABLE = "report_areas";
export const GROUP_TABLE = "report_groups";

/**
 * Makes every temporary table the snapshot may fill: the postcodes, --area-file's rows, the groups.
 * Their postcodes (the join keys) are plain TEXT, in the stored tables' own collation: compared to
 * a column of another collation (byteText's "C" on PostgreSQL), a stored table's index on postcode
 * is of no use, and each postcode scanned a whole address table. Only what is sorted for output
 * (display, grp) is text in byte order.
 */
export async function createTemporaryTables(q: SqlSession, scope: ReportScope): Promise<void> {
  const d = q.dialect;
  const counts = countColumns(scope.providers);
  const figures = [
    ...DOWNLOAD_RANGE_COLUMNS.map((c) => `${c} ${d.doubleType}`),
    ...[...counts.broadband, ...counts.mobile].map((c) => `${c} ${d.integerType}`),
    ...openDataColumns(scope).map((c) => `${c} ${c === OPEN_DATA_MONTH_COLUMN ? "TEXT" : d.doubleType}`),
  ];
  const postcodes = `display ${d.byteText} PRIMARY KEY, postcode TEXT NOT NULL UNIQUE,
       BroadbandStatus TEXT NOT NULL, MobileStatus TEXT NOT NULL, Status TEXT,
       BroadbandAddresses ${d.integerType}, MobileAddresses ${d.integerType}, Addresses ${d.integerType}, ${figures.join(", ")},
       ${MOBILE_SCALE_COLUMN} TEXT, ${MOBILE_GOOD_COLUMN} ${d.integerType}, ${Object.values(SCALE_ADDRESSES_COLUMN).map((c) => `${c} ${d.integerType}`).join(", ")},
       ${COORDINATE_COLUMNS.map((c) => `${c} ${d.doubleType}`).join(", ")}`;
  const statements = [
    ...d.temporaryTable(POSTCODE_TABLE, postcodes, true),
    ...d.temporaryTable(AREA_TABLE, `postcode TEXT PRIMARY KEY, cells TEXT NOT NULL, latitude ${d.doubleType}, longitude ${d.doubleType}`, true),
    ...d.temporaryTable(GROUP_TABLE, `dim ${d.integerType} NOT NULL, grp ${d.byteText} NOT NULL, postcode TEXT, n ${d.integerType} NOT NULL`, false),
  ];
  for (const statement of statements) await q.exec(statement);
}

/**
 * The table's rows (statuses only without the answers' scales; with them, every figure unless
 * `figures` is false). `listed`: the table holds the statuses alone, as this made them without
 * scales, and they are kept (the snapshot reads one state).
 */
export async function preparePostcodeTable(q: SqlSession, scope: ReportScope, judged: AnswerScales | null, figures = true, listed = false): Promise<void> {
  if (!listed) await listPostcodes(q, scope);
  if (judged === null) return;
  if (scope.lookups.includes("mobile")) await fillMobileScales(q, judged);
  if (!figures) return;
  await countPostcodeFigures(q, scope, goodRatingSql("s2", judged));
  await fillOpenDataColumns(q, scope);
}

/** preparePostcodes' `judged` as the scales of the answers (a number judges every answer at that rating). */
export const answerScalesGiven = (judged: AnswerScales | number | null): AnswerScales | null => (typeof judged === "number" ? oneGoodRating(judged) : judged);

/**
 * The good rating an address of the postcode table's row `alias` is judged by: the number itself
 * when one rating judges every answer (a constant costs less than a column read per address, a
 * million times over in mobile.csv), else the row's MobileGood.
 */
export function goodRatingSql(alias: string, judged: AnswerScales | null): string {
  const good = judged === null ? null : goodOfEveryAnswer(judged);
  return good === null ? `${alias}.${MOBILE_GOOD_COLUMN}` : String(good);
}

/** The good rating of every answer when all of them are on one scale; null when each has its release's. */
const goodOfEveryAnswer = (judged: AnswerScales): number | null => (judged.all === null ? null : Number(judged.good[judged.all]));

/** Every postcode in scope with its statuses, the figures of each lookup found zero, the others empty. */
async function listPostcodes(q: SqlSession, scope: ReportScope): Promise<void> {
  await q.exec(`DELETE FROM ${POSTCODE_TABLE}`);
  const fill = postcodeRowsSql(scope, POSTCODE_TABLE, q.dialect.displayPostcode);
  await q.exec(fill.insert, scope.kind === "run" ? { runId: scope.runId } : {});
  await q.exec(fill.status);
}

/**
 * Each postcode's mobile answer's scale (its release's) and the good rating it is judged by, set
 * before any figure is counted, so that every figure judges each answer on its own scale.
 */
async function fillMobileScales(q: SqlSession, judged: AnswerScales): Promise<void> {
  const good = goodOfEveryAnswer(judged);
  if (good !== null) {
    // one scale for every answer: one pass sets both
    const scale = MOBILE_SCALES.find((x) => x === judged.all)!;
    await q.exec(`UPDATE ${POSTCODE_TABLE} SET ${MOBILE_SCALE_COLUMN} = '${scale}', ${MOBILE_GOOD_COLUMN} = ${good}`);
    return;
  }
  const named = judged.legacyReleases.filter((r): r is string => r !== null);
  const params = Object.fromEntries(named.map((r, i) => [`legacy${i}`, r]));
  const tests = [...(named.length > 0 ? [`l.dataset IN (${named.map((_, i) => `@legacy${i}`).join(", ")})`] : []), ...(judged.legacyReleases.includes(null) ? ["l.dataset IS NULL"] : [])];
  const scale = tests.length > 0 ? `CASE WHEN ${tests.join(" OR ")} THEN 'legacy' ELSE 'current' END` : "'current'";
  await q.exec(`UPDATE ${POSTCODE_TABLE} AS s SET ${MOBILE_SCALE_COLUMN} = ${scale} FROM lookups l WHERE l.postcode = s.postcode AND l.lookup = 'mobile'`, params);
  // every postcode, also one without a mobile answer (no scale: judged as the current scale would)
  await q.exec(`UPDATE ${POSTCODE_TABLE} SET ${MOBILE_GOOD_COLUMN} = CASE ${MOBILE_SCALE_COLUMN} WHEN 'legacy' THEN ${Number(judged.good.legacy)} ELSE ${Number(judged.good.current)} END`);
}

/** Copies each postcode's figures (all premises, or residential) from the stored open data. */
async function fillOpenDataColumns(q: SqlSession, scope: ReportScope): Promise<void> {
  if (!scope.openData) return;
  await q.exec(
    `UPDATE ${POSTCODE_TABLE} AS s SET ${OPEN_DATA_MONTH_COLUMN} = @month, ${OPEN_DATA_COLUMNS.map((c) => `${c} = od.${c}`).join(", ")}
       FROM open_data od WHERE od.postcode = s.postcode AND od.premises = @premises`,
    { month: scope.openData.month, premises: scope.openData.premises },
  );
}

/**
 * Counts every postcode's addresses into its figures: one aggregate pass per lookup. SQLite groups
 * by the postcode table's own column (groupKey), which it reads in postcode order (its unique
 * index), so the groups need no sort of every address row (grouped by the address table's column, they did).
 * On SQLite the broadband subquery's keepOrder ("ORDER BY … LIMIT -1") keeps it from being
 * flattened into the aggregate, which would copy the tier's CASE into every measure (evaluated 7
 * times an address, not once), and tells SQLite the rows come in postcode order (measured at 50,000
 * postcodes: 0.6–0.85 s of CPU against 1.0–1.5 s).
 */
async function countPostcodeFigures(q: SqlSession, scope: ReportScope, good: string): Promise<void> {
  const d = q.dialect;
  const requested = (l: Lookup) => scope.lookups.includes(l);
  if (requested("broadband")) {
    const measures = broadbandMeasures("t.tier");
    await q.exec(
      `UPDATE ${POSTCODE_TABLE} AS s SET BroadbandAddresses = a.n, BestMaxPredictedDown = a.best, WorstMaxPredictedDown = a.worst,
         ${measures.map((m) => `${m.column} = a.${m.column}`).join(", ")}
       FROM (SELECT t.postcode, COUNT(*) AS n, MAX(t.down) AS best, MIN(t.down) AS worst, ${measures.map(count).join(", ")}
               FROM (SELECT ${d.groupKey("s2", "b")} AS postcode, ${downloadWithDataSql("b")} AS down, ${tierSql("b")} AS tier
                       FROM ${POSTCODE_TABLE} s2 ${d.orderedJoin} broadband_addresses b ON b.postcode = s2.postcode${d.keepOrder("s2.postcode")}) t
              GROUP BY t.postcode) a
       WHERE a.postcode = s.postcode`,
    );
  }
  if (requested("mobile")) {
    const measures = mobileMeasures("m", scope.providers, good);
    await q.exec(
      `UPDATE ${POSTCODE_TABLE} AS s SET MobileAddresses = a.n, ${measures.map((m) => `${m.column} = a.${m.column}`).join(", ")}
       FROM (SELECT ${d.groupKey("s2", "m")} AS postcode, COUNT(*) AS n, ${measures.map(count).join(", ")}
               FROM ${POSTCODE_TABLE} s2 ${d.orderedJoin} mobile_addresses m ON m.postcode = s2.postcode
              GROUP BY ${d.groupKey("s2", "m")}) a
       WHERE a.postcode = s.postcode`,
    );
    const onScale = (scale: string) => `CASE WHEN ${MOBILE_SCALE_COLUMN} = '${scale}' THEN COALESCE(MobileAddresses, 0) ELSE 0 END`;
    await q.exec(`UPDATE ${POSTCODE_TABLE} SET ${Object.entries(SCALE_ADDRESSES_COLUMN).map(([scale, c]) => `${c} = ${onScale(scale)}`).join(", ")}`);
  }
}

/**
 * Addresses: each postcode's addresses in either lookup, an address in both counted once (the
 * groups' Addresses); empty when neither lookup has an answer behind it. One index seek per
 * postcode and address, so it is counted only when needed.
 */
export async function countAddressesEither(q: SqlSession, scope: ReportScope): Promise<void> {
  const broadband = scope.lookups.includes("broadband");
  const mobile = scope.lookups.includes("mobile");
  const mobileOnly = broadband
    ? "SELECT COUNT(*) FROM mobile_addresses m WHERE m.postcode = s.postcode AND NOT EXISTS (SELECT 1 FROM broadband_addresses b WHERE b.postcode = m.postcode AND b.uprn = m.uprn)"
    : "SELECT COUNT(*) FROM mobile_addresses m WHERE m.postcode = s.postcode";
  // empty without an answer of either lookup; a lookup without one adds nothing
  const either = `${broadband ? "COALESCE(BroadbandAddresses, 0)" : "0"} + ${mobile ? `(CASE WHEN MobileAddresses IS NULL THEN 0 ELSE (${mobileOnly}) END)` : "0"}`;
  await q.exec(`UPDATE ${POSTCODE_TABLE} AS s SET Addresses = CASE WHEN BroadbandAddresses IS NULL AND MobileAddresses IS NULL THEN NULL ELSE ${either} END`);
}
