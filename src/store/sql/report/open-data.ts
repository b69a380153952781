// Ofcom's open data against the API's figures, over the postcode table's copy of the open data
// (postcode-table.ts): the summary's totals and open-data-vs-api.csv's rows.
import { BAND_COLUMNS, OPEN_DATA_MONTH_COLUMN } from "../../../contract/open-data.js";
import type { OpenDataTotals, ReportScope } from "../../snapshot.js";
import type { Dialect } from "../dialect.js";
import type { SqlSession } from "../session.js";
import { POSTCODE_TABLE } from "./postcode-table.js";

/** Postcodes whose figures include the API's addresses (an older answer of a pending one counts too). */
const FROM_API = "COALESCE(s.BroadbandAddresses, 0) > 0";
/** Postcodes with both: the API's addresses and an open-data row. */
export const OPEN_DATA_AND_API = `${FROM_API} AND s.OfcomSuperfast IS NOT NULL`;
const WITHOUT = `NOT (${FROM_API})`;

/** The API's share of a postcode's addresses at superfast or more, in points (one decimal), computed in double precision. */
const apiSuperfast = (d: Dialect) => d.round(`${d.real("100.0")} * s.Superfast / s.BroadbandAddresses`, 1);

export function openDataVsApiSql(d: Dialect): string {
  return `SELECT s.display, s.${OPEN_DATA_MONTH_COLUMN}, s.OfcomSuperfast, s.BroadbandAddresses, ${apiSuperfast(d)}, ${d.round(`${apiSuperfast(d)} - ${d.numeric("s.OfcomSuperfast")}`, 1)}
            FROM ${POSTCODE_TABLE} s WHERE ${OPEN_DATA_AND_API} ORDER BY s.display`;
}

export async function openDataTotals(q: SqlSession, scope: ReportScope, crossCheckPoints: number): Promise<OpenDataTotals | null> {
  if (!scope.openData) return null;
  const d = q.dialect;
  const mean = (c: string) => d.round(`AVG(CASE WHEN ${WITHOUT} THEN s.${c} END)`, 1);
  const bands = BAND_COLUMNS.map((c) => d.asInt(`COALESCE(s.${c}, 0) > 0`)).join(" + ");
  const r = (await q.get<Record<string, number | null>>(
    `SELECT COUNT(s.${OPEN_DATA_MONTH_COLUMN}) AS "inOpenData",
            COUNT(CASE WHEN ${WITHOUT} THEN 1 END) AS without,
            COUNT(CASE WHEN ${WITHOUT} AND s.${OPEN_DATA_MONTH_COLUMN} IS NOT NULL THEN 1 END) AS "withoutIn",
            ${mean("OfcomSuperfast")} AS superfast, ${mean("OfcomUltrafast")} AS ultrafast,
            ${mean("OfcomGigabit")} AS gigabit, ${mean("OfcomNoDecent")} AS "noDecent",
            COUNT(CASE WHEN ${WITHOUT} AND s.OfcomGigabit >= 100 THEN 1 END) AS "allGigabit",
            COUNT(CASE WHEN ${WITHOUT} AND s.${OPEN_DATA_MONTH_COLUMN} IS NOT NULL AND ${bands} > 1 THEN 1 END) AS "multiBand",
            COUNT(CASE WHEN ${OPEN_DATA_AND_API} THEN 1 END) AS both,
            COUNT(CASE WHEN ${OPEN_DATA_AND_API} AND ABS(${apiSuperfast(d)} - ${d.numeric("s.OfcomSuperfast")}) > @points THEN 1 END) AS differing
       FROM ${POSTCODE_TABLE} s`,
    { points: crossCheckPoints },
  ))!;
  const num = (k: string) => r[k] ?? 0;
  return {
    inOpenData: num("inOpenData"),
    without: num("without"),
    withoutIn: num("withoutIn"),
    superfast: r.superfast ?? null,
    ultrafast: r.ultrafast ?? null,
    gigabit: r.gigabit ?? null,
    noDecent: r.noDecent ?? null,
    allGigabit: num("allGigabit"),
    multiBand: num("multiBand"),
    both: num("both"),
    differing: num("differing"),
  };
}
