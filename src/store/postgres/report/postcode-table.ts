// The PostgreSQL snapshot's postcode table: a temporary table with one row per postcode in scope,
// each lookup's status and every per-postcode figure, as the SQLite engine's report/postcode-table.ts
// builds it, statement by statement. PostgreSQL-specific: the table is created before the
// transaction turns read only (source.ts), so filling it is DELETE, INSERT and UPDATE … FROM on a
// temporary table; columns are unquoted (folded to lower case); text sorts in byte order.
import type pg from "pg";
import { OPEN_DATA_COLUMNS, OPEN_DATA_MONTH_COLUMN } from "../../../spec/open-data.js";
import { COORDINATE_COLUMNS } from "../../../figures/coordinates.js";
import { countColumns, DOWNLOAD_RANGE_COLUMNS, openDataColumns } from "../../../figures/postcode-columns.js";
import { broadbandMeasures, count, downloadWithDataSql, mobileMeasures, tierSql } from "../../shared/measures.js";
import type { ReportScope } from "../../snapshot.js";
import { bind, BYTE_ORDER, displayPostcodeSql } from "./dialect.js";
import { postcodeRowsSql } from "../../shared/postcode-rows.js";

export const POSTCODE_TABLE = "report_postcodes";
export const AREA_TABLE = "report_areas";
export const GROUP_TABLE = "report_groups";


/**
 * Creates every temporary table the snapshot may fill (ON COMMIT DROP: they go with the
 * transaction, also when it fails). Runs before the transaction turns read only.
 */
export async function createTemporaryTables(client: pg.PoolClient, scope: ReportScope): Promise<void> {
  const counts = countColumns(scope.providers);
  const figures = [
    ...DOWNLOAD_RANGE_COLUMNS.map((c) => `${c} double precision`),
    ...[...counts.broadband, ...counts.mobile].map((c) => `${c} bigint`),
    ...openDataColumns(scope).map((c) => `${c} ${c === OPEN_DATA_MONTH_COLUMN ? "text" : "double precision"}`),
  ];
  await client.query(
    `CREATE TEMPORARY TABLE ${POSTCODE_TABLE} (
       display text ${BYTE_ORDER} PRIMARY KEY, postcode text ${BYTE_ORDER} NOT NULL UNIQUE,
       BroadbandStatus text NOT NULL, MobileStatus text NOT NULL, Status text,
       BroadbandAddresses bigint, MobileAddresses bigint, Addresses bigint, ${figures.join(", ")},
       ${COORDINATE_COLUMNS.map((c) => `${c} double precision`).join(", ")}
     ) ON COMMIT DROP`,
  );
  await client.query(`CREATE TEMPORARY TABLE ${AREA_TABLE} (postcode text ${BYTE_ORDER} PRIMARY KEY, cells text NOT NULL, latitude double precision, longitude double precision) ON COMMIT DROP`);
  await client.query(`CREATE TEMPORARY TABLE ${GROUP_TABLE} (dim bigint NOT NULL, grp text ${BYTE_ORDER} NOT NULL, postcode text ${BYTE_ORDER}, n bigint NOT NULL) ON COMMIT DROP`);
}

/** Fills the table with each postcode in scope and its statuses; figures zero (or empty when not requested). */
export async function fillPostcodeTable(client: pg.PoolClient, scope: ReportScope): Promise<void> {
  await client.query(`DELETE FROM ${POSTCODE_TABLE}`);
  const fill = postcodeRowsSql(scope, POSTCODE_TABLE, displayPostcodeSql);
  await client.query(bind(fill.insert, scope.kind === "run" ? { runId: scope.runId } : {}));
  await client.query(fill.status);
}

/** Copies each postcode's figures (all premises, or residential) from the stored open data. */
async function fillOpenDataColumns(client: pg.PoolClient, scope: ReportScope): Promise<void> {
  if (!scope.openData) return;
  await client.query(
    bind(
      `UPDATE ${POSTCODE_TABLE} AS s SET ${OPEN_DATA_MONTH_COLUMN} = @month, ${OPEN_DATA_COLUMNS.map((c) => `${c} = od.${c}`).join(", ")}
         FROM open_data od WHERE od.postcode = s.postcode AND od.premises = @premises`,
      { month: scope.openData.month, premises: scope.openData.premises },
    ),
  );
}

/** Counts every postcode's addresses into its figures: one aggregate pass per lookup. */
async function countPostcodeFigures(client: pg.PoolClient, scope: ReportScope, goodRating: number): Promise<void> {
  if (scope.lookups.includes("broadband")) {
    const measures = broadbandMeasures("t.tier");
    await client.query(
      bind(
        `UPDATE ${POSTCODE_TABLE} AS s SET BroadbandAddresses = a.n, BestMaxPredictedDown = a.best, WorstMaxPredictedDown = a.worst,
           ${measures.map((m) => `${m.column} = a.${m.column}`).join(", ")}
         FROM (SELECT t.postcode, COUNT(*) AS n, MAX(t.down) AS best, MIN(t.down) AS worst, ${measures.map(count).join(", ")}
                 FROM (SELECT b.postcode, ${downloadWithDataSql("b")} AS down, ${tierSql("b")} AS tier
                         FROM ${POSTCODE_TABLE} s2 JOIN broadband_addresses b ON b.postcode = s2.postcode) t
                GROUP BY t.postcode) a
         WHERE a.postcode = s.postcode`,
      ),
    );
  }
  if (scope.lookups.includes("mobile")) {
    const measures = mobileMeasures("m", scope.providers);
    await client.query(
      bind(
        `UPDATE ${POSTCODE_TABLE} AS s SET MobileAddresses = a.n, ${measures.map((m) => `${m.column} = a.${m.column}`).join(", ")}
         FROM (SELECT m.postcode, COUNT(*) AS n, ${measures.map(count).join(", ")}
                 FROM ${POSTCODE_TABLE} s2 JOIN mobile_addresses m ON m.postcode = s2.postcode
                GROUP BY m.postcode) a
         WHERE a.postcode = s.postcode`,
        { good: goodRating },
      ),
    );
  }
}

/** Addresses: each postcode's addresses in either lookup, an address in both counted once (the groups' Addresses). */
export async function countAddressesEither(client: pg.PoolClient, scope: ReportScope): Promise<void> {
  const broadband = scope.lookups.includes("broadband");
  const mobile = scope.lookups.includes("mobile");
  const mobileOnly = broadband
    ? "SELECT COUNT(*) FROM mobile_addresses m WHERE m.postcode = s.postcode AND NOT EXISTS (SELECT 1 FROM broadband_addresses b WHERE b.postcode = m.postcode AND b.uprn = m.uprn)"
    : "SELECT COUNT(*) FROM mobile_addresses m WHERE m.postcode = s.postcode";
  await client.query(`UPDATE ${POSTCODE_TABLE} AS s SET Addresses = ${broadband ? "COALESCE(BroadbandAddresses, 0)" : "0"} + ${mobile ? `(${mobileOnly})` : "0"}`);
}

/** The table's rows (statuses only without a good rating; with one, every figure). */
export async function preparePostcodeTable(client: pg.PoolClient, scope: ReportScope, goodRating: number | null): Promise<void> {
  await fillPostcodeTable(client, scope);
  if (goodRating === null) return;
  await countPostcodeFigures(client, scope, goodRating);
  await fillOpenDataColumns(client, scope);
}

